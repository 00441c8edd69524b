"""REINFORCE with a learned state-value baseline on a short corridor; the policy keeps
the episode's log-probabilities and rewards on itself.

Report: https://github.com/sweetice/Deep-reinforcement-learning-with-pytorch/issues/37
-- running the "reinforce with baseline" script raised a computation-graph error for
several users; the fix posted in the thread: the episode end deleted
`policy.log_act_probs[:]` and `policy.reward[:]`, lists left from an earlier version,
instead of `policy.saved_log_probs[:]` and `policy.rewards[:]`, so the log-probabilities
of finished episodes stayed in the loss.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Categorical

N, GAMMA = 5, 0.95


class Policy(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(N, 32), nn.ReLU(), nn.Linear(32, 2))
        self.saved_log_probs, self.rewards = [], []
        self.log_act_probs, self.reward = [], []

    def forward(self, obs):
        return Categorical(logits=self.net(obs))


def observe(pos):
    return F.one_hot(torch.tensor(pos), N).float()


def finish_episode(policy, baseline, policy_opt, baseline_opt, states):
    g, returns = 0.0, []
    for r in reversed(policy.rewards):
        g = r + GAMMA * g
        returns.insert(0, g)
    returns = torch.tensor(returns)
    values = baseline(torch.stack(states[-len(returns):])).squeeze(-1)
    baseline_opt.zero_grad()
    F.mse_loss(values, returns).backward()
    baseline_opt.step()
    delta = (returns - values).detach()
    policy_loss = -(torch.stack(policy.saved_log_probs) * delta).sum()
    policy_opt.zero_grad()
    policy_loss.backward()  # error: [carried-graph-backward]
    policy_opt.step()
    del policy.log_act_probs[:]
    del policy.reward[:]
    return policy_loss.item()


def main(episodes=3):
    torch.manual_seed(0)
    policy, baseline = Policy(), nn.Sequential(nn.Linear(N, 16), nn.ReLU(), nn.Linear(16, 1))
    policy_opt = torch.optim.Adam(policy.parameters(), lr=1e-2)
    baseline_opt = torch.optim.Adam(baseline.parameters(), lr=1e-2)
    states = []
    for episode in range(episodes):
        pos = 0
        for _ in range(10):
            if pos == N - 1:
                break
            states.append(observe(pos))
            dist = policy(observe(pos))
            action = dist.sample()
            policy.saved_log_probs.append(dist.log_prob(action))
            pos = max(0, pos + (1 if action.item() == 1 else -1))
            policy.rewards.append(1.0 if pos == N - 1 else -0.05)
        print(episode, finish_episode(policy, baseline, policy_opt, baseline_opt, states))


if __name__ == "__main__":
    main()
