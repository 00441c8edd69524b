"""DQN with a Polyak-averaged target network on a small chain MDP.

Twin of buggy/rl_dqn_soft_update_without_no_grad.py, fixed as stable-baselines3's
polyak_update does: the soft update runs in place under torch.no_grad(), so the target
parameters stay plain leaves; the TD target is also computed under no_grad, as the
report on the DQN agent asks.
"""

import copy
import random

import torch
import torch.nn as nn
import torch.nn.functional as F

N_STATES, N_ACTIONS = 6, 2


def step(state, action):
    nxt = min(N_STATES - 1, state + 1) if action == 1 else max(0, state - 1)
    return nxt, (1.0 if nxt == N_STATES - 1 else 0.0)


def one_hot(states):
    return F.one_hot(torch.tensor(states), N_STATES).float()


def main(updates=5, batch_size=16, gamma=0.9, tau=0.05):
    random.seed(0)
    torch.manual_seed(0)
    q = nn.Sequential(nn.Linear(N_STATES, 32), nn.ReLU(), nn.Linear(32, N_ACTIONS))
    q_target = copy.deepcopy(q)
    for p in q_target.parameters():
        p.requires_grad_(False)
    optimizer = torch.optim.Adam(q.parameters(), lr=1e-2)
    replay = []
    for _ in range(200):
        s, a = random.randrange(N_STATES), random.randrange(N_ACTIONS)
        replay.append((s, a, *step(s, a)))
    for update in range(updates):
        s, a, s2, r = zip(*random.sample(replay, batch_size))
        q_sa = q(one_hot(s)).gather(1, torch.tensor(a).unsqueeze(1)).squeeze(1)
        with torch.no_grad():
            target = torch.tensor(r) + gamma * q_target(one_hot(s2)).max(1).values
        loss = F.smooth_l1_loss(q_sa, target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        with torch.no_grad():
            for p_target, p in zip(q_target.parameters(), q.parameters()):
                p_target.mul_(1 - tau).add_(p, alpha=tau)
        assert all(p.grad_fn is None for p in q_target.parameters())
        print(update, round(loss.item(), 4))


if __name__ == "__main__":
    main()
