"""Reinforcement learning for an extractive summariser: a pointer-like extractor picks
sentences from a document (REINFORCE, reward = overlap with the reference), with a
critic baseline; the critic loss is backwarded first, then the extractor's losses.

Twin of buggy/rl_extractive_summarizer_critic_baseline_in_policy_loss.py, fixed as the
report does: the advantage enters the policy loss as a number, `(reward - baseline).item()`,
so the policy losses train only the extractor and the critic learns from its own loss.
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
        advantage = (reward - baseline).item()
        losses = [-dist.log_prob(action) * advantage for dist, action in picks]
        torch.stack(losses).sum().backward()
        assert critic[0].weight.grad.abs().sum() > 0
        optimizer.step()
        print(step, reward)


if __name__ == "__main__":
    main()
