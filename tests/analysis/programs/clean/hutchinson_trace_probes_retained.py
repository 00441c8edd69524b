"""Curvature logging by Hutchinson's estimator: the trace of the loss Hessian is the mean
of v^T H v over Rademacher probes v. The gradient is taken once with
``create_graph=True`` and each probe's Hessian-vector product passes
``retain_graph=True``, so the graph of the gradient serves every probe; the training
step itself runs a forward of its own afterwards.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


def hessian_trace(model, x, y, probes=4):
    params = [p for p in model.parameters() if p.requires_grad]
    loss = F.cross_entropy(model(x), y)
    grads = torch.autograd.grad(loss, params, create_graph=True)
    estimates = []
    for _ in range(probes):
        vs = [torch.randint_like(p, 2) * 2 - 1 for p in params]
        hvs = torch.autograd.grad(grads, params, grad_outputs=vs, retain_graph=True)
        estimates.append(sum((hv * v).sum() for hv, v in zip(hvs, vs)).item())
    return sum(estimates) / len(estimates)


def main(steps=6):
    torch.manual_seed(0)
    x = torch.randn(48, 6)
    y = (x[:, 0] - x[:, 2] > 0).long()
    model = nn.Sequential(nn.Linear(6, 24), nn.Tanh(), nn.Linear(24, 2))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.2)
    history = []
    for step in range(steps):
        if step % 2 == 0:
            print(f"step {step} hessian trace ~ {hessian_trace(model, x, y):.3f}")
        loss = F.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        history.append(loss.item())
    assert history[-1] < history[0]


if __name__ == "__main__":
    main()
