"""Online anomaly scorer for a sensor stream: a GRUCell predicts the next reading.

The learner object keeps the recurrent state on self between update() calls and
takes one gradient step per incoming reading.

Real report of this mechanism: https://github.com/sgadgil6/cnslab_fmri/issues/4
An LSTM model that kept its hidden state on the module (`self.hidden`) and passed it into
the next batch raised this error; the fix stops passing the stored state.
"""

import torch
import torch.nn as nn


class StreamSource:
    def __init__(self, n=6, dim=3):
        t = torch.arange(n, dtype=torch.float32).unsqueeze(1)
        self.readings = torch.sin(t * 0.3 + torch.arange(dim)) + 0.05 * torch.randn(n, dim)
        self.i = 0

    def next(self):
        if self.i >= len(self.readings):
            return None
        r = self.readings[self.i]
        self.i += 1
        return r.unsqueeze(0)


class OnlinePredictor:
    def __init__(self, dim=3, hidden=8, lr=5e-3):
        self.cell = nn.GRUCell(dim, hidden)
        self.readout = nn.Linear(hidden, dim)
        params = list(self.cell.parameters()) + list(self.readout.parameters())
        self.optimizer = torch.optim.Adam(params, lr=lr)
        self.h = torch.zeros(1, hidden)
        self.prediction = None

    def update(self, reading):
        score = None
        if self.prediction is not None:
            loss = nn.functional.mse_loss(self.prediction, reading)
            self.optimizer.zero_grad()
            loss.backward()  # error: [carried-graph-backward]
            self.optimizer.step()
            score = loss.item()
        self.h = self.cell(reading, self.h)
        self.prediction = self.readout(self.h)
        return score


def main():
    torch.manual_seed(0)
    stream, learner = StreamSource(), OnlinePredictor()
    scores = []
    while True:
        reading = stream.next()
        if reading is None:
            break
        score = learner.update(reading)
        if score is not None:
            scores.append(score)
    print("anomaly scores:", [round(s, 4) for s in scores])


if __name__ == "__main__":
    main()
