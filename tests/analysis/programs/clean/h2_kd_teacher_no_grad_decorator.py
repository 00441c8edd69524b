"""Knowledge distillation: the teacher's forward is a ``@torch.no_grad()`` method, the
student's CE and KD terms are summed and backwarded once; the temperature-scaled KD
term is built with ``functools.partial``.
"""

import functools

import torch
import torch.nn as nn
import torch.nn.functional as F


def kd_term(student_logits, teacher_logits, T):
    log_p = F.log_softmax(student_logits / T, dim=-1)
    q = F.softmax(teacher_logits / T, dim=-1)
    return F.kl_div(log_p, q, reduction="batchmean") * T * T


class Distiller(nn.Module):
    def __init__(self, teacher, student, alpha=0.7, T=3.0):
        super().__init__()
        self.teacher = teacher.eval()
        self.student = student
        self.alpha = alpha
        self.kd = functools.partial(kd_term, T=T)

    @torch.no_grad()
    def teacher_logits(self, x):
        return self.teacher(x)

    def loss(self, x, y):
        t_logits = self.teacher_logits(x)
        s_logits = self.student(x)
        return self.alpha * self.kd(s_logits, t_logits) + (1 - self.alpha) * F.cross_entropy(s_logits, y)


def mlp(width):
    return nn.Sequential(nn.Linear(16, width), nn.ReLU(), nn.Linear(width, 5))


def main():
    torch.manual_seed(0)
    distiller = Distiller(mlp(64), mlp(8))
    optimizer = torch.optim.Adam(distiller.student.parameters(), lr=2e-3)
    x, y = torch.randn(64, 16), torch.randint(0, 5, (64,))
    for epoch in range(3):
        for i in range(0, 64, 16):
            loss = distiller.loss(x[i : i + 16], y[i : i + 16])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print(epoch, round(loss.item(), 4))
    assert all(p.grad is None for p in distiller.teacher.parameters())


if __name__ == "__main__":
    main()
