"""CPU training with ``torch.amp.GradScaler("cpu")`` and bf16 autocast. For logging, the
gradient of the loss with respect to the input is read first with
``autograd.grad(..., retain_graph=True)``; then the scaled loss is backwarded once.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class ConvNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(2))
        self.head = nn.Linear(16, 5)

    def forward(self, x):
        return self.head(self.features(x).flatten(1))


def batches(n_batches=4, bs=8):
    g = torch.Generator().manual_seed(0)
    for _ in range(n_batches):
        yield torch.randn(bs, 1, 8, 8, generator=g), torch.randint(0, 5, (bs,), generator=g)


def main(log_every=2):
    torch.manual_seed(0)
    model = ConvNet()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    scaler = torch.amp.GradScaler("cpu")
    for step, (x, y) in enumerate(batches()):
        x.requires_grad_(True)
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast("cpu", dtype=torch.bfloat16):
            logits = model(x)
        loss = F.cross_entropy(logits.float(), y)
        if step % log_every == 0:
            (x_grad,) = torch.autograd.grad(loss, x, retain_graph=True)
            print("input grad norm", round(x_grad.norm().item(), 5))
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        scaler.step(optimizer)
        scaler.update()
        print(f"step {step} loss {loss.item():.4f} scale {scaler.get_scale()}")


if __name__ == "__main__":
    main()
