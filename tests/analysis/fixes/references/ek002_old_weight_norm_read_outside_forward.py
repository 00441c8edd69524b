"""Weight normalisation written by hand for the probe, as both forms of torch's weight norm define
it: the weight is ``g * v / ||v||`` (one norm per output row), computed from the current ``g`` and
``v`` at every step; ``g`` and ``v`` start from the linear layer's own initial weight."""

import torch
import torch.nn.functional as F
from torch import nn


class Probe(nn.Module):
    def __init__(self, in_features: int, out_features: int) -> None:
        super().__init__()
        layer = nn.Linear(in_features, out_features)
        self.bias = nn.Parameter(layer.bias.detach().clone())
        self.g = nn.Parameter(torch.linalg.vector_norm(layer.weight, dim=1, keepdim=True).detach())
        self.v = nn.Parameter(layer.weight.detach().clone())

    def weight(self) -> torch.Tensor:
        return self.g * (self.v / torch.linalg.vector_norm(self.v, dim=1, keepdim=True))


def main() -> None:
    torch.manual_seed(0)
    probe = Probe(8, 3)
    optimizer = torch.optim.SGD(probe.parameters(), lr=0.1)
    features, labels = torch.randn(32, 8), torch.randint(0, 3, (32,))
    for step in range(4):
        logits = F.linear(features, probe.weight(), probe.bias)
        loss = F.cross_entropy(logits, labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(f"step {step}: {loss.item():.4f}")


if __name__ == "__main__":
    main()
