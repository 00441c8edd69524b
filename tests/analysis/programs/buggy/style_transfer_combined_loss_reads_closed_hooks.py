"""Neural style transfer with forward hooks that save a frozen CNN's block outputs.

Report: https://github.com/fastai/fastai/pull/761 -- fixes "RuntimeError: Trying to backward
through the graph a second time" in the course notebook courses/dl2/style-transfer.ipynb
"by reinitializing sfs". The notebook's style section closes its `SaveFeatures` hooks
(`for sf in sfs: sf.close()`); the combined style-and-content section then builds its loss
from `o.features for o in sfs` again. With the hooks removed, the forward pass no longer
refreshes `features`: they are the last style step's activations, whose graph that step's
backward freed.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class SaveFeatures:
    features = None

    def __init__(self, module):
        self.hook = module.register_forward_hook(self.hook_fn)

    def hook_fn(self, module, inputs, output):
        self.features = output

    def close(self):
        self.hook.remove()


def make_cnn():
    cnn = nn.Sequential(
        nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(16, 16, 3, padding=1), nn.ReLU(),
    )
    for p in cnn.parameters():
        p.requires_grad_(False)
    return cnn.eval()


def gram(x):
    b, c, h, w = x.shape
    flat = x.reshape(b * c, h * w)
    return flat @ flat.t() / x.numel()


def style_loss(outs, targets):
    return sum(F.mse_loss(gram(o), gram(t)) for o, t in zip(outs, targets))


def main(iters=4, size=16):
    torch.manual_seed(0)
    cnn = make_cnn()
    block_ends = [1, 4, 7]
    content_img = torch.rand(1, 3, size, size)
    style_img = torch.rand(1, 3, size, size)

    # Style only.
    sfs = [SaveFeatures(cnn[i]) for i in block_ends]
    cnn(content_img)
    targ_vs = [o.features.clone() for o in sfs]
    cnn(style_img)
    targ_styles = [o.features.clone() for o in sfs]
    opt_img = torch.rand(1, 3, size, size).requires_grad_(True)
    optimizer = torch.optim.Adam([opt_img], lr=0.05)
    for it in range(iters):
        cnn(opt_img)
        loss = style_loss([o.features for o in sfs], targ_styles)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(f"style only: {loss.item():.5f}")
    for sf in sfs:
        sf.close()

    # Style and content together.
    opt_img = torch.rand(1, 3, size, size).requires_grad_(True)
    optimizer = torch.optim.Adam([opt_img], lr=0.05)
    for it in range(iters):
        cnn(opt_img)
        outs = [o.features for o in sfs]
        loss = style_loss(outs, targ_styles) + 10.0 * F.mse_loss(outs[1], targ_vs[1])
        optimizer.zero_grad()
        loss.backward()  # error: [pre-loop-graph-backward]
        optimizer.step()
    print(f"combined: {loss.item():.5f}")
    for sf in sfs:
        sf.close()
    return opt_img.detach()


if __name__ == "__main__":
    main()
