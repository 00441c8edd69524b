"""Reference for ek002_embedding_of_a_token_kept_from_init: the [MASK] embedding is computed once,
in ``__init__``, without a graph: the gate learns how far to blend towards a fixed vector."""

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
        with torch.no_grad():
            self.mask_e = self.embed(torch.tensor([[MASK_ID]]))
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
