"""Distil a fixed teacher into a smaller student; the teacher's soft targets are computed once,
in batches, before the student's epochs, and kept with the teacher's graph."""

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
optimizer = torch.optim.Adam(student.parameters(), lr=1e-2)
inputs = torch.randn(32, 8)
targets = soft_targets(teacher, inputs)
targets = targets.detach()
for epoch in range(5):
    log_probs = F.log_softmax(student(inputs) / TEMPERATURE, dim=-1)
    loss = F.kl_div(log_probs, targets, reduction="batchmean")
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(f"epoch {epoch}: kd loss {loss.item():.4f}")
