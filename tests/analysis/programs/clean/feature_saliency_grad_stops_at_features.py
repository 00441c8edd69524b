"""Classifier training that logs, every step, which feature channels the head relies on:
``torch.autograd.grad(score.sum(), feats)`` stops at ``feats`` (the ``inputs`` bound the
traversal), so the encoder's graph behind ``feats`` is not freed and the training loss
can still backward through it (issue 13, "What a peer's test suite shows": the
``autograd.grad(z.sum(), y)`` then ``y``-backward case is clean).
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(12, 32), nn.Softplus(), nn.Linear(32, 8), nn.Softplus())

    def forward(self, x):
        return self.net(x)


def main(steps=4):
    torch.manual_seed(0)
    x = torch.randn(64, 12)
    y = (x[:, :3].sum(1) > 0).long()
    encoder, head = Encoder(), nn.Linear(8, 2)
    optimizer = torch.optim.Adam([*encoder.parameters(), *head.parameters()], lr=1e-2)
    history = []
    for step in range(steps):
        feats = encoder(x)
        score = head(feats).gather(1, y[:, None])
        (saliency,) = torch.autograd.grad(score.sum(), feats)
        reliance = saliency.abs().mean(0)
        loss = F.cross_entropy(head(feats), y) + 1e-3 * feats.pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        history.append(loss.item())
        print(f"step {step} loss {loss.item():.4f} top channel {int(reliance.argmax())}")
    assert history[-1] < history[0]


if __name__ == "__main__":
    main()
