"""Layer-wise relevance propagation through a linear layer: the layer's weight and its stored
input are split into their positive and negative parts, and a helper takes ``autograd.grad`` of
each part's output with respect to that part's input, once for the activators and once for the
inhibitors. Each grad runs only the part of the graph that leads to its input (the new linear
node), so the clamped weights' nodes, reused by the second call, are never freed and the program
runs (negative for issue 13: what a grad whose inputs the checker cannot see frees is not the
whole graph of its outputs). Written from hila-chefer/Transformer-Explainability's
modules/layers_lrp.py (https://github.com/hila-chefer/Transformer-Explainability/blob/main/modules/layers_lrp.py,
``Linear.relprop``: "C1 = x1 * torch.autograd.grad(Z1, x1, S1)[0]"), where the checker took
each grad to free the clamped weights and reported both grads as reaching a freed graph.
"""

import torch
import torch.nn.functional as F
from torch import nn


class Linear(nn.Linear):
    def relprop(self, relevance, alpha=2.0):
        beta = alpha - 1
        pw = torch.clamp(self.weight, min=0)
        nw = torch.clamp(self.weight, max=0)
        px = torch.clamp(self.X, min=0)
        nx = torch.clamp(self.X, max=0)

        def f(w1, w2, x1, x2):
            z1 = F.linear(x1, w1)
            z2 = F.linear(x2, w2)
            c1 = x1 * torch.autograd.grad(z1, x1, relevance / (z1 + 1e-9))[0]
            c2 = x2 * torch.autograd.grad(z2, x2, relevance / (z2 - 1e-9))[0]
            return c1 + c2

        activators = f(pw, nw, px, nx)
        inhibitors = f(nw, pw, px, nx)
        return alpha * activators - beta * inhibitors


torch.manual_seed(0)
layer = Linear(4, 3)
layer.X = torch.randn(2, 4, requires_grad=True)
relevance = layer.relprop(torch.ones(2, 3))
print(relevance.shape)
