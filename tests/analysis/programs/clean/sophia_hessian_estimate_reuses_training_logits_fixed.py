"""Character bigram language model trained with a Sophia-style diagonal Hessian estimate.

Twin of buggy/sophia_hessian_estimate_reuses_training_logits.py, fixed as the reporter
did and as Sophia's own training script does: the Hessian estimate runs a fresh forward
pass of the batch and backwards the sampled-label loss through that new graph.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

TEXT = "the quick brown fox jumps over the lazy dog while the cat sleeps in the sun " * 8


class Bigram(nn.Module):
    def __init__(self, vocab, dim=16):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.head = nn.Linear(dim, vocab)

    def forward(self, idx):
        return self.head(torch.tanh(self.embed(idx)))


def main(steps=8, batch=32, hess_interval=2, beta2=0.99):
    torch.manual_seed(0)
    chars = sorted(set(TEXT))
    data = torch.tensor([chars.index(c) for c in TEXT])
    model = Bigram(len(chars))
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
    hessian = {name: torch.zeros_like(p) for name, p in model.named_parameters()}
    for step in range(steps):
        starts = torch.randint(len(data) - 1, (batch,))
        x, y = data[starts], data[starts + 1]
        logits = model(x)
        loss = F.cross_entropy(logits, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step % hess_interval == hess_interval - 1:
            logits = model(x)
            y_sample = torch.distributions.Categorical(logits=logits.detach()).sample()
            loss_sampled = F.cross_entropy(logits, y_sample)
            optimizer.zero_grad()
            loss_sampled.backward()
            assert all(p.grad is not None for p in model.parameters())
            for name, p in model.named_parameters():
                hessian[name].mul_(beta2).add_(p.grad * p.grad * batch, alpha=1 - beta2)
        print(f"step {step}: loss {loss.item():.3f}")
    print("hessian trace estimate", sum(h.sum().item() for h in hessian.values()))


if __name__ == "__main__":
    main()
