"""Streaming LSTM forecaster that carries the ``(h, c)`` state between windows and cuts
both tensors of the tuple from the previous window's graph before the next window (the
``h_state = h_state.data`` step of
https://github.com/MorvanZhou/PyTorch-Tutorial/issues/57, written as ``detach`` for each
element of the tuple).
"""

import math

import torch
import torch.nn as nn


class Forecaster(nn.Module):
    def __init__(self, hidden=16):
        super().__init__()
        self.lstm = nn.LSTM(1, hidden, batch_first=True)
        self.head = nn.Linear(hidden, 1)

    def forward(self, x, state):
        out, state = self.lstm(x, state)
        return self.head(out), state


def windows(series, length):
    for start in range(0, series.numel() - length - 1, length):
        chunk = series[start : start + length + 1]
        yield chunk[:-1].view(1, -1, 1), chunk[1:].view(1, -1, 1)


def main():
    torch.manual_seed(0)
    t = torch.linspace(0, 8 * math.pi, 161)
    series = torch.sin(t) + 0.05 * torch.randn_like(t)
    model = Forecaster()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    state = None
    losses = []
    for step, (x, y) in enumerate(windows(series, 20)):
        pred, state = model(x, state)
        state = tuple(s.detach() for s in state)
        loss = nn.functional.mse_loss(pred, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        print(f"window {step} loss {loss.item():.4f}")

    assert min(losses[-3:]) < losses[0]


if __name__ == "__main__":
    main()
