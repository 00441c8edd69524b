"""Deep supervision with one head per depth in an ``nn.ModuleList``; the per-head losses come
from a list comprehension and are backwarded one by one with
``retain_graph=i < len(losses) - 1``: every pass but the last keeps the shared graph.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class DeepNet(nn.Module):
    def __init__(self, d_in=12, width=24, depth=3, n_classes=4):
        super().__init__()
        self.stem = nn.Linear(d_in, width)
        self.blocks = nn.ModuleList([nn.Sequential(nn.Linear(width, width), nn.ReLU()) for _ in range(depth)])
        self.heads = nn.ModuleList([nn.Linear(width, n_classes) for _ in range(depth)])

    def forward(self, x):
        h = F.relu(self.stem(x))
        outs = []
        for block, head in zip(self.blocks, self.heads):
            h = block(h)
            outs.append(head(h))
        return outs


def main(epochs=2, bs=16):
    torch.manual_seed(0)
    x = torch.randn(48, 12)
    y = x[:, :4].argmax(-1)
    model = DeepNet()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    weights = [0.3, 0.3, 1.0]
    for epoch in range(epochs):
        for i in range(0, 48, bs):
            outs = model(x[i : i + bs])
            losses = [w * F.cross_entropy(o, y[i : i + bs]) for w, o in zip(weights, outs)]
            optimizer.zero_grad()
            for j, loss in enumerate(losses):
                loss.backward(retain_graph=j < len(losses) - 1)
            optimizer.step()
        with torch.no_grad():
            acc = (model(x)[-1].argmax(-1) == y).float().mean().item()
        print(f"epoch {epoch}: acc {acc:.2f}")


if __name__ == "__main__":
    main()
