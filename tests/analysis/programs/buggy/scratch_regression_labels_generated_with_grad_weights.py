"""A fully connected network written from scratch (own DataLoader, ReLU, squared loss and
SGD) fitted to synthetic regression data.

Report: https://github.com/zhangyu2234/Deep-learning-by-hand -- the notebook "1.3 Problems
I encountered" of that tutorial repository shows this loop raising "Trying to backward
through the graph a second time" and explains why: the true weights used to generate the
labels were created with requires_grad=True, so the labels Y carry a graph, every
mini-batch of Y the DataLoader hands out leads back into it, and the first backward
consumed it. Its fix: generate the labels from weights that do not require gradients.
"""

import random

import torch


class DataLoader:
    def __init__(self, data, labels, batch_size, shuffle=False):
        self.data, self.labels = data, labels
        self.batch_size, self.shuffle = batch_size, shuffle
        self.indexes = list(range(len(data)))

    def __iter__(self):
        self.start = 0
        if self.shuffle:
            random.shuffle(self.indexes)
        return self

    def __next__(self):
        start, end = self.start, min(self.start + self.batch_size, len(self.data))
        if start >= end:
            raise StopIteration
        self.start += self.batch_size
        index = self.indexes[start:end]
        return self.data[index], self.labels[index]


def relu(x):
    return torch.max(torch.zeros(x.shape), x)


def squared_loss(y_hat, y):
    return torch.mean((y_hat.reshape(y.shape) - y) ** 2 / 2)


def sgd(params, lr, batch_size):
    with torch.no_grad():
        for param in params:
            param -= lr * param.grad / batch_size
            param.grad.zero_()


def fc(x, w1, b1, w2, b2):
    return torch.mm(relu(torch.mm(x, w1) + b1), w2) + b2


def main():
    random.seed(0)
    torch.manual_seed(0)
    num_samples, num_features, num_hiddens = 400, 2, 8
    X = torch.randn(num_samples, num_features)
    true_W = torch.randn(num_features, 1, requires_grad=True)
    true_b = torch.randn(1, requires_grad=True)
    Y = torch.mm(X, true_W) + true_b

    w1 = torch.normal(0, 0.1, size=(num_features, num_hiddens), requires_grad=True)
    b1 = torch.zeros(num_hiddens, requires_grad=True)
    w2 = torch.normal(0, 0.1, size=(num_hiddens, 1), requires_grad=True)
    b2 = torch.zeros(1, requires_grad=True)
    params = [w1, b1, w2, b2]

    batch_size, lr = 20, 0.5
    dataloader = DataLoader(X, Y, batch_size, shuffle=True)
    for epoch in range(3):
        for x, y in dataloader:
            loss = squared_loss(fc(x, *params), y)
            loss.backward()  # error: [pre-loop-graph-backward]
            sgd(params, lr, batch_size)
        with torch.no_grad():
            print(f"epoch {epoch + 1}: loss {squared_loss(fc(X, *params), Y).item():.4f}")


if __name__ == "__main__":
    main()
