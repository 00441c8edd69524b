"""REINFORCE on a toy bandit-like environment (after pytorch/examples reinforce.py).

The policy keeps its log-probabilities in a list; the finish_episode helper forgets to
clear it, so the next episode's loss includes last episode's log-probs.

Real report of this mechanism: https://github.com/pytorch/examples/issues/151
Calling the REINFORCE example's finish_episode() again on stored past experience backwards
log-probabilities whose graph an earlier update freed.
"""

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Categorical

GAMMA = 0.99


class ToyEnv:
    def __init__(self, horizon=4):
        self.horizon = horizon
        self.t = 0

    def reset(self):
        self.t = 0
        return np.random.randn(4).astype(np.float32)

    def step(self, action):
        self.t += 1
        reward = 1.0 if action == 1 else 0.0
        return np.random.randn(4).astype(np.float32), reward, self.t >= self.horizon


class Policy(nn.Module):
    def __init__(self):
        super().__init__()
        self.affine1 = nn.Linear(4, 16)
        self.affine2 = nn.Linear(16, 2)
        self.saved_log_probs = []
        self.rewards = []

    def forward(self, x):
        return F.softmax(self.affine2(F.relu(self.affine1(x))), dim=1)


def select_action(policy, state):
    probs = policy(torch.from_numpy(state).float().unsqueeze(0))
    m = Categorical(probs)
    action = m.sample()
    policy.saved_log_probs.append(m.log_prob(action))
    return action.item()


def finish_episode(policy, optimizer, eps=1e-6):
    returns, R = [], 0.0
    for r in policy.rewards[::-1]:
        R = r + GAMMA * R
        returns.insert(0, R)
    returns = torch.tensor(returns)
    returns = (returns - returns.mean()) / (returns.std() + eps)
    policy_loss = [-lp * R for lp, R in zip(policy.saved_log_probs, returns)]
    optimizer.zero_grad()
    loss = torch.cat(policy_loss).sum()
    loss.backward()  # error: [carried-graph-backward]
    optimizer.step()
    del policy.rewards[:]


def main():
    np.random.seed(0)
    torch.manual_seed(0)
    env, policy = ToyEnv(), Policy()
    optimizer = torch.optim.Adam(policy.parameters(), lr=1e-2)
    for episode in range(3):
        state, done = env.reset(), False
        while not done:
            action = select_action(policy, state)
            state, reward, done = env.step(action)
            policy.rewards.append(reward)
        finish_episode(policy, optimizer)
        print("episode", episode, "done")


if __name__ == "__main__":
    main()
