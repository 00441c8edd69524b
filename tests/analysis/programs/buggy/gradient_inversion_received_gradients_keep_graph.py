"""Gradient inversion against federated learning (DLG-style): the server receives a
client's gradient for one private example and reconstructs the example by optimising
dummy data until the dummy gradient matches the received one.

Report: https://github.com/Koukyosyumei/AIJack/issues/159 -- running the single-sample
reconstruction of the gradient-based model inversion attack raised "Trying to backward
through the graph a second time" after the client's local iteration, at the attack's
distance.backward(retain_graph=False); the maintainer fixed it. The dummy side of the
distance is rebuilt on every attack iteration, so what reaches a freed graph is the
received side: here the client hands over gradients taken with create_graph=True, still
attached to its own forward pass, and every distance.backward() runs into that graph.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


def client_update(model, x, y):
    loss = F.cross_entropy(model(x), y)
    return torch.autograd.grad(loss, list(model.parameters()), create_graph=True)


def attack(model, received, shape, n_classes, iters=6, lr=0.1):
    dummy_x = torch.randn(shape, requires_grad=True)
    dummy_y = torch.randn(1, n_classes, requires_grad=True)
    optimizer = torch.optim.Adam([dummy_x, dummy_y], lr=lr)
    for it in range(iters):
        optimizer.zero_grad()
        pred = model(dummy_x)
        dummy_loss = torch.sum(-F.softmax(dummy_y, -1) * F.log_softmax(pred, -1))
        dummy_grads = torch.autograd.grad(dummy_loss, list(model.parameters()), create_graph=True)
        distance = sum(((dg - rg) ** 2).sum() for dg, rg in zip(dummy_grads, received))
        distance.backward(retain_graph=False)  # error: [pre-loop-graph-backward]
        optimizer.step()
        print(f"attack iteration {it}: gradient distance {distance.item():.4f}")
    return dummy_x.detach(), dummy_y.detach().softmax(-1)


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(12, 16), nn.Sigmoid(), nn.Linear(16, 4))
    private_x, private_y = torch.randn(1, 12), torch.tensor([2])
    received = client_update(model, private_x, private_y)
    x_hat, y_hat = attack(model, received, (1, 12), 4)
    print("recovered label", int(y_hat.argmax()), "error", float((x_hat - private_x).norm()))


if __name__ == "__main__":
    main()
