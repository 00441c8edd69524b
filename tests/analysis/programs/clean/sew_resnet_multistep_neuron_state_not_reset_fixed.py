"""Spike-element-wise residual network (SEW-ResNet style) on toy event frames, with a
multi-step LIF neuron implemented as a custom autograd function over the whole time
sequence; the neurons keep their membrane potential as module state, as spikingjelly's
memory modules do.

Twin of buggy/sew_resnet_multistep_neuron_state_not_reset.py, fixed as the maintainer
says: every neuron's state is reset after each batch's backward (spikingjelly's
functional.reset_net), so each batch starts from a fresh membrane potential.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class MultiStepLIF(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x_seq, v_init, tau, v_th):
        h_seq, spike_seq, v = [], [], v_init
        for x in x_seq:
            h = v + (x - v) / tau
            spike = (h >= v_th).float()
            v = h * (1 - spike)
            h_seq.append(h)
            spike_seq.append(spike)
        h_seq, spike_seq = torch.stack(h_seq), torch.stack(spike_seq)
        ctx.save_for_backward(h_seq, spike_seq)
        ctx.tau, ctx.v_th = tau, v_th
        return spike_seq, v

    @staticmethod
    def backward(ctx, grad_spike_seq, grad_v):
        h_seq, spike_seq = ctx.saved_tensors
        surrogate = 1.0 / (1 + (4.0 * (h_seq - ctx.v_th)) ** 2)
        grad_h, grad_x = grad_v, []
        for t in reversed(range(h_seq.shape[0])):
            grad_h = grad_spike_seq[t] * surrogate[t] + grad_h * (1 - spike_seq[t])
            grad_x.append(grad_h / ctx.tau)
            grad_h = grad_h * (1 - 1 / ctx.tau)
        return torch.stack(grad_x[::-1]), grad_h, None, None


class LIFNode(nn.Module):
    def __init__(self, tau=2.0, v_th=1.0):
        super().__init__()
        self.tau, self.v_th, self.v = tau, v_th, 0.0

    def forward(self, x_seq):
        v_init = torch.zeros_like(x_seq[0]) + self.v
        spikes, self.v = MultiStepLIF.apply(x_seq, v_init, self.tau, self.v_th)
        return spikes

    def reset(self):
        self.v = 0.0


class SEWBlock(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.fc, self.sn = nn.Linear(dim, dim), LIFNode()

    def forward(self, s_seq):
        return s_seq + self.sn(self.fc(s_seq))


def main(batches=3, steps=6):
    torch.manual_seed(0)
    stem, stem_sn = nn.Linear(10, 16), LIFNode()
    blocks, head = nn.Sequential(SEWBlock(16), SEWBlock(16)), nn.Linear(16, 2)
    params = [*stem.parameters(), *blocks.parameters(), *head.parameters()]
    optimizer = torch.optim.SGD(params, lr=0.1)
    for batch in range(batches):
        labels = torch.randint(2, (8,))
        frames = (torch.rand(steps, 8, 10) < 0.2 + 0.5 * labels[None, :, None]).float()
        out = head(blocks(stem_sn(stem(frames))).mean(0))
        loss = F.cross_entropy(out, labels)
        optimizer.zero_grad()
        loss.backward()
        assert all(p.grad is not None for p in params)
        optimizer.step()
        for node in [stem_sn, *(block.sn for block in blocks)]:
            node.reset()
        print(f"batch {batch}: loss {loss.item():.3f}")


if __name__ == "__main__":
    main()
