"""Logistic regression trained with a hand-written SGD loop over torch.autograd.grad.

Each step recomputes the loss; retain_graph=True on autograd.grad keeps every
step's graph alive for nothing.

Real report of this mechanism: https://github.com/EagleW/Writing-editing-Network/issues/3
A backward in the training loop passes retain_graph=True although every iteration builds its
graph again; removing it made no difference to training.
"""

import torch


def logistic_loss(w, b, x, y, l2=1e-3):
    logits = x @ w + b
    return torch.nn.functional.binary_cross_entropy_with_logits(logits, y) + l2 * w.pow(2).sum()


def fit(x, y, steps=4, lr=0.5):
    w = torch.zeros(x.shape[1], requires_grad=True)
    b = torch.zeros((), requires_grad=True)
    history = []
    step = 0
    while step < steps:
        loss = logistic_loss(w, b, x, y)
        gw, gb = torch.autograd.grad(loss, (w, b), retain_graph=True)  # error: [retain-graph-in-loop]
        with torch.no_grad():
            w -= lr * gw
            b -= lr * gb
        history.append(loss.item())
        step += 1
    return w.detach(), b.detach(), history


def main():
    torch.manual_seed(0)
    x = torch.randn(40, 3)
    true_w = torch.tensor([1.5, -2.0, 0.5])
    y = (x @ true_w + 0.1 * torch.randn(40) > 0).float()
    w, b, history = fit(x, y)
    acc = ((x @ w + b > 0).float() == y).float().mean()
    print("loss history", [round(h, 4) for h in history], "acc", acc.item())


if __name__ == "__main__":
    main()
