"""Moving Semantic Transfer Network (MSTN) for unsupervised domain adaptation on toy
features: besides the source classification loss, a semantic loss aligns the moving
class centroids of the source features with those of the target features under
pseudo-labels.

Report: https://github.com/EasonApolo/mstn/issues/4 -- in the discussion of the
semantic loss, the author explains why the moving centroids are stored detached: "The
necessity of 'detach' is that the computing graph will continuously grow as we save last
centroid and use it in the next epoch." Stored without the detach, as here, the next
batch's centroids are built on the previous batch's graph, and the next backward runs
into what the previous one freed.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

CLASSES, DIM = 3, 16


class MSTN(nn.Module):
    def __init__(self, decay=0.3):
        super().__init__()
        self.features = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, DIM))
        self.classifier = nn.Linear(DIM, CLASSES)
        self.decay = decay
        self.s_centroid = torch.zeros(CLASSES, DIM)
        self.t_centroid = torch.zeros(CLASSES, DIM)

    def centroids(self, feats, labels):
        onehot = F.one_hot(labels, CLASSES).float()
        return (onehot.T @ feats) / onehot.sum(0).clamp(min=1).unsqueeze(1)

    def forward(self, xs, ys, xt):
        fs, ft = self.features(xs), self.features(xt)
        logits_s, logits_t = self.classifier(fs), self.classifier(ft)
        current_s = self.centroids(fs, ys)
        current_t = self.centroids(ft, logits_t.argmax(1))
        s_centroid = (1 - self.decay) * self.s_centroid + self.decay * current_s
        t_centroid = (1 - self.decay) * self.t_centroid + self.decay * current_t
        semantic_loss = F.mse_loss(s_centroid, t_centroid)
        self.s_centroid = s_centroid
        self.t_centroid = t_centroid
        return F.cross_entropy(logits_s, ys), semantic_loss


def main(steps=4):
    torch.manual_seed(0)
    model = MSTN()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    shift = torch.randn(8) * 0.5
    for step in range(steps):
        ys = torch.randint(CLASSES, (32,))
        xs = F.one_hot(ys, 8).float() + 0.3 * torch.randn(32, 8)
        xt = F.one_hot(torch.randint(CLASSES, (32,)), 8).float() + shift + 0.3 * torch.randn(32, 8)
        cls_loss, semantic_loss = model(xs, ys, xt)
        loss = cls_loss + 0.5 * semantic_loss
        optimizer.zero_grad()
        loss.backward()  # error: [carried-graph-backward]
        optimizer.step()
        print(f"step {step}: cls {cls_loss.item():.3f} semantic {semantic_loss.item():.4f}")


if __name__ == "__main__":
    main()
