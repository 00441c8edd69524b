"""A multi-objective trainer that can run one objective per phase: ``step`` checks
``if k in self.modes`` before switching ``self.mode = k`` and only backwards when
``self.mode == k`` holds, which then always does; the loss is always the one computed
in this call (negative for issue 13, mechanism 3: ``k in self.modes`` then
``self.mode == k`` must be linked).
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class PhaseTrainer:
    def __init__(self):
        self.modes = ("classify", "denoise")
        self.mode = None
        self.encoder = nn.Sequential(nn.Linear(8, 16), nn.ReLU())
        self.heads = nn.ModuleDict({"classify": nn.Linear(16, 2), "denoise": nn.Linear(16, 8)})
        params = [*self.encoder.parameters(), *self.heads.parameters()]
        self.optimizer = torch.optim.SGD(params, lr=0.05)

    def objective(self, k, x, y):
        out = self.heads[k](self.encoder(x + 0.1 * torch.randn_like(x)))
        return F.cross_entropy(out, y) if k == "classify" else F.mse_loss(out, x)

    def step(self, k, x, y):
        if k in self.modes:
            self.mode = k
        loss = None
        if self.mode == k:
            loss = self.objective(k, x, y)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
        return loss


def main(rounds=3):
    torch.manual_seed(0)
    trainer = PhaseTrainer()
    x = torch.randn(24, 8)
    y = (x.sum(1) > 0).long()
    for r in range(rounds):
        for k in trainer.modes:
            loss = trainer.step(k, x, y)
            print(r, k, round(loss.item(), 4))


if __name__ == "__main__":
    main()
