"""DINO self-distillation (Caron et al., 2021) on toy vectors: EMA teacher, output centring with
the centre updated from teacher outputs under no_grad, multi-crop style cross-view loss.
"""

import copy

import torch
import torch.nn as nn
import torch.nn.functional as F


class DINOLoss(nn.Module):
    def __init__(self, out_dim, student_temp=0.1, teacher_temp=0.04, center_momentum=0.9):
        super().__init__()
        self.student_temp, self.teacher_temp = student_temp, teacher_temp
        self.center_momentum = center_momentum
        self.register_buffer("center", torch.zeros(1, out_dim))

    def forward(self, student_outputs, teacher_outputs):
        total, n_terms = 0.0, 0
        teacher_probs = [F.softmax((t - self.center) / self.teacher_temp, dim=-1) for t in teacher_outputs]
        for iq, q in enumerate(teacher_probs):
            for iv, s in enumerate(student_outputs):
                if iv == iq:
                    continue
                total = total + torch.sum(-q * F.log_softmax(s / self.student_temp, dim=-1), dim=-1).mean()
                n_terms += 1
        self.update_center(torch.cat(teacher_outputs))
        return total / n_terms

    @torch.no_grad()
    def update_center(self, teacher_output):
        batch_center = teacher_output.mean(dim=0, keepdim=True)
        self.center = self.center * self.center_momentum + batch_center * (1 - self.center_momentum)


def main(iterations=3, momentum_teacher=0.996):
    torch.manual_seed(0)
    student = nn.Sequential(nn.Linear(8, 16), nn.GELU(), nn.Linear(16, 6))
    teacher = copy.deepcopy(student)
    teacher.requires_grad_(False)
    dino_loss = DINOLoss(6)
    optimizer = torch.optim.AdamW(student.parameters(), lr=5e-4, weight_decay=0.04)
    for it in range(iterations):
        images = torch.randn(10, 8)
        views = [images + 0.1 * torch.randn_like(images) for _ in range(3)]
        with torch.no_grad():
            teacher_out = [teacher(v) for v in views[:2]]
        student_out = [student(v) for v in views]
        loss = dino_loss(student_out, teacher_out)
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(student.parameters(), 3.0)
        optimizer.step()
        with torch.no_grad():
            for p_s, p_t in zip(student.parameters(), teacher.parameters()):
                p_t.data.mul_(momentum_teacher).add_((1 - momentum_teacher) * p_s.detach().data)
        print(f"iter {it}: loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
