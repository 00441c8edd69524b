"""Curvature-aware logging where the Hessian-vector probe runs a forward of its own and
takes its gradient with ``torch.autograd.grad`` (the maintainer's advice in
https://github.com/noahgolmant/pytorch-hessian-eigenthings/issues/13), instead of
reusing the training loss whose graph ``backward`` freed.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(10, 32), nn.Softplus(), nn.Linear(32, 3))

    def forward(self, x):
        return self.body(x)


def curvature_along(model, x, y, params, direction):
    loss = F.cross_entropy(model(x), y)
    grads = torch.autograd.grad(loss, params, create_graph=True)
    dot = sum((g * d).sum() for g, d in zip(grads, direction))
    hv = torch.autograd.grad(dot, params)
    return sum((h * d).sum() for h, d in zip(hv, direction)).item()


def main(steps=3):
    torch.manual_seed(0)
    x = torch.randn(48, 10)
    y = torch.randint(0, 3, (48,))
    model = Classifier()
    params = list(model.parameters())
    optimizer = torch.optim.SGD(params, lr=0.2)
    losses = []
    for step in range(steps):
        optimizer.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        direction = [-p.grad.clone() for p in params]
        curvature = curvature_along(model, x, y, params, direction)
        optimizer.step()
        losses.append(loss.item())
        print(f"step {step} loss {loss.item():.4f} curvature {curvature:.4f}")

    assert losses[-1] < losses[0]


if __name__ == "__main__":
    main()
