"""Multi-task learning with Dynamic Weight Averaging (Liu et al., 2019).

Task weights come from the ratio of each task's last two losses; the previous
losses are kept as tensors instead of floats.

Real report of this mechanism: https://github.com/EasonApolo/mstn/issues/4
The maintainer explains that the moving centroids kept for the next iteration are detached
because otherwise "the computing graph will continuously grow as we save last centroid and
use it in the next epoch".
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class MultiTaskNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.shared = nn.Sequential(nn.Linear(10, 32), nn.ReLU())
        self.seg_head = nn.Linear(32, 4)
        self.depth_head = nn.Linear(32, 1)

    def forward(self, x):
        h = self.shared(x)
        return self.seg_head(h), self.depth_head(h)


def dwa_weights(history, temperature=2.0, num_tasks=2):
    if len(history) < 2:
        return [1.0] * num_tasks
    ratios = [history[-1][k] / history[-2][k] for k in range(num_tasks)]
    exps = [torch.exp(r / temperature) for r in ratios]
    total = sum(exps)
    return [num_tasks * e / total for e in exps]


def main():
    torch.manual_seed(0)
    model = MultiTaskNet()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_history = []
    for epoch in range(3):
        x = torch.randn(12, 10)
        seg_target = torch.randint(0, 4, (12,))
        depth_target = torch.rand(12, 1)
        seg_logits, depth = model(x)
        losses = [F.cross_entropy(seg_logits, seg_target), F.l1_loss(depth, depth_target)]
        weights = dwa_weights(loss_history)
        loss = sum(w * l for w, l in zip(weights, losses))
        optimizer.zero_grad()
        loss.backward()  # error: [carried-graph-backward]
        optimizer.step()
        loss_history.append(losses)
        print(f"epoch {epoch}: " + ", ".join(f"{l.item():.3f}" for l in losses))


if __name__ == "__main__":
    main()
