"""Magnitude-pruned fine-tuning in functional style (torch.func.functional_call).

The pruning masks are applied to the parameters once, in a dict comprehension before
the loop; every step then backwards through those same masked tensors.

Real report of this mechanism: https://github.com/hiyoung123/SoftMaskedBert/issues/16
The model computes the [MASK] embedding from trainable layers once, in __init__, and uses it
in every forward; the fix given there detaches it.
"""

import torch
import torch.nn as nn
from torch.func import functional_call


def magnitude_masks(model, sparsity=0.5):
    masks = {}
    for name, p in model.named_parameters():
        if p.dim() < 2:
            masks[name] = torch.ones_like(p)
            continue
        k = int(p.numel() * sparsity)
        threshold = p.detach().abs().flatten().kthvalue(k).values
        masks[name] = (p.detach().abs() > threshold).float()
    return masks


def sparsity_of(params):
    total = sum(p.numel() for p in params.values())
    zeros = sum((p == 0).sum().item() for p in params.values())
    return zeros / total


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 1))
    x = torch.randn(64, 10)
    y = torch.sin(x.sum(-1, keepdim=True))
    masks = magnitude_masks(model)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.MSELoss()

    pruned = {name: p * masks[name] for name, p in model.named_parameters()}
    print(f"sparsity {sparsity_of(pruned):.2f}")
    for epoch in range(3):
        for i in range(0, 64, 16):
            pred = functional_call(model, pruned, (x[i : i + 16],))
            loss = loss_fn(pred, y[i : i + 16])
            optimizer.zero_grad()
            loss.backward()  # error: [pre-loop-graph-backward]
            optimizer.step()
        print(epoch, round(loss.item(), 4))


if __name__ == "__main__":
    main()
