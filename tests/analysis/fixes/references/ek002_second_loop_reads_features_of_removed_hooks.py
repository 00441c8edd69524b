"""Written by hand, as fastai's PR #761 fixed its notebook: the second loop registers its hooks
again, so every forward pass of the image being optimised refreshes the features its loss reads."""

import torch
from torch import nn


class SaveFeatures:
    features = None

    def __init__(self, module):
        self.hook = module.register_forward_hook(self.hook_fn)

    def hook_fn(self, module, inputs, output):
        self.features = output

    def close(self):
        self.hook.remove()


torch.manual_seed(0)
net = nn.Sequential(nn.Linear(6, 6), nn.Tanh(), nn.Linear(6, 6))
for p in net.parameters():
    p.requires_grad_(False)
saved = SaveFeatures(net[1])
target = torch.randn(1, 6)

image = torch.rand(1, 6).requires_grad_(True)
optimizer = torch.optim.Adam([image], lr=0.05)
for it in range(3):
    net(image)
    loss = (saved.features - target).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
saved.close()

saved = SaveFeatures(net[1])
image = torch.rand(1, 6).requires_grad_(True)
optimizer = torch.optim.Adam([image], lr=0.05)
for it in range(3):
    net(image)
    loss = (saved.features - target).pow(2).mean() + image.pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
