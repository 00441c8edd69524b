"""Episode-based sequence training: ``train_episode`` calls ``reset()`` before replaying
the recurrent ``step`` method over an episode; ``step`` keeps its hidden state on
``self`` and backwards through it, but every caller resets that state first, so no
episode reaches the previous episode's graph (negative for issue 13, mechanism 3).
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class EpisodeLearner:
    def __init__(self, obs_dim=4, hidden=16):
        self.cell = nn.GRUCell(obs_dim, hidden)
        self.readout = nn.Linear(hidden, 1)
        self.optimizer = torch.optim.Adam([*self.cell.parameters(), *self.readout.parameters()], lr=5e-3)
        self.hidden_size = hidden
        self.hidden = None

    def reset(self, batch):
        self.hidden = torch.zeros(batch, self.hidden_size)

    def step(self, obs_seq, targets):
        for obs in obs_seq:
            self.hidden = self.cell(obs, self.hidden)
        loss = F.mse_loss(self.readout(self.hidden), targets)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.item()

    def train_episode(self, episode):
        obs_seq, targets = episode
        self.reset(targets.size(0))
        return self.step(obs_seq, targets)


def make_episode(length=5, batch=8):
    obs = torch.randn(length, batch, 4)
    return list(obs), obs.sum(0)[:, :1]


def main(episodes=4):
    torch.manual_seed(0)
    learner = EpisodeLearner()
    for ep in range(episodes):
        print(f"episode {ep} loss {learner.train_episode(make_episode()):.4f}")


if __name__ == "__main__":
    main()
