"""Curriculum over three stages chosen by epoch: the loss is assigned in an ``if/elif``
chain with no ``else`` whose conditions cover every stage the schedule produces, so
every iteration computes a fresh loss (negative for issue 13, mechanism 3: a path that
keeps the previous iteration's loss cannot happen).
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

STAGES = ("easy", "medium", "hard")


def stage_for(epoch, epochs):
    return STAGES[min(epoch * len(STAGES) // epochs, len(STAGES) - 1)]


def main(epochs=6):
    torch.manual_seed(0)
    x = torch.randn(60, 8)
    y = (x[:, 0] * x[:, 1] > 0).long()
    difficulty = x.abs().sum(1)
    model = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 2))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    for epoch in range(epochs):
        stage = stage_for(epoch, epochs)
        logits = model(x)
        per_sample = F.cross_entropy(logits, y, reduction="none")
        if stage == "easy":
            loss = per_sample[difficulty < difficulty.median()].mean()
        elif stage == "medium":
            loss = per_sample.mean()
        elif stage == "hard":
            loss = (per_sample * difficulty / difficulty.mean()).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(f"epoch {epoch} stage {stage} loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
