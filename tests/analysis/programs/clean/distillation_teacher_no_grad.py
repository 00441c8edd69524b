"""Response-based knowledge distillation: a frozen teacher under no_grad, a student trained
on a single combined loss (hard labels + temperature-scaled KL).
"""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


def make_mlp(hidden):
    return nn.Sequential(nn.Linear(20, hidden), nn.ReLU(), nn.Linear(hidden, 5))


class DistillationLoss(nn.Module):
    def __init__(self, T=3.0, alpha=0.5):
        super().__init__()
        self.T, self.alpha = T, alpha

    def forward(self, student_logits, teacher_logits, labels):
        soft = (
            F.kl_div(
                F.log_softmax(student_logits / self.T, -1),
                F.log_softmax(teacher_logits / self.T, -1),
                reduction="batchmean",
                log_target=True,
            )
            * self.T**2
        )
        hard = F.cross_entropy(student_logits, labels)
        return self.alpha * soft + (1 - self.alpha) * hard, soft.detach(), hard.detach()


def distill(teacher, student, loader, epochs=2):
    teacher.eval()
    criterion = DistillationLoss()
    optimizer = torch.optim.Adam(student.parameters(), lr=1e-3)
    for epoch in range(epochs):
        student.train()
        soft_sum = hard_sum = 0.0
        for x, y in loader:
            with torch.no_grad():
                t_logits = teacher(x)
            s_logits = student(x)
            loss, soft, hard = criterion(s_logits, t_logits, y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            soft_sum += soft.item()
            hard_sum += hard.item()
        print(f"epoch {epoch}: soft {soft_sum / len(loader):.4f} hard {hard_sum / len(loader):.4f}")


if __name__ == "__main__":
    torch.manual_seed(0)
    data = TensorDataset(torch.randn(24, 20), torch.randint(0, 5, (24,)))
    distill(make_mlp(64), make_mlp(8), DataLoader(data, batch_size=8))
