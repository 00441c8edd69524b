"""Knowledge distillation with two KD terms built from ``functools.partial``.

Hidden-state KD and logit KD are backwarded separately; both flow through the
student's trunk, which the first backward already freed.

Real report of this mechanism: https://github.com/naver-ai/StyleMapGAN/issues/16
Two losses from one forward pass (adv_loss and w_rec_loss) are backwarded one after the
other and the second backward raises; the reporter backwarded their sum instead.
"""

import functools

import torch
import torch.nn as nn
import torch.nn.functional as F


def kd_logits(student_logits, teacher_logits, T):
    return F.kl_div(
        F.log_softmax(student_logits / T, dim=-1), F.softmax(teacher_logits / T, dim=-1), reduction="batchmean"
    ) * (T * T)


def kd_hidden(student_h, teacher_h, proj):
    return F.mse_loss(proj(student_h), teacher_h)


class Net(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(16, width), nn.ReLU(), nn.Linear(width, width), nn.ReLU())
        self.head = nn.Linear(width, 5)

    def forward(self, x):
        h = self.trunk(x)
        return h, self.head(h)


@torch.no_grad()
def teacher_forward(teacher, x):
    return teacher(x)


def main():
    torch.manual_seed(0)
    teacher, student = Net(48).eval(), Net(12)
    proj = nn.Linear(12, 48)
    logit_loss = functools.partial(kd_logits, T=4.0)
    hidden_loss = functools.partial(kd_hidden, proj=proj)
    optimizer = torch.optim.Adam([*student.parameters(), *proj.parameters()], lr=1e-3)
    x = torch.randn(64, 16)
    for epoch in range(2):
        for i in range(0, 64, 16):
            xb = x[i : i + 16]
            t_h, t_logits = teacher_forward(teacher, xb)
            s_h, s_logits = student(xb)
            optimizer.zero_grad()
            hidden_loss(s_h, t_h).backward()
            logit_loss(s_logits, t_logits).backward()  # error: [shared-graph-backward]
            optimizer.step()
        print("epoch", epoch)


if __name__ == "__main__":
    main()
