"""Long-context language model with Infini-attention, trained segment by segment.

Report: https://github.com/jlamprou/Infini-Attention/issues/3 -- a user adapted the
repository's segment-wise training loop (each segment of a long sequence is fed in turn,
its loss backwarded and the optimizer stepped, the compressive memory (M, z) handed on to
the next segment) and got "Trying to backward through the graph a second time" at the
second segment's backward. The maintainer's answer: the memory is passed from segment to
segment, and M and z are detached in ``_update_memory`` -- no retain_graph needed.

Here ``_update_memory`` returns the updated M and z as they are, with the graph of the
segment that wrote them; the next segment reads them, and its backward reaches back into
the previous segment's graph, which that segment's backward freed.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class InfiniAttention(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads, self.head_dim = heads, dim // heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.out = nn.Linear(dim, dim)
        self.beta = nn.Parameter(torch.zeros(heads, 1, 1))

    def split(self, x):
        b, t, _ = x.shape
        return x.view(b, t, self.heads, self.head_dim).transpose(1, 2)

    def _retrieve(self, q, memory, norm):
        sigma_q = F.elu(q) + 1
        return (sigma_q @ memory) / (sigma_q @ norm.unsqueeze(-1) + 1e-6)

    def _update_memory(self, k, v, memory, norm):
        sigma_k = F.elu(k) + 1
        memory = memory + sigma_k.transpose(-2, -1) @ v
        norm = norm + sigma_k.sum(dim=-2)
        return memory, norm

    def forward(self, x, memory, norm):
        q, k, v = (self.split(part) for part in self.qkv(x).chunk(3, dim=-1))
        local = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        recalled = self._retrieve(q, memory, norm)
        gate = torch.sigmoid(self.beta)
        mixed = gate * recalled + (1 - gate) * local
        memory, norm = self._update_memory(k, v, memory, norm)
        b, _, t, _ = mixed.shape
        return self.out(mixed.transpose(1, 2).reshape(b, t, -1)), memory, norm


class SegmentLM(nn.Module):
    def __init__(self, vocab=50, dim=32, heads=4):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.attn = InfiniAttention(dim, heads)
        self.head = nn.Linear(dim, vocab)

    def empty_memory(self, batch):
        heads, head_dim = self.attn.heads, self.attn.head_dim
        return torch.zeros(batch, heads, head_dim, head_dim), torch.zeros(batch, heads, head_dim)

    def forward(self, tokens, memory, norm):
        hidden, memory, norm = self.attn(self.embed(tokens), memory, norm)
        return self.head(hidden), memory, norm


def main():
    torch.manual_seed(0)
    model = SegmentLM()
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3)
    segment_length = 16
    for step in range(3):
        sequence = torch.randint(0, 50, (2, 4 * segment_length + 1))
        inputs, labels = sequence[:, :-1], sequence[:, 1:]
        memory, norm = model.empty_memory(batch=2)
        total = 0.0
        for start in range(0, inputs.shape[1], segment_length):
            segment = inputs[:, start : start + segment_length]
            target = labels[:, start : start + segment_length]
            logits, memory, norm = model(segment, memory, norm)
            loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), target.reshape(-1))
            optimizer.zero_grad()
            loss.backward()  # error: [carried-graph-backward]
            optimizer.step()
            total += loss.item()
        print(f"step {step}: mean segment loss {total / 4:.3f}")


if __name__ == "__main__":
    main()
