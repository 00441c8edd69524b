"""Gradient saliency for a trained policy's chosen actions, through a small attribution
wrapper whose own `backward(ids=...)` method computes input gradients (issue 13,
mechanism 4: `saliency.backward(ids=...)` is not Tensor.backward). Each call runs a
fresh forward, so the wrapper's single backward per call never meets a freed graph.
"""

import torch
import torch.nn as nn


class InputSaliency:
    def __init__(self, model):
        self.model = model
        self.inputs = None
        self.logits = None

    def forward(self, obs):
        self.inputs = obs.clone().requires_grad_(True)
        self.logits = self.model(self.inputs)
        return self.logits.argmax(-1)

    def backward(self, ids):
        score = self.logits.gather(1, ids.unsqueeze(1)).sum()
        self.model.zero_grad()
        score.backward()
        return self.inputs.grad.abs()


def train_policy(policy, steps=40):
    optimizer = torch.optim.Adam(policy.parameters(), lr=1e-2)
    for _ in range(steps):
        obs = torch.randn(32, 6)
        target = (obs[:, 0] > obs[:, 1]).long()
        loss = nn.functional.cross_entropy(policy(obs), target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return loss.item()


def main():
    torch.manual_seed(0)
    policy = nn.Sequential(nn.Linear(6, 32), nn.ReLU(), nn.Linear(32, 2))
    print("final loss", round(train_policy(policy), 4))
    saliency = InputSaliency(policy)
    maps = []
    for _ in range(3):
        actions = saliency.forward(torch.randn(16, 6))
        maps.append(saliency.backward(ids=actions).mean(0))
    mean_map = torch.stack(maps).mean(0)
    assert mean_map[:2].sum() > mean_map[2:].sum() / 2
    print("saliency per feature", [round(v, 3) for v in mean_map.tolist()])


if __name__ == "__main__":
    main()
