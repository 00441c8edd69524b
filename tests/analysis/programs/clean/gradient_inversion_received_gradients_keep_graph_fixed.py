"""Gradient inversion against federated learning (DLG-style): the server receives a
client's gradient for one private example and reconstructs the example by optimising
dummy data until the dummy gradient matches the received one.

Twin of buggy/gradient_inversion_received_gradients_keep_graph.py: what the server
receives is data, so the received gradients are detached (as a real client would send
plain tensors); each attack iteration then backwards only through its own dummy graph.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


def client_update(model, x, y):
    loss = F.cross_entropy(model(x), y)
    return [g.detach() for g in torch.autograd.grad(loss, list(model.parameters()))]


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
        distance.backward(retain_graph=False)
        assert dummy_x.grad is not None and dummy_y.grad is not None
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
