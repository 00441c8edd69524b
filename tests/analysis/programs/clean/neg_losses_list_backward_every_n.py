"""Gradient accumulation written with a list: each micro-batch's loss is appended and
every ``accumulate``-th iteration their sum is backwarded and the list emptied, so no
loss is ever backwarded twice (negative for issue 13, mechanism 3: the path that empties
the list must not be merged with the one that does not).
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


def micro_batches(n, batch=8, distinct=3):
    gen = torch.Generator().manual_seed(3)
    fixed = [torch.randn(batch, 6, generator=gen) for _ in range(distinct)]
    for i in range(n):
        x = fixed[i % distinct]
        yield x, x[:, :2].sum(1, keepdim=True)


def main(accumulate=3):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 1))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    pending = []
    history = []
    for i, (x, y) in enumerate(micro_batches(12)):
        pending.append(F.mse_loss(model(x), y) / accumulate)
        if (i + 1) % accumulate == 0:
            total = sum(pending)
            optimizer.zero_grad()
            total.backward()
            optimizer.step()
            pending = []
            history.append(total.item())
            print(f"update {len(history)} loss {total.item():.4f}")
    assert history[-1] < history[0]


if __name__ == "__main__":
    main()
