"""Linear regression written from scratch on synthetic data: the labels are generated from true
weights created with requires_grad=True, a loader hands out their rows, and the parameters are
updated by hand."""

import torch


class Loader:
    def __init__(self, data, labels, batch_size):
        self.data, self.labels, self.batch_size = data, labels, batch_size

    def batch(self, index):
        start = index * self.batch_size
        return self.data[start : start + self.batch_size], self.labels[start : start + self.batch_size]


torch.manual_seed(0)
X = torch.randn(60, 3)
true_w = torch.randn(3, 1, requires_grad=True)
Y = X @ true_w + 0.1
w = torch.zeros(3, 1, requires_grad=True)
b = torch.zeros(1, requires_grad=True)
loader = Loader(X, Y, 20)
for epoch in range(2):
    for index in range(3):
        x, y = loader.batch(index)
        loss = ((x @ w + b - y) ** 2).mean()
        loss.backward()
        with torch.no_grad():
            for param in (w, b):
                param -= 0.1 * param.grad
                param.grad.zero_()
    print(f"epoch {epoch}: loss {loss.item():.4f}")
