"""A regression head whose weight is penalised by its largest singular value, estimated by one
power-iteration step per forward with the right singular vector kept on the module between steps
(``torch.nn.utils.spectral_norm`` runs that step under ``no_grad``:
https://github.com/pytorch/pytorch/issues/10004); here it runs with grad on, so the kept vector
carries the previous step's graph."""

import torch
import torch.nn.functional as F
from torch import nn


class PenalisedLinear(nn.Module):
    def __init__(self, d_in, d_out):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(d_out, d_in) * 0.3)
        self.v = F.normalize(torch.randn(d_in), dim=0)
        self.sigma = torch.zeros(())

    def forward(self, x):
        u = F.normalize(self.weight @ self.v, dim=0)
        self.v = F.normalize(self.weight.t() @ u, dim=0)
        self.sigma = torch.dot(u, self.weight @ self.v)
        return x @ self.weight.t()


torch.manual_seed(0)
head = PenalisedLinear(6, 3)
optimizer = torch.optim.SGD(head.parameters(), lr=0.05)
x = torch.randn(32, 6)
y = torch.randn(32, 3)
for step in range(5):
    loss = F.mse_loss(head(x), y) + 0.1 * head.sigma
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(f"step {step}: loss {loss.item():.4f}")
