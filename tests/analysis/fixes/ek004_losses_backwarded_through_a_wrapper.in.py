"""Two heads on one trunk, each loss backwarded through the trainer's own wrapper (as a mixed-
precision or distributed helper does), one after the other, then one step: the second backward
reaches the trunk's graph the first freed. Summing is not offered (the wrapper backwards each
loss); recomputing the trunk and the second loss before the second backward computes the same
tensors, since nothing between changes what they read, and sends what the sum would."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Backwarder:
    def backward(self, loss):
        loss.backward()


class TwoHeads(nn.Module):
    def __init__(self):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(4, 8), nn.Tanh())
        self.classify = nn.Linear(8, 3)
        self.regress = nn.Linear(8, 1)

    def forward(self, x):
        h = self.trunk(x)
        return self.classify(h), self.regress(h).squeeze(-1)


def main(steps=4):
    torch.manual_seed(0)
    model = TwoHeads()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    runner = Backwarder()
    x = torch.randn(16, 4)
    labels = torch.randint(0, 3, (16,))
    targets = torch.randn(16)
    for step in range(steps):
        logits, values = model(x)
        cls_loss = F.cross_entropy(logits, labels)
        reg_loss = F.mse_loss(values, targets)
        optimizer.zero_grad()
        runner.backward(cls_loss)
        runner.backward(reg_loss)
        optimizer.step()


if __name__ == "__main__":
    main()
