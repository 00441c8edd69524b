"""Gradient-norm regularisation (Drucker & LeCun "double backpropagation"): the input-gradient norm
of the loss is added to the loss via autograd.grad(create_graph=True), then one backward.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(10, 32), nn.Softplus(), nn.Linear(32, 4))

    def forward(self, x):
        return self.net(x)


def train(model, optimizer, batches, reg=0.1):
    for epoch in range(2):
        for x, y in batches:
            x = x.requires_grad_(True)
            ce = F.cross_entropy(model(x), y)
            (grad_x,) = torch.autograd.grad(ce, x, create_graph=True)
            penalty = grad_x.pow(2).sum(1).mean()
            loss = ce + reg * penalty
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print(f"epoch {epoch}: ce {ce.item():.4f} penalty {penalty.item():.5f}")


if __name__ == "__main__":
    torch.manual_seed(0)
    model = Classifier()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    batches = [(torch.randn(8, 10), torch.randint(0, 4, (8,))) for _ in range(2)]
    train(model, optimizer, batches)
    with torch.no_grad():
        x, y = batches[0]
        print("acc", (model(x).argmax(1) == y).float().mean().item())
