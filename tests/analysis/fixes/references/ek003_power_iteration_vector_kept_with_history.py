"""A regression head whose weight is penalised by its largest singular value, estimated by one
power-iteration step per forward whose singular vectors are constants (computed without autograd,
as ``torch.nn.utils.spectral_norm`` does): the penalty's gradient is ``u v^T``."""

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
        w = self.weight.detach()
        u = F.normalize(w @ self.v, dim=0)
        self.v = F.normalize(w.t() @ u, dim=0)
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
