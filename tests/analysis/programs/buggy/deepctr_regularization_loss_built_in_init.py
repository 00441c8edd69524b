"""Click-through-rate model in the DeepCTR-Torch layout: sparse feature embeddings feed a
DNN, and an L2 penalty on the embedding tables is added to the loss in fit().

Report: https://github.com/shenweichen/DeepCTR-Torch/issues/69 -- "Why enable
retain_graph in backward?": fit() called total_loss.backward(retain_graph=True) because,
as the answer explains, total_loss = loss + self.reg_loss and self.reg_loss is built
from the embedding weights once, when the model is constructed; the maintainers then
changed how reg_loss is computed (v0.2.2) and removed retain_graph. Without the retain,
as here, the second batch backwards the penalty's graph again after the first freed it.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

FIELDS, VOCAB, DIM = 4, 30, 8


class CTRModel(nn.Module):
    def __init__(self, l2_reg_embedding=1e-4):
        super().__init__()
        self.embedding_dict = nn.ModuleDict({f"f{i}": nn.Embedding(VOCAB, DIM) for i in range(FIELDS)})
        self.dnn = nn.Sequential(nn.Linear(FIELDS * DIM, 32), nn.ReLU(), nn.Linear(32, 1))
        self.reg_loss = torch.zeros(())
        self.add_regularization_loss(self.embedding_dict.parameters(), l2_reg_embedding)

    def add_regularization_loss(self, weights, l2):
        self.reg_loss = self.reg_loss + l2 * sum(torch.sum(w * w) for w in weights)

    def forward(self, x):
        emb = torch.cat([self.embedding_dict[f"f{i}"](x[:, i]) for i in range(FIELDS)], dim=1)
        return self.dnn(emb).squeeze(1)

    def fit(self, x, y, batch_size=64, epochs=2):
        optim = torch.optim.Adagrad(self.parameters(), lr=0.05)
        for epoch in range(epochs):
            for start in range(0, len(x), batch_size):
                xb, yb = x[start : start + batch_size], y[start : start + batch_size]
                loss = F.binary_cross_entropy_with_logits(self(xb), yb)
                total_loss = loss + self.reg_loss
                optim.zero_grad()
                total_loss.backward()  # error: [pre-loop-graph-backward]
                optim.step()
            print(f"epoch {epoch}: loss {loss.item():.4f}")


def main():
    torch.manual_seed(0)
    x = torch.randint(VOCAB, (256, FIELDS))
    y = ((x[:, 0] % 3 == 0) | (x[:, 2] > 20)).float()
    CTRModel().fit(x, y)


if __name__ == "__main__":
    main()
