"""Click-through-rate model in the DeepCTR-Torch layout: sparse feature embeddings feed a
DNN, and an L2 penalty on the embedding tables is added to the loss in fit().

Twin of buggy/deepctr_regularization_loss_built_in_init.py, fixed the way DeepCTR-Torch
v0.2.2 did it: the model records which weights are regularised, and fit() computes the
penalty from the current weights on every batch, so each backward has a graph of its
own and no retain_graph is needed.
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
        self.regularization_weight = [(list(self.embedding_dict.parameters()), l2_reg_embedding)]

    def get_regularization_loss(self):
        return sum(l2 * sum(torch.sum(w * w) for w in weights) for weights, l2 in self.regularization_weight)

    def forward(self, x):
        emb = torch.cat([self.embedding_dict[f"f{i}"](x[:, i]) for i in range(FIELDS)], dim=1)
        return self.dnn(emb).squeeze(1)

    def fit(self, x, y, batch_size=64, epochs=2):
        optim = torch.optim.Adagrad(self.parameters(), lr=0.05)
        for epoch in range(epochs):
            for start in range(0, len(x), batch_size):
                xb, yb = x[start : start + batch_size], y[start : start + batch_size]
                loss = F.binary_cross_entropy_with_logits(self(xb), yb)
                total_loss = loss + self.get_regularization_loss()
                optim.zero_grad()
                total_loss.backward()
                assert all(p.grad is not None for p in self.dnn.parameters())
                optim.step()
            print(f"epoch {epoch}: loss {loss.item():.4f}")


def main():
    torch.manual_seed(0)
    x = torch.randint(VOCAB, (256, FIELDS))
    y = ((x[:, 0] % 3 == 0) | (x[:, 2] > 20)).float()
    CTRModel().fit(x, y)


if __name__ == "__main__":
    main()
