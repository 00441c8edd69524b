"""Shared-encoder multi-task model; per-task gradient norms are logged, so the first task's
backward keeps the graph (retain_graph=True) and the second, last one frees it.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.shared = nn.Sequential(nn.Linear(8, 16), nn.ReLU())
        self.head_a = nn.Linear(16, 4)
        self.head_b = nn.Linear(16, 1)

    def forward(self, x):
        h = self.shared(x)
        return self.head_a(h), self.head_b(h).squeeze(-1)


def shared_grad_norm(model):
    return torch.sqrt(sum(p.grad.pow(2).sum() for p in model.shared.parameters())).item()


def main():
    torch.manual_seed(0)
    model = Net()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    for step in range(3):
        x = torch.randn(10, 8)
        y_a, y_b = torch.randint(0, 4, (10,)), torch.randn(10)
        out_a, out_b = model(x)
        loss_a = F.cross_entropy(out_a, y_a)
        loss_b = F.mse_loss(out_b, y_b)

        optimizer.zero_grad()
        loss_a.backward(retain_graph=True)
        norm_a = shared_grad_norm(model)
        loss_b.backward()
        norm_ab = shared_grad_norm(model)
        optimizer.step()
        print(
            f"step {step}: loss_a {loss_a.item():.3f} loss_b {loss_b.item():.3f} "
            f"|g_a| {norm_a:.3f} |g_a+g_b| {norm_ab:.3f}"
        )


if __name__ == "__main__":
    main()
