"""Mixed-precision style loop on CPU with a homemade loss scaler.

The scaled loss is backwarded (through the scaler), then the original loss is
backwarded as well to compare unscaled gradients.

Real report of this mechanism: https://github.com/TingsongYu/PyTorch-Tutorial-2nd/issues/33
Calling backward() a second time on the same loss raises this error; the maintainer answers
that a second backward through one graph needs retain_graph=True on the first.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class StaticLossScaler:
    def __init__(self, scale=128.0):
        self.scale_value = scale

    def scale(self, loss):
        return loss * self.scale_value

    def unscale_(self, optimizer):
        for group in optimizer.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    p.grad.div_(self.scale_value)

    def step(self, optimizer):
        self.unscale_(optimizer)
        optimizer.step()


class ConvNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(2))
        self.head = nn.Linear(16, 5)

    def forward(self, x):
        return self.head(self.features(x).flatten(1))


def batches(n_batches=4, bs=8):
    g = torch.Generator().manual_seed(0)
    for _ in range(n_batches):
        yield torch.randn(bs, 1, 8, 8, generator=g), torch.randint(0, 5, (bs,), generator=g)


def main():
    torch.manual_seed(0)
    model = ConvNet()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    scaler = StaticLossScaler()
    check_unscaled = True
    for step, (x, y) in enumerate(batches()):
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast("cpu", dtype=torch.bfloat16):
            logits = model(x)
        loss = F.cross_entropy(logits.float(), y)
        scaler.scale(loss).backward()
        if check_unscaled and step == 0:
            scaled = [p.grad.clone() / scaler.scale_value for p in model.parameters()]
            model.zero_grad()
            loss.backward()  # error: [double-backward]
            diff = max((p.grad - s).abs().max().item() for p, s in zip(model.parameters(), scaled))
            print("max diff scaled vs unscaled:", diff)
        scaler.step(optimizer)
        print(f"step {step} loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
