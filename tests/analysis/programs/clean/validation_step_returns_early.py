"""A `step` function that serves both training and validation: it returns early in eval mode
(no backward), otherwise backpropagates once; a warm-up branch trains only the head.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(6, 16), nn.ReLU())
        self.head = nn.Linear(16, 3)

    def forward(self, x):
        return self.head(self.body(x))


def step(model, batch, optimizer=None, head_only=False):
    x, y = batch
    if optimizer is None:
        with torch.no_grad():
            logits = model(x)
            return F.cross_entropy(logits, y).item(), (logits.argmax(1) == y).float().mean().item()
    logits = model(x)
    loss = F.cross_entropy(logits, y)
    optimizer.zero_grad()
    if head_only:
        feats = model.body(x).detach()
        head_loss = F.cross_entropy(model.head(feats), y)
        head_loss.backward()
        optimizer.step()
        return head_loss.item(), None
    loss.backward()
    optimizer.step()
    return loss.item(), None


def main(epochs=3, warmup=1):
    torch.manual_seed(0)
    model = Net()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    train = [(torch.randn(8, 6), torch.randint(0, 3, (8,))) for _ in range(2)]
    val = [(torch.randn(8, 6), torch.randint(0, 3, (8,)))]
    for epoch in range(epochs):
        model.train()
        for batch in train:
            train_loss, _ = step(model, batch, optimizer, head_only=epoch < warmup)
        model.eval()
        val_loss, val_acc = step(model, val[0])
        print(f"epoch {epoch}: train {train_loss:.4f} val {val_loss:.4f} acc {val_acc:.3f}")


if __name__ == "__main__":
    main()
