"""PPO on a toy bandit-like environment with a rollout buffer.

The rollout is collected without ``torch.no_grad()``, so the stored "old" log-probs
carry the policy's graph; the first PPO epoch frees it, the second raises.

Real report of this mechanism: https://github.com/hijkzzz/pymarl2/issues/46
MAPPO advantages computed outside the mini_epochs loop keep their graph, so with mini_epochs
> 1 the second epoch's backward raises.
"""

import torch
import torch.nn as nn
from torch.distributions import Categorical


class RolloutBuffer:
    def __init__(self):
        self.obs, self.actions, self.log_probs, self.rewards = [], [], [], []

    def add(self, obs, action, log_prob, reward):
        self.obs.append(obs)
        self.actions.append(action)
        self.log_probs.append(log_prob)
        self.rewards.append(reward)

    def tensors(self):
        return (
            torch.stack(self.obs),
            torch.stack(self.actions),
            torch.stack(self.log_probs),
            torch.tensor(self.rewards),
        )


class Policy(nn.Module):
    def __init__(self, obs_dim=4, n_actions=3):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(obs_dim, 32), nn.Tanh(), nn.Linear(32, n_actions))

    def dist(self, obs):
        return Categorical(logits=self.net(obs))


def env_step(obs, action):
    best = obs[:3].argmax()
    return 1.0 if action.item() == best.item() else 0.0


def collect(policy, n_steps, g):
    buffer = RolloutBuffer()
    for _ in range(n_steps):
        obs = torch.randn(4, generator=g)
        dist = policy.dist(obs)
        action = dist.sample()
        buffer.add(obs, action, dist.log_prob(action), env_step(obs, action))
    return buffer


def ppo_update(policy, optimizer, buffer, epochs=4, clip=0.2):
    obs, actions, old_log_probs, rewards = buffer.tensors()
    advantages = (rewards - rewards.mean()) / (rewards.std() + 1e-8)
    for _ in range(epochs):
        dist = policy.dist(obs)
        ratio = torch.exp(dist.log_prob(actions) - old_log_probs)
        surrogate = torch.min(ratio * advantages, torch.clamp(ratio, 1 - clip, 1 + clip) * advantages)
        loss = -surrogate.mean() - 0.01 * dist.entropy().mean()
        optimizer.zero_grad()
        loss.backward()  # error: [pre-loop-graph-backward]
        optimizer.step()
    return loss.item()


if __name__ == "__main__":
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(0)
    policy = Policy()
    optimizer = torch.optim.Adam(policy.parameters(), lr=3e-3)
    for iteration in range(3):
        buffer = collect(policy, 32, g)
        print(iteration, sum(buffer.rewards) / 32, ppo_update(policy, optimizer, buffer))
