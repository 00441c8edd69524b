"""Deep mutual learning: both peers' outputs come from one forward pass per step, and an inner loop
steps each peer's optimizer in turn on a loss that also reads the other peer's output. Recomputed
inside the inner loop, the second peer would learn from the first peer's stepped output, an update
the program, which made both outputs once, does not mean; which item of the list is the other
peer's, to detach only it, is not shown: no fix is offered."""

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
        loss.backward()  # error: [pre-loop-graph-backward]
        optimizers[i].step()
