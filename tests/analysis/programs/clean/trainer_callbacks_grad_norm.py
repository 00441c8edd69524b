"""A small callback-driven trainer (Keras/HF style). Callbacks read gradients from p.grad after the
single backward, log loss.item(), and implement early stopping and checkpointing.
"""

import copy
from dataclasses import dataclass, field

import torch
from torch import nn


@dataclass
class State:
    epoch: int = 0
    step: int = 0
    history: list = field(default_factory=list)
    should_stop: bool = False


class GradNormLogger:
    def __init__(self):
        self.norms = []

    def on_after_backward(self, trainer, loss):
        grads = [p.grad.detach().norm() for p in trainer.model.parameters() if p.grad is not None]
        self.norms.append(torch.stack(grads).norm().item())

    def on_epoch_end(self, trainer):
        pass


class EarlyStopping:
    def __init__(self, patience=1):
        self.patience, self.best, self.bad, self.best_state = patience, float("inf"), 0, None

    def on_after_backward(self, trainer, loss):
        pass

    def on_epoch_end(self, trainer):
        current = trainer.state.history[-1]
        if current < self.best:
            self.best, self.bad = current, 0
            self.best_state = copy.deepcopy(trainer.model.state_dict())
        else:
            self.bad += 1
            trainer.state.should_stop = self.bad > self.patience


class Trainer:
    def __init__(self, model, optimizer, loss_fn, callbacks=()):
        self.model, self.optimizer, self.loss_fn = model, optimizer, loss_fn
        self.callbacks = list(callbacks)
        self.state = State()

    def training_step(self, x, y):
        self.optimizer.zero_grad()
        loss = self.loss_fn(self.model(x), y)
        loss.backward()
        for cb in self.callbacks:
            cb.on_after_backward(self, loss)
        self.optimizer.step()
        self.state.step += 1
        return loss.item()

    def fit(self, batches, max_epochs=3):
        for epoch in range(max_epochs):
            self.state.epoch = epoch
            losses = [self.training_step(x, y) for x, y in batches]
            self.state.history.append(sum(losses) / len(losses))
            for cb in self.callbacks:
                cb.on_epoch_end(self)
            if self.state.should_stop:
                break
        return self.state


if __name__ == "__main__":
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
    logger = GradNormLogger()
    trainer = Trainer(model, torch.optim.Adam(model.parameters(), lr=1e-2), nn.MSELoss(),
                      callbacks=[logger, EarlyStopping()])
    state = trainer.fit([(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(2)])
    print(state.history, [round(n, 3) for n in logger.norms])
