"""A detector's training loop that scales its loss weights by how many output layers its head has,
read from the last module of the model's ``nn.Sequential`` (``hyp["box"] *= 3 / nl``), before the
loop. ``nl`` is an int attribute of the head module, not a parameter: the weights stay floats and
every iteration builds and frees its own graph (negative for issue 13, mechanism 2: an attribute
of a module the checker does not follow is unknown, not a parameter). Written from
ultralytics/yolov5's train.py (https://github.com/ultralytics/yolov5/blob/master/train.py,
"nl = de_parallel(model).model[-1].nl" and the ``hyp[...] *=`` lines after it), where the checker
took ``nl`` for a parameter and reported the working loop's backward as reaching a freed graph.
"""

import torch
import torch.nn as nn


class Head(nn.Module):
    def __init__(self, channels, anchors):
        super().__init__()
        self.nl = len(anchors)  # number of output layers: an int
        self.conv = nn.Conv1d(channels, 3 * self.nl, 1)

    def forward(self, x):
        return self.conv(x)


class Detector(nn.Module):
    def __init__(self, channels=4, anchors=((1, 2), (3, 4), (5, 6))):
        super().__init__()
        self.model = nn.Sequential(nn.Conv1d(channels, channels, 3, padding=1), nn.ReLU(), Head(channels, anchors))

    def forward(self, x):
        return self.model(x)


def train(hyp, steps=3):
    torch.manual_seed(0)
    model = Detector()
    nl = model.model[-1].nl  # number of detection layers (to scale hyps)
    hyp["box"] *= 3 / nl
    hyp["obj"] *= (16 / 640) ** 2 * 3 / nl
    optimizer = torch.optim.SGD(model.parameters(), lr=hyp["lr0"])
    for _ in range(steps):
        x = torch.randn(2, 4, 16)
        out = model(x)
        loss = hyp["box"] * out[:, :3].pow(2).mean() + hyp["obj"] * out[:, 3:].abs().mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return loss.item()


if __name__ == "__main__":
    print(train({"box": 0.05, "obj": 1.0, "lr0": 0.01}))
