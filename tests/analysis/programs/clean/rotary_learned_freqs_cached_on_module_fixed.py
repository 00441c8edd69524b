"""Tiny causal language model with learned rotary frequencies; the rotation angles are
computed from the frequency parameter on every forward and never cached, the change
that made training work in
https://github.com/lucidrains/rotary-embedding-torch/issues/18 .
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class LearnedRotary(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.freqs = nn.Parameter(1.0 / (100 ** (torch.arange(0, dim, 2).float() / dim)))

    def angles(self, seq_len):
        return torch.arange(seq_len).float()[:, None] * self.freqs[None, :]

    def forward(self, x):
        ang = self.angles(x.size(-2))
        x1, x2 = x[..., 0::2], x[..., 1::2]
        cos, sin = ang.cos(), ang.sin()
        return torch.stack([x1 * cos - x2 * sin, x1 * sin + x2 * cos], dim=-1).flatten(-2)


class TinyLM(nn.Module):
    def __init__(self, vocab=20, dim=16):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.rotary = LearnedRotary(dim)
        self.head = nn.Linear(dim, vocab)

    def forward(self, tokens):
        q, k, v = self.qkv(self.emb(tokens)).chunk(3, dim=-1)
        q, k = self.rotary(q), self.rotary(k)
        attn = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.head(attn)


def main(steps=4):
    torch.manual_seed(0)
    model = TinyLM()
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3)
    data = torch.randint(0, 20, (16, 9))
    for step in range(steps):
        batch = data[torch.randint(0, 16, (4,))]
        logits = model(batch[:, :-1])
        loss = F.cross_entropy(logits.reshape(-1, 20), batch[:, 1:].reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        assert model.rotary.freqs.grad.abs().sum() > 0
        print(f"step {step} loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
