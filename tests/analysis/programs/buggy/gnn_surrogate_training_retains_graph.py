"""Two-layer GCN surrogate trained on a fixed graph before a structure attack, the way
the Metattack code trains its surrogate: the normalised adjacency is computed once from
the data and reused by every epoch.

Report: https://github.com/ChandlerBang/pytorch-gnn-meta-attack/issues/1 -- "Why use
retain_graph?": a backward in the outer training stage passed retain_graph=True, and the
reporter found that True or False makes no difference to the result; the author agreed
there is no need to keep the graph there, since it is the outer training stage. Each
epoch's loss is built afresh from the parameters and the (constant) adjacency.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


def normalized_adjacency(adj):
    adj = adj + torch.eye(adj.shape[0])
    deg = adj.sum(1).pow(-0.5)
    return deg[:, None] * adj * deg[None, :]


class GCN(nn.Module):
    def __init__(self, n_feat, n_hidden, n_class):
        super().__init__()
        self.w1 = nn.Parameter(torch.randn(n_feat, n_hidden) * 0.1)
        self.w2 = nn.Parameter(torch.randn(n_hidden, n_class) * 0.1)

    def forward(self, adj_norm, x):
        h = F.relu(adj_norm @ x @ self.w1)
        return adj_norm @ h @ self.w2


def train_surrogate(model, adj_norm, x, labels, idx_train, epochs=10):
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01, weight_decay=5e-4)
    for epoch in range(epochs):
        loss = F.cross_entropy(model(adj_norm, x)[idx_train], labels[idx_train])
        optimizer.zero_grad()
        loss.backward(retain_graph=True)  # error: [retain-graph-in-loop]
        optimizer.step()
        if epoch % 5 == 0:
            print(f"epoch {epoch}: loss {loss.item():.4f}")
    return model


def main(n=40):
    torch.manual_seed(0)
    labels = torch.randint(3, (n,))
    same = (labels[:, None] == labels[None, :]).float()
    adj = ((torch.rand(n, n) < 0.05 + 0.25 * same).float().triu(1))
    adj = adj + adj.T
    x = F.one_hot(labels, 3).float() + 0.8 * torch.randn(n, 3)
    adj_norm = normalized_adjacency(adj)
    model = train_surrogate(GCN(3, 16, 3), adj_norm, x, labels, torch.arange(n // 2))
    with torch.no_grad():
        acc = (model(adj_norm, x).argmax(1)[n // 2 :] == labels[n // 2 :]).float().mean()
    print(f"test accuracy {acc:.2f}")


if __name__ == "__main__":
    main()
