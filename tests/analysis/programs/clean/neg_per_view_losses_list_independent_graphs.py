"""Multi-view training where each augmented view gets its own forward and its own loss,
collected in a list; each list item is backwarded once and the items share no saved
tensors, so one item's backward does not free another's graph (negative for issue 13,
mechanism 3: a list's items are not one graph).
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


def augment(x, k):
    gen = torch.Generator().manual_seed(k)
    return x + 0.1 * torch.randn(x.shape, generator=gen)


def main(steps=3, views=3):
    torch.manual_seed(0)
    x = torch.randn(32, 10)
    y = (x[:, 0] > 0).long()
    model = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 2))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    history = []
    for step in range(steps):
        optimizer.zero_grad()
        view_losses = []
        for k in range(views):
            logits = model(augment(x, step * views + k))
            view_losses.append(F.cross_entropy(logits, y) / views)
        for view_loss in view_losses:
            view_loss.backward()
        optimizer.step()
        history.append(sum(v.item() for v in view_losses))
        print(f"step {step} loss {history[-1]:.4f}")
    assert history[-1] < history[0]
    assert all(p.grad is not None for p in model.parameters())


if __name__ == "__main__":
    main()
