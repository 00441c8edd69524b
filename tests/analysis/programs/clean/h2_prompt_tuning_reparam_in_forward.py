"""Soft-prompt tuning of a frozen encoder with a dataclass config: the prompt's
reparameterisation MLP runs inside ``forward`` on every call, so each step backwards its own
projection of the prompt.
"""

from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class PromptConfig:
    vocab_size: int = 30
    dim: int = 16
    n_prompt: int = 4
    n_classes: int = 3
    lr: float = 1e-2
    steps: int = 4
    seed: int = 0


class PromptTuner(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.embed = nn.Embedding(cfg.vocab_size, cfg.dim).requires_grad_(False)
        self.encoder = nn.GRU(cfg.dim, cfg.dim, batch_first=True).requires_grad_(False)
        self.prompt = nn.Parameter(torch.randn(cfg.n_prompt, cfg.dim) * 0.02)
        self.reparam = nn.Sequential(nn.Linear(cfg.dim, cfg.dim), nn.Tanh(), nn.Linear(cfg.dim, cfg.dim))
        self.head = nn.Linear(cfg.dim, cfg.n_classes)

    def prompt_embeds(self):
        return self.reparam(self.prompt)

    def forward(self, input_ids):
        tokens = self.embed(input_ids)
        prefix = self.prompt_embeds().unsqueeze(0).expand(tokens.size(0), -1, -1)
        _, h = self.encoder(torch.cat([prefix, tokens], dim=1))
        return self.head(h[-1])


def train(cfg):
    torch.manual_seed(cfg.seed)
    model = PromptTuner(cfg)
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=cfg.lr)
    g = torch.Generator().manual_seed(cfg.seed)
    for step in range(cfg.steps):
        input_ids = torch.randint(0, cfg.vocab_size, (8, 6), generator=g)
        labels = torch.randint(0, cfg.n_classes, (8,), generator=g)
        loss = F.cross_entropy(model(input_ids), labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(f"step {step}: {loss.item():.4f}")
    with torch.no_grad():
        return model.prompt_embeds()


if __name__ == "__main__":
    print(train(PromptConfig()).shape)
