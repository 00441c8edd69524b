"""A trainer that reads a long series in chunks and keeps the recurrent state on itself between
its training steps, updating it through a local name."""

import torch
from torch import nn


class Forecaster(nn.Module):
    def __init__(self, hidden=8):
        super().__init__()
        self.rnn = nn.RNN(1, hidden, batch_first=True)
        self.head = nn.Linear(hidden, 1)

    def forward(self, x, state):
        out, state = self.rnn(x, state)
        return self.head(out), state


class ChunkTrainer:
    def __init__(self, model):
        self.model = model
        self.optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
        self.state = torch.zeros(1, 2, 8)

    def training_step(self, chunk, target):
        prediction, state = self.model(chunk, self.state)
        loss = (prediction - target).pow(2).mean()
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        self.state = state.detach()  # the next chunk starts from it; its backward stops here
        return loss.item()


torch.manual_seed(0)
series = torch.sin(torch.linspace(0, 12, 2 * 41)).reshape(2, 41, 1)
trainer = ChunkTrainer(Forecaster())
for start in range(0, 40, 10):
    loss = trainer.training_step(series[:, start : start + 10], series[:, start + 1 : start + 11])
    print(f"chunk at {start}: loss {loss:.4f}")
