"""Reinforcement learning for an extractive summariser: a pointer-like extractor picks
sentences from a document (REINFORCE, reward = overlap with the reference), with a
critic baseline; the critic loss is backwarded first, then the extractor's losses.

Report: https://github.com/ChenRocks/fast_abs_rl/issues/49 -- in the RL training step
the baseline `b` was a tensor with gradient enabled inside the policy loss,
`-p.log_prob(action) * (r - b)`; the reporter changed `r - b` to `(r - b).item()`.
With the critic updated by its own backward first, the policy losses reach back into
the critic graph that backward already freed.
"""

import torch
import torch.nn as nn
from torch.distributions import Categorical

SENTS, DIM, PICKS = 8, 12, 3


class Extractor(nn.Module):
    def __init__(self):
        super().__init__()
        self.encode = nn.Linear(DIM, 32)
        self.score = nn.Linear(32, 1)

    def forward(self, doc):
        return self.score(torch.tanh(self.encode(doc))).squeeze(-1)


def document(g):
    doc = torch.randn(SENTS, DIM, generator=g)
    salient = torch.randperm(SENTS, generator=g)[:PICKS]
    return doc + 0.5 * torch.isin(torch.arange(SENTS), salient).float().unsqueeze(-1), set(salient.tolist())


def main(steps=4):
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(0)
    extractor = Extractor()
    critic = nn.Sequential(nn.Linear(DIM, 16), nn.ReLU(), nn.Linear(16, 1))
    optimizer = torch.optim.Adam([*extractor.parameters(), *critic.parameters()], lr=1e-3)
    for step in range(steps):
        doc, reference = document(g)
        scores, mask, picks = extractor(doc), torch.zeros(SENTS, dtype=torch.bool), []
        for _ in range(PICKS):
            dist = Categorical(logits=scores.masked_fill(mask, float("-inf")))
            action = dist.sample()
            picks.append((dist, action))
            mask = mask.clone()
            mask[action] = True
        reward = len({a.item() for _, a in picks} & reference) / PICKS
        baseline = critic(doc.mean(0)).squeeze()
        optimizer.zero_grad()
        (baseline - reward).pow(2).backward()
        losses = [-dist.log_prob(action) * (reward - baseline) for dist, action in picks]
        torch.stack(losses).sum().backward()  # error: [shared-graph-backward]
        optimizer.step()
        print(step, reward)


if __name__ == "__main__":
    main()
