"""A linear probe on fixed features, weight-normalised with the old ``nn.utils.weight_norm`` and run
through a hand-written functional forward (facebookresearch/higher#14): ``F.linear`` reads
``probe.weight``, which the old weight norm computed once, when it was applied, and recomputes only
before a forward pass of the layer. The first backward frees that graph; the second step raises."""

import torch
import torch.nn.functional as F
from torch import nn


def main() -> None:
    torch.manual_seed(0)
    probe = nn.utils.parametrizations.weight_norm(nn.Linear(8, 3))
    optimizer = torch.optim.SGD(probe.parameters(), lr=0.1)
    features, labels = torch.randn(32, 8), torch.randint(0, 3, (32,))
    for step in range(4):
        logits = F.linear(features, probe.weight, probe.bias)
        loss = F.cross_entropy(logits, labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(f"step {step}: {loss.item():.4f}")


if __name__ == "__main__":
    main()
