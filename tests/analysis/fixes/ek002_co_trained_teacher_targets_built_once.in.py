"""Co-train a teacher and a student with one optimizer: the teacher learns the labels, the student
learns the labels and the teacher's soft targets, computed once, in batches, before the epochs."""

import torch
import torch.nn as nn
import torch.nn.functional as F

TEMPERATURE = 2.0


def mlp(width):
    return nn.Sequential(nn.Linear(8, width), nn.ReLU(), nn.Linear(width, 4))


def soft_targets(teacher, inputs, batch_size=16):
    chunks = []
    for start in range(0, inputs.size(0), batch_size):
        logits = teacher(inputs[start : start + batch_size])
        chunks.append(F.softmax(logits / TEMPERATURE, dim=-1))
    return torch.cat(chunks)


torch.manual_seed(0)
teacher = mlp(32)
student = mlp(8)
optimizer = torch.optim.Adam(
    [{"params": student.parameters()}, {"params": teacher.parameters(), "lr": 5e-3}], lr=1e-2
)
inputs = torch.randn(32, 8)
labels = torch.randint(0, 4, (32,))
targets = soft_targets(teacher, inputs)
for epoch in range(5):
    teacher_loss = F.cross_entropy(teacher(inputs), labels)
    student_logits = student(inputs)
    log_probs = F.log_softmax(student_logits / TEMPERATURE, dim=-1)
    kd = F.kl_div(log_probs, targets, reduction="batchmean")
    loss = teacher_loss + F.cross_entropy(student_logits, labels) + kd
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(f"epoch {epoch}: loss {loss.item():.4f}")
