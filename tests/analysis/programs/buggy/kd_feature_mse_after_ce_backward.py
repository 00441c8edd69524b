"""Feature-based knowledge distillation: a small student MLP learns the labels and,
through an MSE term, the hidden features of a frozen teacher.

Report: https://discuss.pytorch.org/t/knowledge-distillation-nans-when-combining-ce-aux-mse-in-the-same-backward-batchnorm-state-mismatch/219889
-- the poster splits the cross-entropy and the feature MSE into two backward calls; the
first needs ``retain_graph=True`` whenever the second backward goes through the same
student forward.

Here one student forward returns logits and features, and the cross-entropy is
backwarded before the feature loss, which then reaches the freed student graph.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(16, hidden), nn.ReLU(), nn.Linear(hidden, 8), nn.ReLU())
        self.cls = nn.Linear(8, 4)

    def forward(self, x):
        feats = self.body(x)
        return self.cls(feats), feats


def main(steps=4, alpha=0.7):
    torch.manual_seed(0)
    x = torch.randn(48, 16)
    y = torch.randint(0, 4, (48,))
    teacher = Net(64).eval()
    for p in teacher.parameters():
        p.requires_grad_(False)
    student = Net(16)
    optimizer = torch.optim.SGD(student.parameters(), lr=0.05, momentum=0.9)
    for step in range(steps):
        optimizer.zero_grad()
        logits, s_feats = student(x)
        with torch.no_grad():
            _, t_feats = teacher(x)
        ce = F.cross_entropy(logits, y)
        (alpha * ce).backward()
        mse = F.mse_loss(s_feats, t_feats)
        ((1 - alpha) * mse).backward()  # error: [shared-graph-backward]
        optimizer.step()
        print(f"step {step} ce {ce.item():.4f} mse {mse.item():.4f}")


if __name__ == "__main__":
    main()
