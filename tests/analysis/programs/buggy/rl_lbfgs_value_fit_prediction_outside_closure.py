"""Monte-Carlo policy evaluation on a random-walk chain, fitted with L-BFGS.

Report: https://github.com/pytorch/pytorch/issues/111369 -- the reporter computed the
model's prediction once, before defining the closure, and optimizer.step(closure) failed
with "Trying to backward through the graph a second time"; L-BFGS calls the closure
several times per step, and every call backwards through that one prediction.
"""

import torch
import torch.nn as nn


def random_walk_returns(n_states=7, episodes=40, gamma=0.9, seed=0):
    g = torch.Generator().manual_seed(seed)
    states, returns = [], []
    for _ in range(episodes):
        s, visited, rewards = n_states // 2, [], []
        while 0 < s < n_states - 1:
            visited.append(s)
            s += 1 if torch.rand(1, generator=g).item() < 0.5 else -1
            rewards.append(1.0 if s == n_states - 1 else 0.0)
        g_t = 0.0
        for state, r in zip(reversed(visited), reversed(rewards)):
            g_t = r + gamma * g_t
            states.append(state)
            returns.append(g_t)
    return torch.tensor(states), torch.tensor(returns)


class ValueFunction(nn.Module):
    def __init__(self, n_states, hidden=16):
        super().__init__()
        self.embed = nn.Embedding(n_states, hidden)
        self.head = nn.Sequential(nn.Tanh(), nn.Linear(hidden, 1))

    def forward(self, states):
        return self.head(self.embed(states)).squeeze(-1)


def fit(value_fn, states, returns, steps=3):
    optimizer = torch.optim.LBFGS(value_fn.parameters(), lr=0.5, max_iter=10)
    criterion = nn.MSELoss()
    prediction = value_fn(states)

    def closure():
        optimizer.zero_grad()
        loss = criterion(prediction, returns)
        loss.backward()  # error: [pre-loop-graph-backward]
        return loss

    history = []
    for _ in range(steps):
        history.append(optimizer.step(closure).item())
    return history


def main():
    torch.manual_seed(0)
    states, returns = random_walk_returns()
    value_fn = ValueFunction(7)
    history = fit(value_fn, states, returns)
    with torch.no_grad():
        print("losses", [round(h, 4) for h in history])
        print("V(s)", value_fn(torch.arange(7)).round(decimals=2).tolist())


if __name__ == "__main__":
    main()
