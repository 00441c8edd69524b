"""Sharpness monitoring: the top Hessian eigenvalue of the training loss by power
iteration, every few steps of training a small regression MLP.

Report: https://github.com/tristandeleu/pytorch-maml-rl/pull/13 -- hoisting the
``create_graph=True`` gradient out of the conjugate-gradient loop made the
Hessian-vector product reuse it on every iteration; the author explains the inner
``autograd.grad`` must then pass ``retain_graph=True`` or the second product finds the
graph freed.

Here the gradient is taken once with ``create_graph=True`` and each power-iteration
step differentiates it again without ``retain_graph``.
"""

import torch
import torch.nn as nn


def top_eigenvalue(model, x, y, iters=5):
    params = [p for p in model.parameters() if p.requires_grad]
    loss = nn.functional.mse_loss(model(x), y)
    grads = torch.autograd.grad(loss, params, create_graph=True)
    vec = [torch.randn_like(p) for p in params]
    norm = torch.sqrt(sum((v * v).sum() for v in vec))
    vec = [v / norm for v in vec]
    eig = 0.0
    for _ in range(iters):
        hv = torch.autograd.grad(grads, params, grad_outputs=vec)  # error: [pre-loop-graph-backward]
        eig = sum((h * v).sum() for h, v in zip(hv, vec)).item()
        norm = torch.sqrt(sum((h * h).sum() for h in hv))
        vec = [h / (norm + 1e-12) for h in hv]
    return eig


def main(steps=6):
    torch.manual_seed(0)
    x = torch.randn(64, 4)
    y = (x[:, :1] * 2 - x[:, 1:2]).tanh()
    model = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for step in range(steps):
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        if step % 3 == 0:
            print(f"step {step} loss {loss.item():.4f} sharpness {top_eigenvalue(model, x, y):.4f}")


if __name__ == "__main__":
    main()
