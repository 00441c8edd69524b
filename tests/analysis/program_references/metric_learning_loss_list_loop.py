"""Person re-ID style metric learning: triplet loss + ID classification on shared embeddings.

The losses are collected in a dict, each scaled separately, and backpropagated once, summed.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Embedder(nn.Module):
    def __init__(self, d_in=20, d_emb=8, n_ids=4):
        super().__init__()
        self.backbone = nn.Sequential(
            nn.Linear(d_in, 32), nn.BatchNorm1d(32), nn.ReLU(), nn.Linear(32, d_emb)
        )
        self.id_head = nn.Linear(d_emb, n_ids)

    def forward(self, x):
        emb = self.backbone(x)
        return F.normalize(emb, dim=1), self.id_head(emb)


def batch_hard_triplet(emb, labels, margin=0.3):
    dist = torch.cdist(emb, emb)
    same = labels.unsqueeze(0) == labels.unsqueeze(1)
    hardest_pos = (dist * same.float()).max(1).values
    hardest_neg = (dist + 1e5 * same.float()).min(1).values
    return F.relu(hardest_pos - hardest_neg + margin).mean()


def main():
    torch.manual_seed(0)
    model = Embedder()
    optimizer = torch.optim.Adam(model.parameters(), lr=3.5e-4, weight_decay=5e-4)
    scales = {"triplet": 1.0, "id": 0.5}
    for it in range(3):
        labels = torch.arange(4).repeat_interleave(3)
        x = torch.randn(12, 20) + labels.unsqueeze(1).float()
        emb, logits = model(x)
        losses = {
            "triplet": batch_hard_triplet(emb, labels),
            "id": F.cross_entropy(logits, labels, label_smoothing=0.1),
        }
        optimizer.zero_grad()
        sum(scales[name] * loss for name, loss in losses.items()).backward()
        optimizer.step()
        print(it, {k: round(v.item(), 4) for k, v in losses.items()})


if __name__ == "__main__":
    main()
