"""Character bigram language model trained with a Sophia-style diagonal Hessian estimate.

Report: https://github.com/Liuhong99/Sophia/issues/1 -- "Trying to backward through the
graph a second time" when calling loss_sampled.backward(). Every few steps Sophia-G
samples labels from the model's own predictions and backwards the loss on them to
estimate the Hessian diagonal. The reporter fed that estimate the logits of the training
step, whose graph the training backward had already freed; feeding the model the same
batch again in a separate function made it work.
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
            y_sample = torch.distributions.Categorical(logits=logits.detach()).sample()
            loss_sampled = F.cross_entropy(logits, y_sample)
            optimizer.zero_grad()
            loss_sampled.backward()  # error: [shared-graph-backward]
            for name, p in model.named_parameters():
                hessian[name].mul_(beta2).add_(p.grad * p.grad * batch, alpha=1 - beta2)
        print(f"step {step}: loss {loss.item():.3f}")
    print("hessian trace estimate", sum(h.sum().item() for h in hessian.values()))


if __name__ == "__main__":
    main()
