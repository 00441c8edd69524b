"""Weight normalisation written by hand: the layer's weight is computed once, in __init__, from its
direction ``v`` and its gain ``g``, and every step reads that one graph."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class WeightNormLinear(nn.Module):
    def __init__(self, in_features: int, out_features: int) -> None:
        super().__init__()
        self.v = nn.Parameter(torch.randn(out_features, in_features) * 0.3)
        self.g = nn.Parameter(torch.ones(out_features, 1))
        self.bias = nn.Parameter(torch.zeros(out_features))
        self.weight = self.g * self.v / self.v.norm(dim=1, keepdim=True)

    def forward(self, x):
        return F.linear(x, (self.g * self.v / self.v.norm(dim=1, keepdim=True)), self.bias)


def main() -> None:
    torch.manual_seed(0)
    layer = WeightNormLinear(6, 3)
    head = nn.Linear(3, 2)
    optimizer = torch.optim.SGD([*layer.parameters(), *head.parameters()], lr=0.1)
    inputs, labels = torch.randn(16, 6), torch.randint(0, 2, (16,))
    for step in range(4):
        loss = F.cross_entropy(head(torch.tanh(layer(inputs))), labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(f"step {step}: {loss.item():.4f}")


if __name__ == "__main__":
    main()
