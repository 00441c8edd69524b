"""A truncated-Newton step for logistic regression: conjugate gradient solves H d = -g
with Hessian-vector products from ``torch.autograd.functional.hvp``, which runs its own
forward and double backward on every call, so no graph is shared between the CG
iterations; the gradient comes from a separate ``autograd.grad`` on a fresh loss.
"""

import torch
import torch.nn.functional as F


def make_data(n=80, d=5):
    gen = torch.Generator().manual_seed(0)
    x = torch.randn(n, d, generator=gen)
    w_true = torch.randn(d, generator=gen)
    y = (x @ w_true + 0.3 * torch.randn(n, generator=gen) > 0).float()
    return x, y


def objective(w, x, y, l2=1e-2):
    return F.binary_cross_entropy_with_logits(x @ w, y) + l2 * w.pow(2).sum()


def conjugate_gradient(hvp_fn, b, iters=6, tol=1e-8):
    d = torch.zeros_like(b)
    r = b.clone()
    p = r.clone()
    rs = r.dot(r)
    for _ in range(iters):
        hp = hvp_fn(p)
        alpha = rs / p.dot(hp)
        d = d + alpha * p
        r = r - alpha * hp
        new_rs = r.dot(r)
        if new_rs < tol:
            break
        p = r + (new_rs / rs) * p
        rs = new_rs
    return d


def main(newton_steps=4):
    x, y = make_data()
    w = torch.zeros(x.size(1))
    history = []
    for step in range(newton_steps):
        w_req = w.clone().requires_grad_()
        loss = objective(w_req, x, y)
        (grad,) = torch.autograd.grad(loss, w_req)

        def hvp_fn(v, w=w):
            return torch.autograd.functional.hvp(lambda ww: objective(ww, x, y), w, v)[1]

        w = w + conjugate_gradient(hvp_fn, -grad)
        history.append(loss.item())
        print(f"newton step {step} loss {loss.item():.5f} |grad| {grad.norm().item():.2e}")
    assert history[-1] < history[0]


if __name__ == "__main__":
    main()
