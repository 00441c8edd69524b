"""Actor-critic with a shared feature network, written against a small in-file
optimisation wrapper in the style of RL frameworks: `Approximation.step(loss,
retain_graph=...)` zeroes, backwards and steps (issue 13, mechanism 5).

The policy head's update passes retain_graph=True because the value loss that follows
backwards through the same feature graph; only the critic's approximation owns the
feature parameters, so the first step changes nothing the second backward reads.
Removing that retain_graph would make the second step raise.
"""

import torch
import torch.nn as nn
from torch.distributions import Categorical

OBS, ACTIONS, BATCH = 5, 3, 32


class Approximation:
    def __init__(self, params, lr):
        self.optimizer = torch.optim.Adam(params, lr=lr)

    def step(self, loss, retain_graph=False):
        self.optimizer.zero_grad()
        loss.backward(retain_graph=retain_graph)
        self.optimizer.step()
        return loss.item()


def main(updates=4):
    torch.manual_seed(0)
    features = nn.Sequential(nn.Linear(OBS, 32), nn.ReLU())
    policy_head, value_head = nn.Linear(32, ACTIONS), nn.Linear(32, 1)
    policy = Approximation(policy_head.parameters(), lr=3e-3)
    critic = Approximation([*features.parameters(), *value_head.parameters()], lr=3e-3)
    for update in range(updates):
        obs = torch.randn(BATCH, OBS)
        h = features(obs)
        dist = Categorical(logits=policy_head(h))
        action = dist.sample()
        reward = (action == obs[:, :ACTIONS].argmax(-1)).float()
        value = value_head(h).squeeze(-1)
        advantage = (reward - value).detach()
        policy_loss = -(dist.log_prob(action) * advantage).mean()
        value_loss = (value - reward).pow(2).mean()
        p = policy.step(policy_loss, retain_graph=True)
        v = critic.step(value_loss)
        print(update, round(p, 4), round(v, 4))


if __name__ == "__main__":
    main()
