"""Soft-prompt tuning of a frozen encoder, configured with a dataclass.

``PromptTuner.__init__`` projects the trainable prompt once and keeps the result;
every training step then backwards through that one projection.

Real report of this mechanism: https://github.com/hiyoung123/SoftMaskedBert/issues/16
The model computes the [MASK] embedding from trainable layers once, in __init__, and uses it
in every forward; the fix given there detaches it.
"""

from dataclasses import dataclass, field

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
    tags: list = field(default_factory=lambda: ["prompt", "frozen-encoder"])


class FrozenEncoder(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.embed = nn.Embedding(cfg.vocab_size, cfg.dim)
        layer = nn.TransformerEncoderLayer(cfg.dim, nhead=2, dim_feedforward=32, batch_first=True, dropout=0.0)
        self.encoder = nn.TransformerEncoder(layer, num_layers=1)
        self.requires_grad_(False)

    def forward(self, prompt, input_ids):
        tokens = self.embed(input_ids)
        prefix = prompt.unsqueeze(0).expand(tokens.size(0), -1, -1)
        return self.encoder(torch.cat([prefix, tokens], dim=1))


class PromptTuner(nn.Module):
    def __init__(self, cfg, encoder):
        super().__init__()
        self.encoder = encoder
        self.prompt = nn.Parameter(torch.randn(cfg.n_prompt, cfg.dim) * 0.02)
        self.reparam = nn.Sequential(nn.Linear(cfg.dim, cfg.dim), nn.Tanh(), nn.Linear(cfg.dim, cfg.dim))
        self.prompt_embeds = self.reparam(self.prompt)
        self.head = nn.Linear(cfg.dim, cfg.n_classes)

    def forward(self, input_ids):
        hidden = self.encoder(self.prompt_embeds, input_ids)
        return self.head(hidden[:, 0])


def train(cfg):
    torch.manual_seed(cfg.seed)
    model = PromptTuner(cfg, FrozenEncoder(cfg))
    trainable = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(trainable, lr=cfg.lr)
    g = torch.Generator().manual_seed(cfg.seed)
    for step in range(cfg.steps):
        input_ids = torch.randint(0, cfg.vocab_size, (8, 6), generator=g)
        labels = torch.randint(0, cfg.n_classes, (8,), generator=g)
        loss = F.cross_entropy(model(input_ids), labels)
        optimizer.zero_grad()
        loss.backward()  # error: [pre-loop-graph-backward]
        optimizer.step()
        print(f"step {step}: {loss.item():.4f}")


if __name__ == "__main__":
    train(PromptConfig())
