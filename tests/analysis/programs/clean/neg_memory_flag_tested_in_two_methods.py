"""A trainer with a feature memory: ``remember`` stores the batch's features with their
graph only when ``self.stop_grad_memory`` is false, and ``loss_terms`` reads the memory
only when the same flag is true, i.e. only when what was stored is detached. The flag
never changes, so the two methods always see the same value (negative for issue 13,
mechanism 3).
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class MemoryTrainer:
    def __init__(self, stop_grad_memory=True):
        self.stop_grad_memory = stop_grad_memory
        self.encoder = nn.Sequential(nn.Linear(10, 24), nn.ReLU(), nn.Linear(24, 8))
        self.head = nn.Linear(8, 3)
        params = [*self.encoder.parameters(), *self.head.parameters()]
        self.optimizer = torch.optim.Adam(params, lr=3e-3)
        self.memory = None

    def remember(self, feats):
        if self.stop_grad_memory:
            self.memory = feats.detach()
        else:
            self.memory = feats

    def loss_terms(self, feats, logits, y):
        loss = F.cross_entropy(logits, y)
        if self.stop_grad_memory and self.memory is not None:
            loss = loss + 0.1 * (feats.mean(0) - self.memory.mean(0)).pow(2).sum()
        return loss

    def step(self, x, y):
        feats = self.encoder(x)
        loss = self.loss_terms(feats, self.head(feats), y)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        self.remember(feats)
        return loss.item()


def main():
    torch.manual_seed(0)
    for flag in (True, False):
        trainer = MemoryTrainer(stop_grad_memory=flag)
        for step in range(4):
            x = torch.randn(16, 10)
            y = x[:, :3].argmax(1)
            print(flag, step, round(trainer.step(x, y), 4))


if __name__ == "__main__":
    main()
