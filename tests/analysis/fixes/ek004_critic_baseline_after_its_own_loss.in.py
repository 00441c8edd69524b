"""A sentence picker trained by REINFORCE with a learned baseline: the critic's own loss is
backwarded first, then the picks' policy losses, which subtract that same baseline."""

import torch
from torch import nn
from torch.distributions import Categorical

torch.manual_seed(0)
scorer = nn.Linear(6, 1)
critic = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 1))
optimizer = torch.optim.Adam([*scorer.parameters(), *critic.parameters()], lr=1e-2)
for step in range(3):
    sentences = torch.randn(5, 6)
    dist = Categorical(logits=scorer(sentences).squeeze(-1))
    picks = [dist.sample() for _ in range(2)]
    reward = sum(float(sentences[p, 0] > 0) for p in picks) / 2
    baseline = critic(sentences.mean(0)).squeeze()
    optimizer.zero_grad()
    (baseline - reward).pow(2).backward()
    losses = [-dist.log_prob(p) * (reward - baseline) for p in picks]
    torch.stack(losses).sum().backward()
    optimizer.step()
    print(f"step {step}: reward {reward:.2f}")
