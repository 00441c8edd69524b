"""Logistic regression trained by hand: the loss is computed once, before the loop, and each step
clears the weight's gradient with ``w.grad = None`` before the backward."""

import torch


def main() -> None:
    torch.manual_seed(0)
    inputs = torch.randn(32, 5)
    labels = (inputs[:, 0] - inputs[:, 1] > 0).float()
    w = torch.zeros(5, requires_grad=True)
    logits = inputs @ w
    loss = torch.nn.functional.binary_cross_entropy_with_logits(logits, labels)
    for step in range(5):
        w.grad = None
        loss.backward()
        with torch.no_grad():
            w -= 0.5 * w.grad
        print(f"step {step}: {loss.item():.4f}")


if __name__ == "__main__":
    main()
