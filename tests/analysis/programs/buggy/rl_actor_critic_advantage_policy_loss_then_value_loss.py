"""Episodic advantage actor-critic on a pole-balancing-like toy task: the policy loss is
weighted by the advantage (returns minus the critic's values), then the policy and value
losses are backwarded one after the other before one optimizer step.

Report: https://github.com/bentrevett/pytorch-rl/issues/2 -- the tutorial's policy loss
ignored the critic; the fix discussed there weights it by the critic's values, written
`values.detach()`. Using the values without .detach() while keeping the two backward
calls makes value_loss.backward() walk the critic graph that policy_loss.backward() has
just freed.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Categorical


class Balance:
    def __init__(self, seed=0):
        self.g = torch.Generator().manual_seed(seed)

    def reset(self):
        self.state = 0.1 * torch.randn(2, generator=self.g)
        return self.state.clone()

    def step(self, action):
        push = 0.1 if action == 1 else -0.1
        self.state = torch.stack([self.state[0] + self.state[1], 0.9 * self.state[1] + push])
        done = bool(self.state[0].abs() > 0.6)
        return self.state.clone(), 1.0, done


class ActorCritic(nn.Module):
    def __init__(self):
        super().__init__()
        self.actor = nn.Sequential(nn.Linear(2, 32), nn.ReLU(), nn.Linear(32, 2))
        self.critic = nn.Sequential(nn.Linear(2, 32), nn.ReLU(), nn.Linear(32, 1))


def main(episodes=4, gamma=0.99, max_steps=20):
    torch.manual_seed(0)
    env, model = Balance(), ActorCritic()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    for episode in range(episodes):
        state, log_probs, values, rewards = env.reset(), [], [], []
        for _ in range(max_steps):
            dist = Categorical(logits=model.actor(state))
            action = dist.sample()
            log_probs.append(dist.log_prob(action))
            values.append(model.critic(state).squeeze(-1))
            state, reward, done = env.step(action.item())
            rewards.append(reward)
            if done:
                break
        returns, g = [], 0.0
        for r in reversed(rewards):
            g = r + gamma * g
            returns.insert(0, g)
        returns, values = torch.tensor(returns), torch.stack(values)
        policy_loss = -((returns - values) * torch.stack(log_probs)).sum()
        value_loss = F.smooth_l1_loss(values, returns, reduction="sum")
        optimizer.zero_grad()
        policy_loss.backward()
        value_loss.backward()  # error: [shared-graph-backward]
        optimizer.step()
        print(episode, len(rewards), round(value_loss.item(), 3))


if __name__ == "__main__":
    main()
