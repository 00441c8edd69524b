"""Semi-gradient TD(0) value learning with a small network on a random-walk chain, one
update per transition.

Twin of buggy/rl_td0_value_learning_retains_every_step.py: the bootstrapped target is a
constant computed under no_grad and the prediction is rebuilt at every step, so each
backward frees its own graph: no retain_graph is needed anywhere.
"""

import random

import torch
import torch.nn as nn
import torch.nn.functional as F

N_STATES = 7


def walk(steps, seed=0):
    rng = random.Random(seed)
    s = N_STATES // 2
    for _ in range(steps):
        s2 = s + rng.choice((-1, 1))
        reward = 1.0 if s2 == N_STATES - 1 else 0.0
        done = s2 in (0, N_STATES - 1)
        yield s, reward, s2, done
        s = N_STATES // 2 if done else s2


def features(state):
    return F.one_hot(torch.tensor(state), N_STATES).float()


def main(steps=40, gamma=1.0):
    torch.manual_seed(0)
    value = nn.Sequential(nn.Linear(N_STATES, 16), nn.Tanh(), nn.Linear(16, 1))
    optimizer = torch.optim.SGD(value.parameters(), lr=0.05)
    for t, (s, reward, s2, done) in enumerate(walk(steps)):
        with torch.no_grad():
            target = reward + (0.0 if done else gamma * value(features(s2)).item())
        prediction = value(features(s)).squeeze()
        loss = (prediction - target).pow(2)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if t % 10 == 0:
            print(t, round(loss.item(), 4))
    with torch.no_grad():
        print([round(v, 2) for v in value(torch.eye(N_STATES)).squeeze(-1).tolist()])


if __name__ == "__main__":
    main()
