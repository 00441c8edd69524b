"""Neural style transfer with forward hooks that save a frozen CNN's block outputs.

Twin of buggy/style_transfer_combined_loss_reads_closed_hooks.py, fixed as fastai's PR #761
did, by reinitializing `sfs`: the combined section registers its hooks again, so every
forward pass of the image being optimised refreshes the features the loss reads.
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
    sfs = [SaveFeatures(cnn[i]) for i in block_ends]
    opt_img = torch.rand(1, 3, size, size).requires_grad_(True)
    optimizer = torch.optim.Adam([opt_img], lr=0.05)
    for it in range(iters):
        cnn(opt_img)
        outs = [o.features for o in sfs]
        loss = style_loss(outs, targ_styles) + 10.0 * F.mse_loss(outs[1], targ_vs[1])
        optimizer.zero_grad()
        loss.backward()
        assert opt_img.grad is not None and opt_img.grad.abs().sum() > 0
        optimizer.step()
    print(f"combined: {loss.item():.5f}")
    for sf in sfs:
        sf.close()
    return opt_img.detach()


if __name__ == "__main__":
    main()
