"""Multi-task learning with homoscedastic-uncertainty weighting: the weighting object's
own ``weights.backward(losses=...)`` method combines the task losses with learned log
variances and calls ``Tensor.backward`` once on the total (negative for issue 13,
mechanism 4: the object's method is not ``Tensor.backward`` without retain_graph).
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class UncertaintyWeights(nn.Module):
    def __init__(self, n_tasks):
        super().__init__()
        self.log_vars = nn.Parameter(torch.zeros(n_tasks))

    def total(self, losses):
        return sum(torch.exp(-s) * loss + s for s, loss in zip(self.log_vars, losses))

    def backward(self, losses):
        total = self.total(losses)
        total.backward()
        return total.detach()


class SharedNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(6, 24), nn.ReLU())
        self.cls = nn.Linear(24, 2)
        self.reg = nn.Linear(24, 1)

    def forward(self, x):
        h = self.trunk(x)
        return self.cls(h), self.reg(h).squeeze(-1)


def main(steps=5):
    torch.manual_seed(0)
    x = torch.randn(40, 6)
    y_cls = (x[:, 0] > 0).long()
    y_reg = x[:, 1] * 3
    net, weights = SharedNet(), UncertaintyWeights(2)
    optimizer = torch.optim.Adam([*net.parameters(), *weights.parameters()], lr=1e-2)
    for step in range(steps):
        logits, value = net(x)
        losses = [F.cross_entropy(logits, y_cls), F.mse_loss(value, y_reg)]
        optimizer.zero_grad()
        total = weights.backward(losses=losses)
        optimizer.step()
        print(f"step {step} total {total.item():.4f} log_vars {weights.log_vars.tolist()}")
    assert weights.log_vars.grad is not None


if __name__ == "__main__":
    main()
