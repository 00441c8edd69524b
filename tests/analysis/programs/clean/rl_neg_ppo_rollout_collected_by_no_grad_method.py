"""PPO with value clipping whose rollout is collected by an agent method decorated with
@torch.no_grad(): the stored log-probabilities and values are plain tensors, reused as
constants by every epoch for the ratio and for the clipped value loss (issue 13,
mechanism 2: a helper's summary -- "no graph" -- decides, not where its result is used).
"""

import torch
import torch.nn as nn
from torch.distributions import Categorical

OBS, ACTIONS, T = 4, 3, 48


class Agent(nn.Module):
    def __init__(self):
        super().__init__()
        self.pi = nn.Sequential(nn.Linear(OBS, 32), nn.Tanh(), nn.Linear(32, ACTIONS))
        self.v = nn.Sequential(nn.Linear(OBS, 32), nn.Tanh(), nn.Linear(32, 1))

    @torch.no_grad()
    def collect(self, g):
        obs = torch.randn(T, OBS, generator=g)
        dist = Categorical(logits=self.pi(obs))
        actions = dist.sample()
        rewards = (actions == obs[:, :ACTIONS].argmax(-1)).float()
        return obs, actions, dist.log_prob(actions), self.v(obs).squeeze(-1), rewards


def main(iterations=3, epochs=4, clip=0.2):
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(0)
    agent = Agent()
    optimizer = torch.optim.Adam(agent.parameters(), lr=3e-3)
    for it in range(iterations):
        obs, actions, old_log_probs, old_values, rewards = agent.collect(g)
        advantages = rewards - old_values
        advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
        for _ in range(epochs):
            ratio = (Categorical(logits=agent.pi(obs)).log_prob(actions) - old_log_probs).exp()
            policy_loss = -torch.min(ratio * advantages, ratio.clamp(1 - clip, 1 + clip) * advantages).mean()
            values = agent.v(obs).squeeze(-1)
            clipped = old_values + (values - old_values).clamp(-clip, clip)
            value_loss = torch.max((values - rewards).pow(2), (clipped - rewards).pow(2)).mean()
            optimizer.zero_grad()
            (policy_loss + 0.5 * value_loss).backward()
            optimizer.step()
        print(it, round(rewards.mean().item(), 3), round(value_loss.item(), 4))


if __name__ == "__main__":
    main()
