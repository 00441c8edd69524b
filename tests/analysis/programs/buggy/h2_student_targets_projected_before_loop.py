"""Feature distillation: a frozen teacher, a student, and a trainable adapter.

The teacher's features go through the trainable adapter once, before the loop, and
the resulting targets are reused by every step.

Real report of this mechanism: https://github.com/lucidrains/denoising-diffusion-pytorch/issues/109
A trainable conv1D applied to the data once, outside the training loop, made the second
loss.backward() raise.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Teacher(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 32))

    def forward(self, x):
        return self.net(x)


class Student(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(10, 16), nn.ReLU(), nn.Linear(16, 8))

    def forward(self, x):
        return self.net(x)


def main():
    torch.manual_seed(0)
    x = torch.randn(64, 10)
    teacher, student = Teacher().eval(), Student()
    adapter = nn.Linear(32, 8)
    with torch.no_grad():
        teacher_feats = teacher(x)
    targets = F.normalize(adapter(teacher_feats), dim=-1)

    optimizer = torch.optim.Adam([*student.parameters(), *adapter.parameters()], lr=1e-3)
    for epoch in range(3):
        perm = torch.randperm(64)
        for i in range(0, 64, 16):
            idx = perm[i : i + 16]
            pred = F.normalize(student(x[idx]), dim=-1)
            loss = (1 - (pred * targets[idx]).sum(-1)).mean()
            optimizer.zero_grad()
            loss.backward()  # error: [pre-loop-graph-backward]
            optimizer.step()
        print(f"epoch {epoch}: cosine loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
