"""Largest Hessian eigenvalue of a small classifier's loss by power iteration with
Rayleigh quotients, as the poster of the thread below computes it.

Report: https://discuss.pytorch.org/t/hessian-vector-product/179361 -- the gradient of
the loss is taken once with create_graph=True and every power-iteration step multiplies
the Hessian with the current vector by differentiating that same gradient again, passing
retain_graph=True each time. The graph of the gradient is needed by every step, so the
retain is what keeps the loop working (a negative for the retain rule: the graph is not
rebuilt on each iteration). The thread's question was about sign and convergence; the
vector here starts from randn and the result is checked against torch.func.hessian.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


def estimate_hessian_eigenvalue(loss, params, tol=1e-5, max_iter=100):
    grad_params = torch.autograd.grad(loss, params, create_graph=True)
    grad_params = torch.cat([g.flatten() for g in grad_params])
    v = torch.randn(grad_params.numel())
    v = v / v.norm()
    eigenvalue, last = None, None
    for _ in range(max_iter):
        hv = torch.autograd.grad(grad_params, params, v, retain_graph=True)
        hv = torch.cat([h.flatten() for h in hv])
        eigenvalue = torch.dot(v, hv).item()
        if last is not None and abs(eigenvalue - last) < tol:
            break
        last = eigenvalue
        v = hv / hv.norm()
    return eigenvalue


def main():
    torch.manual_seed(0)
    x, y = torch.randn(64, 3), torch.randint(2, (64,))
    model = nn.Linear(3, 2)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
    for _ in range(20):
        loss = F.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    params = list(model.parameters())
    top = estimate_hessian_eigenvalue(F.cross_entropy(model(x), y), params)

    def loss_of(flat):
        w, b = flat[:6].view(2, 3), flat[6:]
        return F.cross_entropy(F.linear(x, w, b), y)

    flat = torch.cat([p.detach().flatten() for p in params])
    exact = torch.linalg.eigvalsh(torch.func.hessian(loss_of)(flat)).abs().max().item()
    assert abs(abs(top) - exact) < 1e-2 * max(1.0, exact), (top, exact)
    print(f"power iteration {top:.5f}, exact {exact:.5f}")


if __name__ == "__main__":
    main()
