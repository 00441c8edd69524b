"""Two-target regression through a ``torch.compile``-wrapped helper (``backend="eager"``)
whose two outputs' losses are summed and backwarded once, so the shared backward graph
is traversed a single time (the situation of
https://github.com/pytorch/pytorch/issues/118739 avoided).
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Trunk(nn.Module):
    def __init__(self, d_in=6, hidden=24):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(d_in, hidden), nn.ReLU())
        self.proj = nn.Linear(hidden, 4)

    def forward(self, x):
        return self.proj(self.body(x))


@torch.compile(backend="eager")
def predict_targets(trunk, x):
    out = torch.tanh(trunk(x))
    return out.split(2, dim=1)


def main(steps=3):
    torch.manual_seed(0)
    x = torch.randn(40, 6)
    y_speed = torch.tanh(x[:, :2])
    y_angle = torch.tanh(x[:, 2:4] - x[:, 4:])
    trunk = Trunk()
    optimizer = torch.optim.Adam(trunk.parameters(), lr=1e-2)
    history = []
    for step in range(steps):
        optimizer.zero_grad()
        speed, angle = predict_targets(trunk, x)
        speed_loss = F.mse_loss(speed, y_speed)
        angle_loss = F.mse_loss(angle, y_angle)
        (speed_loss + angle_loss).backward()
        history.append(speed_loss.item() + angle_loss.item())
        optimizer.step()
        print(f"step {step} speed {speed_loss.item():.4f} angle {angle_loss.item():.4f}")

    assert history[-1] < history[0]


if __name__ == "__main__":
    main()
