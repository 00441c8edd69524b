"""A2C with n-step returns on a toy chain: the critic's value of the state reached at the end
of a rollout bootstraps the returns detached, and is kept on the agent -- detached -- as the
first state's baseline in the next rollout.
"""

import torch
import torch.nn as nn
from torch.distributions import Categorical


class ChainEnv:
    def __init__(self, n=6):
        self.n, self.pos = n, 0

    def obs(self):
        return nn.functional.one_hot(torch.tensor(self.pos), self.n).float()

    def step(self, action):
        self.pos = min(self.n - 1, self.pos + 1) if action == 1 else max(0, self.pos - 1)
        reward = 1.0 if self.pos == self.n - 1 else -0.01
        if self.pos == self.n - 1:
            self.pos = 0
        return self.obs(), reward


class Agent:
    def __init__(self, n_obs=6, gamma=0.95, n_steps=5):
        self.actor = nn.Sequential(nn.Linear(n_obs, 16), nn.Tanh(), nn.Linear(16, 2))
        self.critic = nn.Sequential(nn.Linear(n_obs, 16), nn.Tanh(), nn.Linear(16, 1))
        self.optimizer = torch.optim.RMSprop([*self.actor.parameters(), *self.critic.parameters()], lr=7e-3)
        self.gamma, self.n_steps = gamma, n_steps
        self.last_value = None

    def update(self, env, obs):
        log_probs, values, rewards = [], [self.critic(obs)], []
        for _ in range(self.n_steps):
            dist = Categorical(logits=self.actor(obs))
            action = dist.sample()
            log_probs.append(dist.log_prob(action))
            obs, reward = env.step(action.item())
            rewards.append(reward)
            values.append(self.critic(obs))
        next_value = values.pop()
        ret = next_value.detach()
        returns = []
        for r in reversed(rewards):
            ret = r + self.gamma * ret
            returns.insert(0, ret)
        advantage = torch.cat(returns) - torch.cat(values)
        loss = -(torch.stack(log_probs) * advantage.detach()).mean() + advantage.pow(2).mean()
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        self.last_value = next_value.detach()
        return obs, loss.item()


if __name__ == "__main__":
    torch.manual_seed(0)
    env = ChainEnv()
    agent = Agent()
    obs = env.obs()
    for update in range(4):
        obs, loss = agent.update(env, obs)
        print(update, round(loss, 4), round(agent.last_value.item(), 4))
