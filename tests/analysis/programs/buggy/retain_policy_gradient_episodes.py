"""Vanilla policy gradient on a toy corridor; one update per episode.

The log-probabilities are recomputed and cleared every episode, yet the update
keeps retain_graph=True.

Real report of this mechanism: https://github.com/GBLin5566/toward-controlled-generation-of-text-pytorch/issues/9
After setting retain_graph=True on the backward calls, memory blew up; the reporter notes
only the backward before the last needs it.
"""

import random

import torch
import torch.nn as nn


class Corridor:
    def __init__(self, length=4):
        self.length = length

    def reset(self):
        self.pos = 0
        return self.obs()

    def obs(self):
        o = torch.zeros(self.length + 1)
        o[self.pos] = 1.0
        return o

    def step(self, action):
        self.pos = max(0, min(self.length, self.pos + (1 if action == 1 else -1)))
        done = self.pos == self.length
        return self.obs(), (1.0 if done else -0.1), done


class PolicyAgent:
    def __init__(self, obs_dim, n_actions=2, lr=1e-2, gamma=0.9):
        self.net = nn.Sequential(nn.Linear(obs_dim, 16), nn.ReLU(), nn.Linear(16, n_actions))
        self.opt = torch.optim.Adam(self.net.parameters(), lr=lr)
        self.gamma = gamma

    def act(self, obs):
        dist = torch.distributions.Categorical(logits=self.net(obs))
        a = dist.sample()
        return a.item(), dist.log_prob(a)

    def update(self, log_probs, rewards):
        g, returns = 0.0, []
        for r in reversed(rewards):
            g = r + self.gamma * g
            returns.append(g)
        returns = torch.tensor(returns[::-1])
        loss = -(torch.stack(log_probs) * returns).sum()
        self.opt.zero_grad()
        loss.backward(retain_graph=True)  # error: [retain-graph-in-loop]
        self.opt.step()
        return loss.item()


def main():
    random.seed(0)
    torch.manual_seed(0)
    env = Corridor()
    agent = PolicyAgent(obs_dim=5)
    for episode in range(3):
        obs, done, log_probs, rewards, t = env.reset(), False, [], [], 0
        while not done and t < 6:
            action, logp = agent.act(obs)
            obs, reward, done = env.step(action)
            log_probs.append(logp)
            rewards.append(reward)
            t += 1
        print(episode, agent.update(log_probs, rewards))


if __name__ == "__main__":
    main()
