"""Weight-standardised layers held in an ``nn.ModuleList``: the standardised weight is
derived from the parameter inside ``forward`` on every call (never cached in ``__init__``),
and the network is addressed by index (``self.layers[-1]``, ``self.layers[:-1]``).
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class WSLinear(nn.Linear):
    def standardized_weight(self):
        w = self.weight
        return (w - w.mean(1, keepdim=True)) / (w.std(1, keepdim=True) + 1e-5)

    def forward(self, x):
        return F.linear(x, self.standardized_weight(), self.bias)


class WSNet(nn.Module):
    def __init__(self, sizes=(10, 32, 32, 4)):
        super().__init__()
        self.layers = nn.ModuleList([WSLinear(a, b) for a, b in zip(sizes[:-1], sizes[1:])])
        self.norms = nn.ModuleList([nn.GroupNorm(4, b) for b in sizes[1:-1]])

    def forward(self, x):
        for layer, norm in zip(self.layers[:-1], self.norms):
            x = F.relu(norm(layer(x)))
        return self.layers[-1](x)


def main(epochs=3):
    torch.manual_seed(0)
    x = torch.randn(64, 10)
    y = torch.randint(0, 4, (64,))
    model = WSNet()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=epochs)
    for epoch in range(epochs):
        for i in range(0, 64, 16):
            loss = F.cross_entropy(model(x[i : i + 16]), y[i : i + 16])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        scheduler.step()
        print(epoch, round(loss.item(), 4), model.layers[0].standardized_weight().detach().std().item())


if __name__ == "__main__":
    main()
