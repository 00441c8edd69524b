"""Meta-Weight-Net: a small net maps each example's loss to a weight, learned so that one
virtual SGD step on the weighted loss lowers the loss on a clean meta set; labels are
partly corrupted.

Twin of buggy/meta_weight_net_meta_model_loaded_once.py, fixed as meta-weight-net's own
training loop does it: the meta model is loaded from the current model at the start of
every batch, so each virtual step starts from leaves and its graph lives for one batch.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class MetaMLP:
    """The virtual copy of the classifier: plain tensors, updated out of place."""

    def load(self, model):
        self.weights = [p.detach().clone().requires_grad_(True) for p in model.parameters()]

    def __call__(self, x):
        w1, b1, w2, b2 = self.weights
        return F.linear(F.relu(F.linear(x, w1, b1)), w2, b2)

    def update(self, grads, lr):
        self.weights = [w - lr * g for w, g in zip(self.weights, grads)]


def make_data(n, noise):
    x = torch.randn(n, 10)
    y = (x[:, 0] + x[:, 1] > 0).long()
    flip = torch.rand(n) < noise
    return x, torch.where(flip, 1 - y, y)


def main(steps=3, lr=0.1):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 2))
    vnet = nn.Sequential(nn.Linear(1, 16), nn.ReLU(), nn.Linear(16, 1), nn.Sigmoid())
    opt = torch.optim.SGD(model.parameters(), lr=lr)
    opt_v = torch.optim.Adam(vnet.parameters(), lr=1e-3)
    meta_x, meta_y = make_data(32, 0.0)
    meta_model = MetaMLP()
    for step in range(steps):
        x, y = make_data(64, 0.4)
        meta_model.load(model)
        cost = F.cross_entropy(meta_model(x), y, reduction="none").unsqueeze(1)
        l_f_meta = (cost * vnet(cost.detach())).mean()
        grads = torch.autograd.grad(l_f_meta, meta_model.weights, create_graph=True)
        meta_model.update(grads, lr)
        l_g_meta = F.cross_entropy(meta_model(meta_x), meta_y)
        opt_v.zero_grad()
        l_g_meta.backward()
        assert all(p.grad is not None for p in vnet.parameters())
        opt_v.step()

        cost = F.cross_entropy(model(x), y, reduction="none").unsqueeze(1)
        with torch.no_grad():
            w_new = vnet(cost)
        l_f = (cost * w_new).mean()
        opt.zero_grad()
        l_f.backward()
        opt.step()
        print(f"step {step}: meta loss {l_g_meta.item():.3f} weighted loss {l_f.item():.3f}")


if __name__ == "__main__":
    main()
