"""A denoiser that blends each token's embedding towards the [MASK] token's embedding by a learned
gate; the [MASK] embedding is computed once, in ``__init__``, by the model's own embedding module."""

import torch
import torch.nn.functional as F
from torch import nn

VOCAB, MASK_ID, HIDDEN = 20, 1, 8


class Embed(nn.Module):
    def __init__(self):
        super().__init__()
        self.words = nn.Embedding(VOCAB, HIDDEN)
        self.norm = nn.LayerNorm(HIDDEN)

    def forward(self, ids):
        return self.norm(self.words(ids))


class Denoiser(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = Embed()
        self.gate = nn.Linear(HIDDEN, 1)
        self.mask_e = self.embed(torch.tensor([[MASK_ID]])).detach()
        self.out = nn.Linear(HIDDEN, VOCAB)

    def forward(self, ids):
        e = self.embed(ids)
        p = torch.sigmoid(self.gate(e))
        return self.out(p * self.mask_e + (1 - p) * e)


torch.manual_seed(0)
model = Denoiser()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
for step in range(3):
    ids = torch.randint(2, VOCAB, (4, 6))
    loss = F.cross_entropy(model(ids).reshape(-1, VOCAB), ids.reshape(-1))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(f"step {step}: loss {loss.item():.4f}")
