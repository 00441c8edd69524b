"""Deep mutual learning: both peers' outputs come from one forward pass per step, and an inner loop
steps each peer's optimizer in turn on a loss that also reads the other peer's output (written from
https://github.com/chxy95/Deep-Mutual-Learning/issues/5). The first peer's backward runs back into
the second peer's graph too and frees it; the second peer's backward then finds it freed."""

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
peers = [nn.Linear(4, 3), nn.Linear(4, 3)]
optimizers = [torch.optim.SGD(peer.parameters(), lr=0.1) for peer in peers]
for step in range(3):
    x = torch.randn(8, 4)
    outputs = [peer(x) for peer in peers]
    for i in range(2):
        loss = F.mse_loss(outputs[i], outputs[1 - i])
        optimizers[i].zero_grad()
        loss.backward()
        optimizers[i].step()
