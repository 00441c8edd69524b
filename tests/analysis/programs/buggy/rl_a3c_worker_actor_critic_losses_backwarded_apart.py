"""A3C-style worker (single process here) with one network and two heads on a chain task.

Report: https://github.com/MorvanZhou/pytorch-A3C/issues/18 -- the reporter proposed
computing the actor and the critic losses separately instead of backwarding their sum;
with one network behind both heads, the second backward goes through the trunk that the
first one already freed. The answer: the gradient of the sum is the sum of the
gradients, so one backward of the total loss does exactly that.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self, n_obs=5, n_actions=2):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(n_obs, 32), nn.ReLU6())
        self.pi = nn.Linear(32, n_actions)
        self.v = nn.Linear(32, 1)

    def forward(self, obs):
        h = self.trunk(obs)
        return self.pi(h), self.v(h).squeeze(-1)


class Chain:
    def __init__(self, n=5):
        self.n, self.pos = n, 0

    def observe(self):
        return F.one_hot(torch.tensor(self.pos), self.n).float()

    def step(self, action):
        self.pos = min(self.n - 1, self.pos + 1) if action == 1 else max(0, self.pos - 1)
        done = self.pos == self.n - 1
        if done:
            self.pos = 0
        return self.observe(), (1.0 if done else -0.02), done


def worker(net, optimizer, env, updates=4, t_max=5, gamma=0.9):
    obs = env.observe()
    for update in range(updates):
        observations, actions, rewards = [], [], []
        for _ in range(t_max):
            with torch.no_grad():
                logits, _ = net(obs)
            action = torch.distributions.Categorical(logits=logits).sample()
            next_obs, reward, done = env.step(action.item())
            observations.append(obs)
            actions.append(action)
            rewards.append(reward)
            obs = next_obs
        with torch.no_grad():
            running = net(obs)[1]
        targets = []
        for r in reversed(rewards):
            running = r + gamma * running
            targets.insert(0, running)
        logits, values = net(torch.stack(observations))
        td = torch.stack(targets) - values
        c_loss = td.pow(2).mean()
        log_prob = torch.distributions.Categorical(logits=logits).log_prob(torch.stack(actions))
        a_loss = -(log_prob * td.detach()).mean()
        optimizer.zero_grad()
        a_loss.backward()
        c_loss.backward()  # error: [shared-graph-backward]
        optimizer.step()
        print(update, round(c_loss.item(), 4))


if __name__ == "__main__":
    torch.manual_seed(0)
    model = Net()
    worker(model, torch.optim.Adam(model.parameters(), lr=1e-3), Chain())
