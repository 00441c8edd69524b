"""Two optimisation loops over an image, reading a frozen network's features through forward hooks.
The first loop removes its hooks when it ends; the second still reads `features`, now the first
loop's last activations, a graph built before the second loop, which that loop's first backward
frees. Removing the second backward, or detaching the features, would leave the second loop's image
without any gradient: the hooks are registered again before the second loop, as fastai's fix of
its style-transfer notebook did (https://github.com/fastai/fastai/pull/761)."""

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

image = torch.rand(1, 6).requires_grad_(True)
optimizer = torch.optim.Adam([image], lr=0.05)
for it in range(3):
    net(image)
    loss = (saved.features - target).pow(2).mean() + image.pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
