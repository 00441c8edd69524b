"""Streaming LSTM forecaster: consecutive windows of one long sine series, with the
``(h, c)`` state carried from window to window.

Report: https://github.com/MorvanZhou/PyTorch-Tutorial/issues/57 -- removing
``h_state = h_state.data`` from the RNN regression tutorial raised "Trying to backward
through the graph a second time"; the carried state must be cut from the previous
window's graph.

Here the LSTM returns the ``(h, c)`` tuple and the loop feeds it to the next window as is.
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
    for step, (x, y) in enumerate(windows(series, 20)):
        pred, state = model(x, state)
        loss = nn.functional.mse_loss(pred, y)
        optimizer.zero_grad()
        loss.backward()  # error: [carried-graph-backward]
        optimizer.step()
        print(f"window {step} loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
