"""DP-SGD-style training with per-sample gradients from ``torch.func`` (``grad`` + ``vmap``
over ``functional_call``): gradients are clipped per sample, noised and written to ``.grad``
by hand. No ``.backward()`` is involved; the parameters dict is rebuilt every step.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.func import functional_call, grad, vmap


def make_loss(model):
    def sample_loss(params, buffers, x, y):
        logits = functional_call(model, (params, buffers), (x.unsqueeze(0),))
        return F.cross_entropy(logits, y.unsqueeze(0))

    return sample_loss


def clip_and_noise(per_sample, max_norm, noise_mult, g):
    norms = torch.sqrt(sum(gr.flatten(1).pow(2).sum(1) for gr in per_sample.values()))
    factor = (max_norm / (norms + 1e-6)).clamp(max=1.0)
    out = {}
    for name, gr in per_sample.items():
        clipped = (gr * factor.view(-1, *[1] * (gr.dim() - 1))).sum(0)
        out[name] = (clipped + noise_mult * max_norm * torch.randn(clipped.shape, generator=g)) / gr.size(0)
    return out


def main(steps=5, bs=16):
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 3))
    x, y = torch.randn(64, 6, generator=g), torch.randint(0, 3, (64,), generator=g)
    per_sample_grad = vmap(grad(make_loss(model)), in_dims=(None, None, 0, 0))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for step in range(steps):
        idx = torch.randint(0, 64, (bs,), generator=g)
        params = {k: v.detach() for k, v in model.named_parameters()}
        buffers = {k: v.detach() for k, v in model.named_buffers()}
        grads = clip_and_noise(per_sample_grad(params, buffers, x[idx], y[idx]), 1.0, 0.5, g)
        for name, p in model.named_parameters():
            p.grad = grads[name]
        optimizer.step()
        with torch.no_grad():
            print(step, round(F.cross_entropy(model(x), y).item(), 4))


if __name__ == "__main__":
    main()
