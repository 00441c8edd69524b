"""A deep residual MLP trained with activation checkpointing (torch.utils.checkpoint) to save memory,
encoder and decoder on separate optimizers that both step after the single backward.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(dim, dim), nn.Linear(dim, dim)
        self.norm = nn.LayerNorm(dim)

    def forward(self, x):
        return x + self.fc2(F.gelu(self.fc1(self.norm(x))))


class DeepEncoder(nn.Module):
    def __init__(self, dim=16, depth=4, use_checkpoint=True):
        super().__init__()
        self.blocks = nn.ModuleList(Block(dim) for _ in range(depth))
        self.use_checkpoint = use_checkpoint

    def forward(self, x):
        for block in self.blocks:
            if self.use_checkpoint and self.training:
                x = checkpoint(block, x, use_reentrant=False)
            else:
                x = block(x)
        return x


def main(epochs=2):
    torch.manual_seed(0)
    encoder, decoder = DeepEncoder(), nn.Linear(16, 16)
    enc_opt = torch.optim.AdamW(encoder.parameters(), lr=1e-4)
    dec_opt = torch.optim.AdamW(decoder.parameters(), lr=1e-3)
    data = torch.randn(24, 16)
    for epoch in range(epochs):
        encoder.train()
        for batch in data.split(8):
            noisy = batch + 0.1 * torch.randn_like(batch)
            loss = F.mse_loss(decoder(encoder(noisy)), batch)
            enc_opt.zero_grad()
            dec_opt.zero_grad()
            loss.backward()
            enc_opt.step()
            dec_opt.step()
        encoder.eval()
        with torch.no_grad():
            val = F.mse_loss(decoder(encoder(data)), data).item()
        print(f"epoch {epoch}: train {loss.item():.4f} val {val:.4f}")


if __name__ == "__main__":
    main()
