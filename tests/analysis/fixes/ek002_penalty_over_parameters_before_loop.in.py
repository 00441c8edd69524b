"""An explicit L2 penalty over the model's weights, computed once before the training loop."""

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 3))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
penalty = sum(p.pow(2).sum() for name, p in model.named_parameters() if "weight" in name)
for step in range(3):
    x, y = torch.randn(16, 6), torch.randint(0, 3, (16,))
    loss = F.cross_entropy(model(x), y) + 1e-3 * penalty
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(f"step {step}: loss {loss.item():.4f}")
