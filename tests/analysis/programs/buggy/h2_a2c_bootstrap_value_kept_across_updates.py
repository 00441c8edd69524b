"""A2C with n-step returns on a toy chain environment.

The critic's value of the state reached at the end of a rollout bootstraps this
rollout's returns, and is kept on the agent to serve as the first state's value in
the next rollout -- still attached to the graph this update's backward frees.

Real report of this mechanism: https://github.com/EasonApolo/mstn/issues/4
The maintainer explains that the moving centroids kept for the next iteration are detached
because otherwise "the computing graph will continuously grow as we save last centroid and
use it in the next epoch".
"""

import torch
import torch.nn as nn
from torch.distributions import Categorical


class ChainEnv:
    def __init__(self, n=6, seed=0):
        self.n = n
        self.pos = 0
        self.g = torch.Generator().manual_seed(seed)

    def obs(self):
        return nn.functional.one_hot(torch.tensor(self.pos), self.n).float()

    def step(self, action):
        self.pos = min(self.n - 1, self.pos + 1) if action == 1 else max(0, self.pos - 1)
        reward = 1.0 if self.pos == self.n - 1 else -0.01
        if self.pos == self.n - 1:
            self.pos = 0
        return self.obs(), reward


class ActorCritic(nn.Module):
    def __init__(self, n_obs=6, n_actions=2):
        super().__init__()
        self.actor = nn.Sequential(nn.Linear(n_obs, 16), nn.Tanh(), nn.Linear(16, n_actions))
        self.critic = nn.Sequential(nn.Linear(n_obs, 16), nn.Tanh(), nn.Linear(16, 1))


class Agent:
    def __init__(self, model, gamma=0.95, n_steps=5):
        self.model = model
        self.optimizer = torch.optim.RMSprop(model.parameters(), lr=7e-3)
        self.gamma = gamma
        self.n_steps = n_steps
        self.last_value = None

    def update(self, env, obs):
        first = self.last_value if self.last_value is not None else self.model.critic(obs)
        log_probs, values, rewards = [], [first], []
        for _ in range(self.n_steps):
            dist = Categorical(logits=self.model.actor(obs))
            action = dist.sample()
            log_probs.append(dist.log_prob(action))
            obs, reward = env.step(action.item())
            rewards.append(reward)
            values.append(self.model.critic(obs))
        next_value = values.pop()
        ret = next_value
        returns = []
        for r in reversed(rewards):
            ret = r + self.gamma * ret
            returns.insert(0, ret)
        returns, values = torch.cat(returns), torch.cat(values)
        advantage = returns - values
        loss = -(torch.stack(log_probs) * advantage.detach()).mean() + advantage.pow(2).mean()
        self.optimizer.zero_grad()
        loss.backward()  # error: [carried-graph-backward]
        self.optimizer.step()
        self.last_value = next_value
        return obs, loss.item()


if __name__ == "__main__":
    torch.manual_seed(0)
    env = ChainEnv()
    agent = Agent(ActorCritic())
    obs = env.obs()
    for update in range(4):
        obs, loss = agent.update(env, obs)
        print(update, round(loss, 4))
