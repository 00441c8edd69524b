"""Training with an exponential moving average of the weights (timm ModelEmaV2 style);
evaluation uses the EMA copy.
"""

import copy

import torch
import torch.nn as nn
import torch.nn.functional as F


class ModelEma(nn.Module):
    def __init__(self, model, decay=0.99):
        super().__init__()
        self.module = copy.deepcopy(model).eval()
        self.decay = decay
        for p in self.module.parameters():
            p.requires_grad_(False)

    @torch.no_grad()
    def update(self, model):
        for ema_v, model_v in zip(self.module.state_dict().values(), model.state_dict().values()):
            if ema_v.dtype.is_floating_point:
                ema_v.copy_(self.decay * ema_v + (1.0 - self.decay) * model_v)
            else:
                ema_v.copy_(model_v)


def main(epochs=2, steps=3):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 24), nn.BatchNorm1d(24), nn.ReLU(), nn.Linear(24, 2))
    ema = ModelEma(model)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, nesterov=True)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=epochs * steps)
    x_val, y_val = torch.randn(16, 6), torch.randint(0, 2, (16,))
    for epoch in range(epochs):
        model.train()
        for _ in range(steps):
            x = torch.randn(8, 6)
            y = (x[:, 0] > 0).long()
            loss = F.cross_entropy(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            scheduler.step()
            ema.update(model)
        with torch.no_grad():
            model.eval()
            acc = (model(x_val).argmax(1) == y_val).float().mean().item()
            ema_acc = (ema.module(x_val).argmax(1) == y_val).float().mean().item()
        print(f"epoch {epoch}: loss {loss.item():.4f} acc {acc:.3f} ema_acc {ema_acc:.3f}")


if __name__ == "__main__":
    main()
