"""Deep-supervision classifier: one head per depth, kept in an ``nn.ModuleList``.

The per-head losses are built with a list comprehension and backwarded in a loop,
one at a time; all heads share the trunk.

Real report of this mechanism: https://github.com/naver-ai/StyleMapGAN/issues/16
Two losses from one forward pass (adv_loss and w_rec_loss) are backwarded one after the
other and the second backward raises; the reporter backwarded their sum instead.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class DeeplySupervisedNet(nn.Module):
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
    y = (x[:, :4].argmax(-1)).long()
    model = DeeplySupervisedNet()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    head_weights = [0.3, 0.3, 1.0]
    for epoch in range(epochs):
        for i in range(0, 48, bs):
            outs = model(x[i : i + bs])
            losses = [w * F.cross_entropy(o, y[i : i + bs]) for w, o in zip(head_weights, outs)]
            optimizer.zero_grad()
            for loss in losses:
                loss.backward()  # error: [shared-graph-backward]
            optimizer.step()
        with torch.no_grad():
            acc = (model(x)[-1].argmax(-1) == y).float().mean().item()
        print(f"epoch {epoch}: acc {acc:.2f}")


if __name__ == "__main__":
    main()
