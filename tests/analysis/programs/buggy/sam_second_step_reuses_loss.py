"""Sharpness-Aware Minimization on a toy CIFAR-like problem.

SAM needs a second forward/backward at the perturbed weights; this script
reuses the loss from the first pass for the second step.

Real report of this mechanism: https://github.com/davda54/sam/issues/45
SAM's second pass is backwarded from the first forward pass (`criterion(output,
target).backward()`) instead of a new forward, and raises this error.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class SAM(torch.optim.Optimizer):
    def __init__(self, params, base_optimizer, rho=0.05, **kwargs):
        defaults = dict(rho=rho, **kwargs)
        super().__init__(params, defaults)
        self.base_optimizer = base_optimizer(self.param_groups, **kwargs)

    @torch.no_grad()
    def first_step(self):
        grad_norm = torch.norm(
            torch.stack(
                [p.grad.norm(2) for g in self.param_groups for p in g["params"] if p.grad is not None]
            )
        )
        for group in self.param_groups:
            scale = group["rho"] / (grad_norm + 1e-12)
            for p in group["params"]:
                if p.grad is None:
                    continue
                e_w = p.grad * scale
                p.add_(e_w)
                self.state[p]["e_w"] = e_w
        self.zero_grad()

    @torch.no_grad()
    def second_step(self):
        for group in self.param_groups:
            for p in group["params"]:
                if "e_w" in self.state[p]:
                    p.sub_(self.state[p]["e_w"])
        self.base_optimizer.step()
        self.zero_grad()


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.fc = nn.Linear(4 * 4 * 4, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv(x)), 2)
        return self.fc(x.flatten(1))


def train(model, optimizer, steps=3):
    for step in range(steps):
        images = torch.randn(8, 3, 8, 8)
        labels = torch.randint(0, 10, (8,))
        loss = F.cross_entropy(model(images), labels)
        loss.backward()
        optimizer.first_step()
        loss.backward()  # error: [double-backward]
        optimizer.second_step()
        print(step, loss.item())


if __name__ == "__main__":
    torch.manual_seed(0)
    net = SmallCNN()
    sam = SAM(net.parameters(), torch.optim.SGD, rho=0.05, lr=0.1, momentum=0.9)
    train(net, sam)
