"""Meta-SGD on few-shot regression tasks where every outer iteration adapts from the
meta-learned initial weights themselves, so no inner-loop graph outlives its outer
iteration (the structure the thread of
https://github.com/facebookresearch/higher/issues/32 converged on: each outer step
starts the differentiable inner loop afresh from the meta-parameters).
"""

import torch
import torch.nn.functional as F


def init_weights():
    w1 = (torch.randn(16, 1) * 0.5).requires_grad_()
    w2 = (torch.randn(1, 16) * 0.5).requires_grad_()
    return [w1, torch.zeros(16, requires_grad=True), w2, torch.zeros(1, requires_grad=True)]


def forward(weights, x):
    w1, b1, w2, b2 = weights
    return F.linear(torch.tanh(F.linear(x, w1, b1)), w2, b2)


def sample_task(k=10):
    slope, bias = torch.randn(2)
    xs = torch.rand(2 * k, 1) * 4 - 2
    ys = slope * xs + bias
    return (xs[:k], ys[:k]), (xs[k:], ys[k:])


def adapt(weights, log_lrs, support, steps=2):
    for _ in range(steps):
        loss = F.mse_loss(forward(weights, support[0]), support[1])
        grads = torch.autograd.grad(loss, weights, create_graph=True)
        weights = [w - lr.exp() * g for w, lr, g in zip(weights, log_lrs, grads)]
    return weights


def main(outer_steps=3, tasks_per_batch=4):
    torch.manual_seed(0)
    init = init_weights()
    log_lrs = [torch.full_like(w, -3.0).requires_grad_() for w in init]
    meta_opt = torch.optim.Adam(init + log_lrs, lr=1e-2)
    history = []
    for outer in range(outer_steps):
        meta_opt.zero_grad()
        meta_loss = 0.0
        for _ in range(tasks_per_batch):
            support, query = sample_task()
            adapted = adapt(init, log_lrs, support)
            meta_loss = meta_loss + F.mse_loss(forward(adapted, query[0]), query[1])
        meta_loss = meta_loss / tasks_per_batch
        meta_loss.backward()
        assert all(lr.grad.abs().sum() > 0 for lr in log_lrs)
        meta_opt.step()
        history.append(meta_loss.item())
        print(f"outer {outer} meta loss {meta_loss.item():.4f}")


if __name__ == "__main__":
    main()
