"""Quantization-aware training with a custom straight-through fake-quant Function.

The quantized weight is produced once before the training loop and reused in every
step; the Function's saved tensors are freed by the first backward.

Real report of this mechanism: https://github.com/hiyoung123/SoftMaskedBert/issues/16
The model computes the [MASK] embedding from trainable layers once, in __init__, and uses it
in every forward; the fix given there detaches it.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class FakeQuantSTE(torch.autograd.Function):
    @staticmethod
    def forward(ctx, w, scale, bits):
        qmax = 2 ** (bits - 1) - 1
        q = torch.clamp(torch.round(w / scale), -qmax - 1, qmax)
        ctx.save_for_backward(w, scale)
        ctx.qmax = qmax
        return q * scale

    @staticmethod
    def backward(ctx, grad_out):
        w, scale = ctx.saved_tensors
        inside = (w / scale).abs() <= ctx.qmax
        return grad_out * inside, None, None


class QuantLinear(nn.Linear):
    def quantized_weight(self, bits=4):
        scale = self.weight.detach().abs().max() / (2 ** (bits - 1) - 1)
        return FakeQuantSTE.apply(self.weight, scale, bits)


def main():
    torch.manual_seed(0)
    layer1, layer2 = QuantLinear(8, 16), QuantLinear(16, 2)
    params = [*layer1.parameters(), *layer2.parameters()]
    optimizer = torch.optim.SGD(params, lr=0.05)
    x = torch.randn(40, 8)
    y = (x[:, 0] > 0).long()

    w1_q = layer1.quantized_weight()
    w2_q = layer2.quantized_weight()
    for epoch in range(3):
        for i in range(0, 40, 10):
            h = F.relu(F.linear(x[i : i + 10], w1_q, layer1.bias))
            logits = F.linear(h, w2_q, layer2.bias)
            loss = F.cross_entropy(logits, y[i : i + 10])
            optimizer.zero_grad()
            loss.backward()  # error: [pre-loop-graph-backward]
            optimizer.step()
        print(epoch, loss.item())


if __name__ == "__main__":
    main()
