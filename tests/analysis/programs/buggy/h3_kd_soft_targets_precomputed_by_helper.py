"""Knowledge distillation with soft targets precomputed once for a fixed transfer set.

A helper runs the teacher over the transfer set batch by batch and concatenates the
softened outputs. It forgets ``torch.no_grad()`` and the teacher's parameters still
require grad, so the targets carry the teacher's graph: the student's first epoch
backwards through it (and frees it), the second epoch raises.

Real report of this mechanism: https://github.com/dmlc/dgl/issues/1046
The reporter's regression target had been constructed so that it required gradients, and the
second epoch's backward failed.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

TEMPERATURE = 3.0


def mlp(d_in, width, d_out):
    return nn.Sequential(nn.Linear(d_in, width), nn.ReLU(), nn.Linear(width, d_out))


def soft_targets(teacher, inputs, batch_size=16):
    teacher.eval()
    chunks = []
    for start in range(0, inputs.size(0), batch_size):
        logits = teacher(inputs[start : start + batch_size])
        chunks.append(F.softmax(logits / TEMPERATURE, dim=-1))
    return torch.cat(chunks)


def distill(student, teacher, transfer_x, epochs=3, batch_size=16, lr=5e-3):
    optimizer = torch.optim.Adam(student.parameters(), lr=lr)
    targets = soft_targets(teacher, transfer_x, batch_size)
    losses = []
    for epoch in range(epochs):
        perm = torch.randperm(transfer_x.size(0))
        x, t = transfer_x[perm], targets[perm]
        student_log_probs = F.log_softmax(student(x) / TEMPERATURE, dim=-1)
        loss = F.kl_div(student_log_probs, t, reduction="batchmean") * TEMPERATURE**2
        optimizer.zero_grad()
        loss.backward()  # error: [pre-loop-graph-backward]
        optimizer.step()
        losses.append(loss.item())
    return losses


def main():
    torch.manual_seed(0)
    teacher = mlp(8, 64, 5)
    student = mlp(8, 12, 5)
    transfer_x = torch.randn(48, 8)
    for epoch, value in enumerate(distill(student, teacher, transfer_x)):
        print(f"epoch {epoch}: kd loss {value:.4f}")


if __name__ == "__main__":
    main()
