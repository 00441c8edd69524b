"""DINO-style self-distillation on toy vectors.

The teacher is an EMA of the student (correctly under no_grad), but the output
centre is updated from the *student's* outputs outside no_grad, so it carries
the graph of the previous step.

Real report of this mechanism: https://github.com/EasonApolo/mstn/issues/4
The maintainer explains that the moving centroids kept for the next iteration are detached
because otherwise "the computing graph will continuously grow as we save last centroid and
use it in the next epoch".
"""

import copy

import torch
import torch.nn as nn
import torch.nn.functional as F


class DINOLoss(nn.Module):
    def __init__(self, out_dim, student_temp=0.1, teacher_temp=0.04, center_momentum=0.9):
        super().__init__()
        self.student_temp = student_temp
        self.teacher_temp = teacher_temp
        self.center_momentum = center_momentum
        self.center = torch.zeros(1, out_dim)

    def forward(self, student_out, teacher_out):
        t = F.softmax((teacher_out - self.center) / self.teacher_temp, dim=-1)
        s = F.log_softmax(student_out / self.student_temp, dim=-1)
        loss = torch.sum(-t * s, dim=-1).mean()
        self.update_center(student_out)
        return loss

    def update_center(self, out):
        batch_center = out.mean(dim=0, keepdim=True)
        self.center = self.center * self.center_momentum + batch_center * (1 - self.center_momentum)


def augment(x):
    return x + 0.1 * torch.randn_like(x)


def main():
    torch.manual_seed(0)
    student = nn.Sequential(nn.Linear(8, 16), nn.GELU(), nn.Linear(16, 6))
    teacher = copy.deepcopy(student)
    for p in teacher.parameters():
        p.requires_grad = False
    criterion = DINOLoss(6)
    optimizer = torch.optim.AdamW(student.parameters(), lr=1e-3)

    for it in range(3):
        images = torch.randn(10, 8)
        v1, v2 = augment(images), augment(images)
        with torch.no_grad():
            t1 = teacher(v1)
        loss = criterion(student(v2), t1)
        optimizer.zero_grad()
        loss.backward()  # error: [carried-graph-backward]
        optimizer.step()
        with torch.no_grad():
            for ps, pt in zip(student.parameters(), teacher.parameters()):
                pt.mul_(0.996).add_(ps.detach(), alpha=0.004)
        print(f"iter {it}: loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
