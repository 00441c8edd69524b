"""Logistic regression trained by hand, written correctly: each step clears the gradient, computes
the loss at the current weights and descends along its gradient."""

import torch
import torch.nn.functional as F


def main() -> None:
    torch.manual_seed(0)
    inputs = torch.randn(32, 5)
    labels = (inputs[:, 0] - inputs[:, 1] > 0).float()
    w = torch.zeros(5, requires_grad=True)
    for step in range(5):
        w.grad = None
        loss = F.binary_cross_entropy_with_logits(inputs @ w, labels)
        loss.backward()
        with torch.no_grad():
            w -= 0.5 * w.grad
        print(f"step {step}: {loss.item():.4f}")


if __name__ == "__main__":
    main()
