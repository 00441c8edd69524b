"""Self-training: a teacher fit on labelled data produces pseudo-labels and confidence weights
for unlabelled data once, inside ``torch.no_grad()``, before the student's loop; the student
then trains on them every epoch. Evaluation runs under ``@torch.inference_mode()``.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


def mlp():
    return nn.Sequential(nn.Linear(5, 24), nn.ReLU(), nn.Linear(24, 3))


def fit(model, x, y, epochs, weights=None, lr=1e-2):
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    for _ in range(epochs):
        losses = F.cross_entropy(model(x), y, reduction="none")
        loss = (losses * weights).mean() if weights is not None else losses.mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return loss.item()


@torch.inference_mode()
def accuracy(model, x, y):
    return (model(x).argmax(-1) == y).float().mean().item()


def main(threshold=0.5):
    torch.manual_seed(0)
    w = torch.randn(5, 3)
    x_lab = torch.randn(30, 5)
    y_lab = (x_lab @ w).argmax(-1)
    x_unl = torch.randn(90, 5)

    teacher = mlp()
    print("teacher", fit(teacher, x_lab, y_lab, epochs=15))
    with torch.no_grad():
        probs = F.softmax(teacher(x_unl), dim=-1)
        confidence, pseudo = probs.max(-1)
        weights = (confidence > threshold).float() * confidence

    student = mlp()
    optimizer = torch.optim.Adam(student.parameters(), lr=1e-2)
    for epoch in range(5):
        loss_u = (F.cross_entropy(student(x_unl), pseudo, reduction="none") * weights).mean()
        loss_l = F.cross_entropy(student(x_lab), y_lab)
        loss = loss_l + 0.5 * loss_u
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(epoch, round(loss.item(), 4), accuracy(student, x_lab, y_lab))


if __name__ == "__main__":
    main()
