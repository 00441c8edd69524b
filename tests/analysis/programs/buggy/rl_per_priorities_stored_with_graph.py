"""DQN with proportional prioritized experience replay on a toy contextual bandit.

Report: https://github.com/Kaixhin/Rainbow/pull/33 -- the replay memory ended up holding
autograd graphs through the priorities it was updated with. Here the new priorities are
the TD errors as they come out of the loss, not detached; the importance weights of the
next sample are computed from them, so the next loss backwards into the previous
update's freed graph.
"""

import random

import torch
import torch.nn as nn

OBS, ACTIONS, CAPACITY, BATCH = 4, 3, 64, 16


class PrioritizedReplay:
    def __init__(self, capacity, alpha=0.6):
        self.items, self.priorities, self.capacity, self.alpha = [], [], capacity, alpha

    def add(self, transition):
        self.items.append(transition)
        self.priorities.append(torch.tensor(1.0))
        del self.items[: -self.capacity], self.priorities[: -self.capacity]

    def sample(self, batch_size, beta=0.4):
        p = torch.stack(self.priorities) ** self.alpha
        probs = p / p.sum()
        idx = torch.multinomial(probs, batch_size, replacement=True)
        weights = (len(self.items) * probs[idx]) ** -beta
        return idx.tolist(), [self.items[i] for i in idx.tolist()], weights / weights.max()

    def update(self, idx, priorities):
        for i, p in zip(idx, priorities):
            self.priorities[i] = p + 1e-3


def main(updates=5):
    random.seed(0)
    torch.manual_seed(0)
    q = nn.Sequential(nn.Linear(OBS, 32), nn.ReLU(), nn.Linear(32, ACTIONS))
    optimizer = torch.optim.Adam(q.parameters(), lr=1e-3)
    memory = PrioritizedReplay(CAPACITY)
    for _ in range(CAPACITY):
        obs, action = torch.randn(OBS), random.randrange(ACTIONS)
        memory.add((obs, action, float(action == obs[:ACTIONS].argmax().item())))
    for update in range(updates):
        idx, batch, weights = memory.sample(BATCH)
        obs = torch.stack([t[0] for t in batch])
        actions = torch.tensor([t[1] for t in batch])
        rewards = torch.tensor([t[2] for t in batch])
        td_error = q(obs).gather(1, actions.unsqueeze(1)).squeeze(1) - rewards
        loss = (weights * td_error.pow(2)).mean()
        optimizer.zero_grad()
        loss.backward()  # error: [carried-graph-backward]
        optimizer.step()
        memory.update(idx, td_error.abs())
        print(update, round(loss.item(), 4))


if __name__ == "__main__":
    main()
