"""A trainer keeps the model's predictions on fixed probe inputs, computed once, as soft targets."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class ProbeTrainer:
    def __init__(self, model, probes):
        self.model = model
        self.probes = probes
        with torch.no_grad():
            self.targets = F.softmax(self.model(probes), dim=-1)
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

    def step(self, x, y):
        drift = F.kl_div(F.log_softmax(self.model(self.probes), dim=-1), self.targets, reduction="batchmean")
        loss = F.cross_entropy(self.model(x), y) + drift
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()


torch.manual_seed(0)
trainer = ProbeTrainer(nn.Linear(4, 3), torch.randn(6, 4))
for _ in range(3):
    trainer.step(torch.randn(8, 4), torch.randint(0, 3, (8,)))
