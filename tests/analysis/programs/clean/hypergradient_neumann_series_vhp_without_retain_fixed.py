"""Gradient-based tuning of a weight-decay hyperparameter with the implicit function
theorem: the inverse Hessian of the training loss is approximated by a truncated Neumann
series of vector-Hessian products (Lorraine et al., 2020).

Twin of buggy/hypergradient_neumann_series_vhp_without_retain.py, fixed by keeping the
graph: every vector-Hessian product through dlt_dw passes retain_graph=True, since the
next term and the mixed partial go through the same graph again.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import grad


def losses(model, log_lambda, train, val):
    weights = list(model.parameters())
    penalty = log_lambda.exp() * sum((w * w).sum() for w in weights)
    train_loss = F.mse_loss(model(train[0]), train[1]) + penalty
    val_loss = F.mse_loss(model(val[0]), val[1])
    return weights, train_loss, val_loss


def hypergradient(model, log_lambda, train, val, terms=5, alpha=0.1):
    w, train_loss, val_loss = losses(model, log_lambda, train, val)
    dlv_dw = grad(val_loss, w)
    dlt_dw = grad(train_loss, w, create_graph=True)
    v = [g.clone() for g in dlv_dw]
    p = [g.clone() for g in dlv_dw]
    for _ in range(terms):
        hv = grad(dlt_dw, w, grad_outputs=v, retain_graph=True)
        v = [vi - alpha * h for vi, h in zip(v, hv)]
        p = [pi + vi for pi, vi in zip(p, v)]
    mixed = grad(dlt_dw, log_lambda, grad_outputs=[alpha * pi for pi in p])[0]
    return -mixed


def main(outer_steps=3, inner_steps=20):
    torch.manual_seed(123)
    x = torch.randn(200, 1)
    y = 2 * x + 1 + 0.1 * torch.randn(200, 1)
    train, val = (x[:100], y[:100]), (x[100:], y[100:])
    model = nn.Sequential(nn.Linear(1, 8), nn.ReLU(), nn.Linear(8, 1))
    log_lambda = torch.tensor(-3.0, requires_grad=True)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    hyper_opt = torch.optim.Adam([log_lambda], lr=0.05)
    for outer in range(outer_steps):
        for _ in range(inner_steps):
            _, train_loss, _ = losses(model, log_lambda.detach(), train, val)
            opt.zero_grad()
            train_loss.backward()
            opt.step()
        hyper_opt.zero_grad()
        log_lambda.grad = hypergradient(model, log_lambda, train, val)
        assert log_lambda.grad is not None and torch.isfinite(log_lambda.grad)
        hyper_opt.step()
        print(f"outer {outer}: train loss {train_loss.item():.4f} lambda {log_lambda.exp().item():.5f}")


if __name__ == "__main__":
    main()
