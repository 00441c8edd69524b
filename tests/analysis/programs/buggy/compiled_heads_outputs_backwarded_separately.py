"""Two-target regression where a ``torch.compile``-wrapped helper projects shared
features and splits them into the two targets' predictions.

Report: https://github.com/pytorch/pytorch/issues/118739 -- calling ``backward`` on each
output of a compiled ``split``/``unbind`` one after the other raised "Trying to backward
through the graph a second time": the outputs share one backward graph, freed by the
first call.

Here the two outputs of the compiled helper share the trunk and the projection (and the
``tanh`` that saves its result), and their losses are backwarded one after the other.
The helper is compiled with ``backend="eager"`` (TorchDynamo capture without inductor
code generation) so the program runs in seconds on CPU.
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
    for step in range(steps):
        optimizer.zero_grad()
        speed, angle = predict_targets(trunk, x)
        speed_loss = F.mse_loss(speed, y_speed)
        angle_loss = F.mse_loss(angle, y_angle)
        speed_loss.backward()
        angle_loss.backward()  # error: [shared-graph-backward]
        optimizer.step()
        print(f"step {step} speed {speed_loss.item():.4f} angle {angle_loss.item():.4f}")


if __name__ == "__main__":
    main()
