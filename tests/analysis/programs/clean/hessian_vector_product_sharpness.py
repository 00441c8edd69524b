"""Training with a periodic sharpness probe: the top Hessian eigenvalue of the loss is estimated by
power iteration on Hessian-vector products (double backward with create_graph=True) on a separate
forward pass; the training step itself is ordinary.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


def hvp(loss_fn, params, vec):
    loss = loss_fn()
    grads = torch.autograd.grad(loss, params, create_graph=True)
    dot = sum((g * v).sum() for g, v in zip(grads, vec))
    return torch.autograd.grad(dot, params)


def top_eigenvalue(loss_fn, params, iters=3):
    vec = [torch.randn_like(p) for p in params]
    eig = 0.0
    for _ in range(iters):
        norm = torch.sqrt(sum((v * v).sum() for v in vec))
        vec = [v / norm for v in vec]
        hv = hvp(loss_fn, params, vec)
        eig = sum((h * v).sum() for h, v in zip(hv, vec)).item()
        vec = [h.detach() for h in hv]
    return eig


def main(steps=4, probe_every=2):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(5, 12), nn.Tanh(), nn.Linear(12, 3))
    params = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.SGD(params, lr=0.1)
    x_probe, y_probe = torch.randn(16, 5), torch.randint(0, 3, (16,))

    for step in range(steps):
        x, y = torch.randn(8, 5), torch.randint(0, 3, (8,))
        loss = F.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step % probe_every == 0:
            lam = top_eigenvalue(lambda: F.cross_entropy(model(x_probe), y_probe), params)
            print(f"step {step}: loss {loss.item():.4f} sharpness {lam:.4f}")


if __name__ == "__main__":
    main()
