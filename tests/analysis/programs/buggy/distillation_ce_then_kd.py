"""Knowledge distillation (Hinton et al.) from a frozen teacher to a small student.

The teacher is correctly evaluated under no_grad; the student's hard-label
and soft-label losses are backpropagated one after the other.

Real report of this mechanism: https://github.com/naver-ai/StyleMapGAN/issues/16
Two losses from one forward pass (adv_loss and w_rec_loss) are backwarded one after the
other and the second backward raises; the reporter backwarded their sum instead.
"""

import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


def kd_loss(student_logits, teacher_logits, T):
    return F.kl_div(
        F.log_softmax(student_logits / T, dim=1), F.softmax(teacher_logits / T, dim=1), reduction="batchmean"
    ) * (T * T)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--temperature", type=float, default=4.0)
    parser.add_argument("--alpha", type=float, default=0.7)
    parser.add_argument("--steps", type=int, default=3)
    args = parser.parse_args(args=[])

    torch.manual_seed(0)
    teacher = nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 10)).eval()
    student = nn.Sequential(nn.Linear(16, 8), nn.ReLU(), nn.Linear(8, 10))
    optimizer = torch.optim.SGD(student.parameters(), lr=0.05, momentum=0.9)

    for step in range(args.steps):
        x = torch.randn(12, 16)
        y = torch.randint(0, 10, (12,))
        with torch.no_grad():
            t_logits = teacher(x)
        s_logits = student(x)
        hard = (1 - args.alpha) * F.cross_entropy(s_logits, y)
        soft = args.alpha * kd_loss(s_logits, t_logits, args.temperature)

        optimizer.zero_grad()
        hard.backward()
        soft.backward()  # error: [shared-graph-backward]
        optimizer.step()
        print(f"step {step}: hard {hard.item():.3f} soft {soft.item():.3f}")


if __name__ == "__main__":
    main()
