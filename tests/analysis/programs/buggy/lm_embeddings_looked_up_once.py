"""Tiny next-token MLP language model on a fixed toy corpus.

The corpus is small, so the author embeds it once and then trains on windows
of the embedded sequence.

Real report of this mechanism: https://github.com/lucidrains/denoising-diffusion-pytorch/issues/109
A trainable conv1D applied to the data once, outside the training loop, made the second
loss.backward() raise.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

CORPUS = "the quick brown fox jumps over the lazy dog " * 3
CONTEXT = 4


class NextTokenMLP(nn.Module):
    def __init__(self, vocab_size, dim=8, context=CONTEXT):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, dim)
        self.mlp = nn.Sequential(nn.Linear(context * dim, 32), nn.Tanh(), nn.Linear(32, vocab_size))

    def head(self, window_embeddings):
        return self.mlp(window_embeddings.flatten(1))


def main():
    torch.manual_seed(0)
    chars = sorted(set(CORPUS))
    stoi = {c: i for i, c in enumerate(chars)}
    ids = torch.tensor([stoi[c] for c in CORPUS])

    model = NextTokenMLP(len(chars))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    scheduler = torch.optim.lr_scheduler.ExponentialLR(optimizer, gamma=0.95)

    embedded = model.embed(ids)
    starts = torch.arange(len(ids) - CONTEXT)
    for step in range(3):
        batch = starts[torch.randint(0, len(starts), (16,))]
        windows = torch.stack([embedded[s : s + CONTEXT] for s in batch.tolist()])
        targets = ids[batch + CONTEXT]
        logits = model.head(windows)
        loss = F.cross_entropy(logits, targets)
        optimizer.zero_grad()
        loss.backward()  # error: [pre-loop-graph-backward]
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        scheduler.step()
        print(f"step {step} loss {loss.item():.3f} ppl {loss.exp().item():.1f}")


if __name__ == "__main__":
    main()
