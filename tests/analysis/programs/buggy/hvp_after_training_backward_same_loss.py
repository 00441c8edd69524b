"""Curvature-aware logging: after each optimisation step the trainer estimates the
Hessian-vector product along the update direction, from the step's own loss.

Report: https://github.com/noahgolmant/pytorch-hessian-eigenthings/issues/13 -- reusing
the gradients of the training backward for the Hessian-vector product raised "Trying
to backward through the graph a second time"; the maintainer's advice: let the HVP
operator compute its own gradient with ``torch.autograd.grad`` from a forward of its
own.

Here ``loss.backward()`` has already freed the graph when the curvature probe calls
``autograd.grad(loss, ..., create_graph=True)`` on the same ``loss``.
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


def curvature_along(loss, params, direction):
    grads = torch.autograd.grad(loss, params, create_graph=True)  # error: [double-backward]
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
    for step in range(steps):
        optimizer.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        direction = [-p.grad.clone() for p in params]
        curvature = curvature_along(loss, params, direction)
        optimizer.step()
        print(f"step {step} loss {loss.item():.4f} curvature {curvature:.4f}")


if __name__ == "__main__":
    main()
