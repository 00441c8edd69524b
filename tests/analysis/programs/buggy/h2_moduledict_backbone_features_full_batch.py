"""Full-batch training of a multi-head model stored in an ``nn.ModuleDict``.

The backbone's features are computed once for the whole (small) dataset before the
epoch loop to "save compute", although the backbone is being trained too.

Real report of this mechanism: https://github.com/lucidrains/denoising-diffusion-pytorch/issues/109
A trainable conv1D applied to the data once, outside the training loop, made the second
loss.backward() raise.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


def build_model(d_in=12, d_hidden=24, n_classes=4):
    return nn.ModuleDict(
        {
            "backbone": nn.Sequential(nn.Linear(d_in, d_hidden), nn.LayerNorm(d_hidden), nn.GELU()),
            "cls": nn.Linear(d_hidden, n_classes),
            "reg": nn.Linear(d_hidden, 1),
        }
    )


def make_data(n=80, d_in=12, n_classes=4):
    g = torch.Generator().manual_seed(0)
    x = torch.randn(n, d_in, generator=g)
    y_cls = torch.randint(0, n_classes, (n,), generator=g)
    y_reg = x[:, :3].sum(-1, keepdim=True)
    return x, y_cls, y_reg


def train(model, x, y_cls, y_reg, epochs=4, reg_weight=0.5):
    optimizer = torch.optim.Adam(model.parameters(), lr=5e-3)
    features = model["backbone"](x)
    history = []
    for epoch in range(epochs):
        logits = model["cls"](features)
        value = model["reg"](features)
        loss = F.cross_entropy(logits, y_cls) + reg_weight * F.mse_loss(value, y_reg)
        optimizer.zero_grad()
        loss.backward()  # error: [pre-loop-graph-backward]
        optimizer.step()
        history.append(loss.item())
    return history


def evaluate(model, x, y_cls):
    with torch.no_grad():
        pred = model["cls"](model["backbone"](x)).argmax(-1)
    return (pred == y_cls).float().mean().item()


if __name__ == "__main__":
    torch.manual_seed(0)
    data = make_data()
    model = build_model()
    print(train(model, *data))
    print("acc", evaluate(model, data[0], data[1]))
