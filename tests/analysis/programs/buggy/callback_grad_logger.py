"""A tiny callback-based training framework (Keras/HF style).

A GradientStatsCallback computes per-layer gradient norms with
torch.autograd.grad on the loss the trainer passes it after its own backward.
"""

from dataclasses import dataclass, field

import torch
from torch import nn


class Callback:
    def on_after_backward(self, trainer, loss):
        pass

    def on_epoch_end(self, trainer, epoch):
        pass


class PrintCallback(Callback):
    def on_epoch_end(self, trainer, epoch):
        print(f"epoch {epoch}: {trainer.state.losses[-1]:.4f}")


class GradientStatsCallback(Callback):
    def __init__(self):
        self.norms = []

    def on_after_backward(self, trainer, loss):
        named = [(n, p) for n, p in trainer.model.named_parameters() if p.requires_grad]
        grads = torch.autograd.grad(loss, [p for _, p in named], allow_unused=True)  # error: [double-backward]
        self.norms.append({n: g.norm().item() for (n, _), g in zip(named, grads) if g is not None})


@dataclass
class TrainState:
    step: int = 0
    losses: list = field(default_factory=list)


class Trainer:
    def __init__(self, model, optimizer, callbacks=()):
        self.model = model
        self.optimizer = optimizer
        self.callbacks = list(callbacks)
        self.state = TrainState()

    def train_step(self, x, y):
        self.optimizer.zero_grad()
        loss = nn.functional.binary_cross_entropy_with_logits(self.model(x).squeeze(-1), y)
        loss.backward()
        for cb in self.callbacks:
            cb.on_after_backward(self, loss)
        self.optimizer.step()
        self.state.step += 1
        return loss.item()

    def fit(self, x, y, epochs=2, batch_size=16):
        for epoch in range(epochs):
            for i in range(0, len(x), batch_size):
                self.state.losses.append(self.train_step(x[i : i + batch_size], y[i : i + batch_size]))
            for cb in self.callbacks:
                cb.on_epoch_end(self, epoch)


if __name__ == "__main__":
    torch.manual_seed(0)
    X = torch.randn(32, 5)
    Y = (X.sum(1) > 0).float()
    net = nn.Sequential(nn.Linear(5, 8), nn.GELU(), nn.Linear(8, 1))
    trainer = Trainer(
        net,
        torch.optim.RMSprop(net.parameters(), lr=1e-2),
        callbacks=[GradientStatsCallback(), PrintCallback()],
    )
    trainer.fit(X, Y)
