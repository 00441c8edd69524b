"""Regression on a rollout store that yields shuffled minibatches of plain data tensors
through ``store.minibatch_generator(4)`` -- a data iterator, not a GAN generator
(negative for issue 13, mechanism 1).
"""

import torch
import torch.nn as nn


class RolloutStore:
    def __init__(self, capacity, obs_dim):
        self.obs = torch.zeros(capacity, obs_dim)
        self.returns = torch.zeros(capacity, 1)
        self.size = 0

    def add(self, obs, ret):
        n = obs.size(0)
        self.obs[self.size : self.size + n] = obs
        self.returns[self.size : self.size + n] = ret
        self.size += n

    def minibatch_generator(self, num_minibatches):
        perm = torch.randperm(self.size)
        for chunk in perm.chunk(num_minibatches):
            yield self.obs[chunk], self.returns[chunk]


def collect(store, steps=32, obs_dim=5):
    obs = torch.randn(steps, obs_dim)
    ret = obs[:, :1] * 0.5 + obs[:, 1:2].abs()
    store.add(obs, ret)


def main(epochs=3):
    torch.manual_seed(0)
    store = RolloutStore(64, 5)
    collect(store)
    head = nn.Sequential(nn.Linear(5, 32), nn.Tanh(), nn.Linear(32, 1))
    opt = torch.optim.Adam(head.parameters(), lr=3e-3)
    for epoch in range(epochs):
        total = 0.0
        for xb, yb in store.minibatch_generator(4):
            loss = (head(xb) - yb).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item()
        print(f"epoch {epoch} loss {total / 4:.4f}")


if __name__ == "__main__":
    main()
