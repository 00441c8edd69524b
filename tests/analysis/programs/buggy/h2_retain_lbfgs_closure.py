"""Logistic regression with L-BFGS; the closure retains the graph it rebuilds on every call.

Real report of this mechanism: https://github.com/EagleW/Writing-editing-Network/issues/3
A backward in the training loop passes retain_graph=True although every iteration builds its
graph again; removing it made no difference to training.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


def make_data(n=100, d=6, seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, d, generator=g)
    w_true = torch.randn(d, generator=g)
    y = (torch.sigmoid(x @ w_true) > torch.rand(n, generator=g)).float()
    return x, y


class Logistic(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.linear = nn.Linear(d, 1)

    def forward(self, x):
        return self.linear(x).squeeze(-1)


def fit(model, x, y, l2=1e-2, outer_steps=4):
    optimizer = torch.optim.LBFGS(model.parameters(), lr=1.0, max_iter=8, line_search_fn="strong_wolfe")
    evaluations = []

    def closure():
        optimizer.zero_grad()
        loss = F.binary_cross_entropy_with_logits(model(x), y) + l2 * model.linear.weight.pow(2).sum()
        loss.backward(retain_graph=True)  # error: [retain-graph-in-loop]
        evaluations.append(loss.item())
        return loss

    for _ in range(outer_steps):
        optimizer.step(closure)
    return evaluations


def accuracy(model, x, y):
    with torch.no_grad():
        return ((model(x) > 0).float() == y).float().mean().item()


if __name__ == "__main__":
    torch.manual_seed(0)
    x, y = make_data()
    model = Logistic(6)
    evals = fit(model, x, y)
    print(f"{len(evals)} closure evaluations, final loss {evals[-1]:.4f}, acc {accuracy(model, x, y):.2f}")
