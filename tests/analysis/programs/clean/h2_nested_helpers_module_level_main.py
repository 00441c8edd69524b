"""Everything at module level under ``if __name__ == "__main__":`` with nested helpers: a
nested ``run_epoch`` closure over the model, a nested metrics class, and a local function
that builds the loss. Each batch gets its own forward pass and one backward.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


def make_regression(n=64, d=4, seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, d, generator=g)
    return x, (x**2).sum(-1, keepdim=True) + 0.1 * torch.randn(n, 1, generator=g)


if __name__ == "__main__":
    torch.manual_seed(0)
    x, y = make_regression()
    model = nn.Sequential(nn.Linear(4, 32), nn.Softplus(), nn.Linear(32, 1))
    optimizer = torch.optim.Adam(model.parameters(), lr=5e-3)

    class Meter:
        def __init__(self):
            self.total, self.count = 0.0, 0

        def update(self, value, n):
            self.total += value * n
            self.count += n

        @property
        def avg(self):
            return self.total / max(self.count, 1)

    def loss_for(xb, yb, huber_delta=1.0):
        pred = model(xb)
        return F.huber_loss(pred, yb, delta=huber_delta)

    def run_epoch(bs=16):
        meter = Meter()
        for i in range(0, len(x), bs):
            loss = loss_for(x[i : i + bs], y[i : i + bs])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            meter.update(loss.item(), len(x[i : i + bs]))
        return meter.avg

    for epoch in range(4):
        print(epoch, round(run_epoch(), 4))
    with torch.no_grad():
        final = loss_for(x, y)
    print("final", final.item())
