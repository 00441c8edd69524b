"""Mixed-precision training recipe (autocast + GradScaler, unscale_ before clipping).
AMP is enabled only on CUDA; on CPU the same code runs in full precision.
"""

import time

import torch
import torch.nn as nn
import torch.nn.functional as F


class ResidualBlock(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.ff = nn.Sequential(nn.Linear(dim, 2 * dim), nn.GELU(), nn.Linear(2 * dim, dim))

    def forward(self, x):
        return x + self.ff(self.norm(x))


class Model(nn.Module):
    def __init__(self, d_in=12, dim=16, n_blocks=2, n_out=3):
        super().__init__()
        self.inp = nn.Linear(d_in, dim)
        self.blocks = nn.Sequential(*[ResidualBlock(dim) for _ in range(n_blocks)])
        self.out = nn.Linear(dim, n_out)

    def forward(self, x):
        return self.out(self.blocks(self.inp(x)))


def main(epochs=2, steps_per_epoch=2, max_grad_norm=1.0):
    torch.manual_seed(0)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    use_amp = device == "cuda"
    model = Model().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4, weight_decay=0.01)
    scaler = torch.amp.GradScaler(device, enabled=use_amp)
    for epoch in range(epochs):
        start = time.perf_counter()
        epoch_loss = 0.0
        for _ in range(steps_per_epoch):
            x = torch.randn(8, 12, device=device)
            y = torch.randint(0, 3, (8,), device=device)
            optimizer.zero_grad(set_to_none=True)
            with torch.autocast(device_type=device, dtype=torch.float16, enabled=use_amp):
                loss = F.cross_entropy(model(x), y)
            scaler.scale(loss).backward()
            scaler.unscale_(optimizer)
            grad_norm = nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
            scaler.step(optimizer)
            scaler.update()
            epoch_loss += loss.detach().float().item()
        print(
            f"epoch {epoch}: loss {epoch_loss / steps_per_epoch:.4f} "
            f"grad_norm {grad_norm:.3f} ({time.perf_counter() - start:.2f}s)"
        )


if __name__ == "__main__":
    main()
