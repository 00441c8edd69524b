"""Few-shot episodes: adapt a linear head on the support set, then a prototype loss.

The head's adaptation gradient is taken with ``autograd.grad`` (first-order, no
``retain_graph``); the encoder's parameters were added to the inputs to log their
gradient norm, so that pass also frees the support embeddings' graph, which the
prototype loss backwards afterwards.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


def episode(g, n_way=3, k_shot=4, n_query=4, d=10):
    centers = torch.randn(n_way, d, generator=g) * 2
    support = centers.repeat_interleave(k_shot, 0) + torch.randn(n_way * k_shot, d, generator=g)
    query = centers.repeat_interleave(n_query, 0) + torch.randn(n_way * n_query, d, generator=g)
    ys = torch.arange(n_way).repeat_interleave(k_shot)
    yq = torch.arange(n_way).repeat_interleave(n_query)
    return support, ys, query, yq


def prototypes(emb, labels, n_way):
    return torch.stack([emb[labels == c].mean(0) for c in range(n_way)])


def main(n_way=3, episodes=3, inner_lr=0.5):
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(0)
    encoder = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 16))
    head = nn.Linear(16, n_way)
    optimizer = torch.optim.Adam([*encoder.parameters(), *head.parameters()], lr=1e-3)
    for ep in range(episodes):
        support, ys, query, yq = episode(g, n_way)
        emb_s = encoder(support)
        head_loss = F.cross_entropy(head(emb_s), ys)
        grads = torch.autograd.grad(head_loss, [head.weight, head.bias, *encoder.parameters()])
        grad_w, grad_b = grads[:2]
        enc_grad_norm = torch.sqrt(sum(g.pow(2).sum() for g in grads[2:]))
        with torch.no_grad():
            head.weight -= inner_lr * grad_w
            head.bias -= inner_lr * grad_b
        protos = prototypes(emb_s, ys, n_way)
        emb_q = encoder(query)
        proto_loss = F.cross_entropy(-torch.cdist(emb_q, protos), yq)
        optimizer.zero_grad()
        proto_loss.backward()  # error: [shared-graph-backward]
        optimizer.step()
        print(ep, head_loss.item(), proto_loss.item(), enc_grad_norm.item())


if __name__ == "__main__":
    main()
