"""Metric learning with a cross-batch memory that stores detached embeddings, as the
XBM algorithm does (https://github.com/bnu-wangxun/Deep_Metric/issues/45): the loss
compares the current batch's features, which carry the graph, with the memory's
constant ones.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class CrossBatchMemory:
    def __init__(self, size=64):
        self.size = size
        self.feats = []
        self.labels = []

    def enqueue(self, feats, labels):
        self.feats = (self.feats + [feats])[-self.size // feats.size(0) :]
        self.labels = (self.labels + [labels])[-self.size // feats.size(0) :]

    def get(self):
        return torch.cat(self.feats), torch.cat(self.labels)


def contrastive(anchors, a_labels, refs, r_labels, margin=0.5):
    sim = anchors @ refs.t()
    pos = (a_labels[:, None] == r_labels[None, :]).float()
    return ((1 - sim) * pos).sum() / pos.sum().clamp(min=1) + (F.relu(sim - margin) * (1 - pos)).mean()


def main(steps=4):
    torch.manual_seed(0)
    data = torch.randn(80, 10)
    labels = torch.arange(80) % 4
    encoder = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 8))
    optimizer = torch.optim.SGD(encoder.parameters(), lr=0.05)
    memory = CrossBatchMemory()
    for step in range(steps):
        idx = torch.randint(0, 80, (16,))
        feats = F.normalize(encoder(data[idx]), dim=1)
        memory.enqueue(feats.detach(), labels[idx])
        ref_feats, ref_labels = memory.get()
        loss = contrastive(feats, labels[idx], ref_feats, ref_labels)
        optimizer.zero_grad()
        loss.backward()
        assert encoder[0].weight.grad.abs().sum() > 0
        optimizer.step()
        print(f"step {step} loss {loss.item():.4f} memory {ref_feats.size(0)}")


if __name__ == "__main__":
    main()
