"""DQN with proportional prioritized experience replay on a toy contextual bandit.

Twin of buggy/rl_per_priorities_stored_with_graph.py, fixed as the report's pull
request and the Rainbow code do: the priorities written back to the memory are detached
TD errors, so the memory holds numbers, and importance weights are plain constants.
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
        assert not weights.requires_grad
        obs = torch.stack([t[0] for t in batch])
        actions = torch.tensor([t[1] for t in batch])
        rewards = torch.tensor([t[2] for t in batch])
        td_error = q(obs).gather(1, actions.unsqueeze(1)).squeeze(1) - rewards
        loss = (weights * td_error.pow(2)).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        memory.update(idx, td_error.detach().abs())
        print(update, round(loss.item(), 4))


if __name__ == "__main__":
    main()
