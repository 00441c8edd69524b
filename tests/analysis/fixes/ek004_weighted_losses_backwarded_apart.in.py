"""Two heads on one trunk, each loss weighted and backwarded on its own."""

import torch
from torch import nn
from torch.nn import functional as F

torch.manual_seed(0)
trunk = nn.Sequential(nn.Linear(10, 16), nn.Tanh())
classify = nn.Linear(16, 3)
regress = nn.Linear(16, 1)
params = [*trunk.parameters(), *classify.parameters(), *regress.parameters()]
opt = torch.optim.SGD(params, lr=0.1, momentum=0.9)
x, labels, values = torch.randn(24, 10), torch.randint(0, 3, (24,)), torch.randn(24, 1)
alpha = 0.6
for step in range(4):
    opt.zero_grad()
    features = trunk(x)
    ce = F.cross_entropy(classify(features), labels)
    mse = F.mse_loss(regress(features), values)
    penalty = classify.weight.pow(2).sum()
    (alpha * ce + 1e-3 * penalty).backward()
    ((1 - alpha) * mse).backward()
    opt.step()
    print(f"step {step}: ce {ce.item():.4f} mse {mse.item():.4f}")
