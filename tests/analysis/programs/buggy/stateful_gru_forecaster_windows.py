"""Stateful GRU forecaster trained on consecutive windows of one long series.

Keras users will recognise `stateful=True`: the final hidden state of one window
initialises the next. Here it is passed on without detaching.

Real report of this mechanism: https://github.com/MorvanZhou/PyTorch-Tutorial/issues/57
The tutorial's RNN raises this error once `h_state = h_state.data` is removed, i.e. when the
hidden state returned for one batch is fed into the next batch with its graph.
"""

import numpy as np
import torch
import torch.nn as nn


def make_series(n=80):
    t = np.arange(n, dtype=np.float32)
    return np.sin(0.2 * t) + 0.1 * np.random.randn(n).astype(np.float32)


class Forecaster(nn.Module):
    def __init__(self, hidden=10, num_layers=2):
        super().__init__()
        self.gru = nn.GRU(1, hidden, num_layers=num_layers, batch_first=True)
        self.head = nn.Linear(hidden, 1)

    def forward(self, x, h=None):
        out, h = self.gru(x, h)
        return self.head(out), h


def windows(series, length):
    for start in range(0, len(series) - length - 1, length):
        chunk = torch.from_numpy(series[start : start + length + 1]).view(1, -1, 1)
        yield chunk[:, :-1], chunk[:, 1:]


def fit(model, series, epochs=2, window=10, max_windows=3):
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    loss_fn = nn.MSELoss()
    for epoch in range(epochs):
        h = None
        losses = []
        for i, (x, y) in enumerate(windows(series, window)):
            if i >= max_windows:
                break
            pred, h = model(x, h)
            loss = loss_fn(pred, y)
            optimizer.zero_grad()
            loss.backward()  # error: [carried-graph-backward]
            optimizer.step()
            losses.append(loss.item())
        print(f"epoch {epoch}: mse {np.mean(losses):.4f}")


if __name__ == "__main__":
    np.random.seed(0)
    torch.manual_seed(0)
    fit(Forecaster(), make_series())
