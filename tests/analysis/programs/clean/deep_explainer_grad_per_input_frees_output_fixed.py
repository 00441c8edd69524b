"""Two-input sensor classifier (a 1-D signal and tabular features), explained per input.

Twin of buggy/deep_explainer_grad_per_input_frees_output.py, fixed by retaining the graph as
shap's PR #684 does: here it is retained while another input's gradient is still to be
taken, and the last call frees it.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class SensorNet(nn.Module):
    def __init__(self, n_tab=5, n_classes=3, width=12):
        super().__init__()
        self.signal = nn.Sequential(nn.Conv1d(1, width, 5, padding=2), nn.ReLU(), nn.AdaptiveAvgPool1d(1))
        self.tabular = nn.Sequential(nn.Linear(n_tab, width), nn.Tanh())
        self.head = nn.Sequential(nn.Linear(2 * width, width), nn.ReLU(), nn.Linear(width, n_classes))

    def forward(self, signal, tabular):
        a = self.signal(signal).flatten(1)
        b = self.tabular(tabular)
        return self.head(torch.cat([a, b], dim=1))


def make_data(g, n=64, length=32, n_tab=5):
    signal = torch.randn(n, 1, length, generator=g)
    tabular = torch.randn(n, n_tab, generator=g)
    labels = ((signal.mean(dim=(1, 2)) > 0).long() + (tabular[:, 0] > 0).long()).clamp(max=2)
    return signal, tabular, labels


def train(model, data, epochs=2, batch_size=16):
    signal, tabular, labels = data
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    for epoch in range(epochs):
        for i in range(0, len(labels), batch_size):
            logits = model(signal[i : i + batch_size], tabular[i : i + batch_size])
            loss = F.cross_entropy(logits, labels[i : i + batch_size])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print(f"epoch {epoch}: loss {loss.item():.4f}")


def gradients(model, inputs, target):
    X = [x.clone().requires_grad_(True) for x in inputs]
    outputs = model(*X)
    selected = outputs[:, target].sum()
    grads = [torch.autograd.grad(selected, x, retain_graph=i + 1 < len(X))[0] for i, x in enumerate(X)]
    assert all(grad.abs().sum() > 0 for grad in grads)
    return grads


def attributions(model, inputs, baselines, target):
    grads = gradients(model, inputs, target)
    return [g * (x - b) for g, x, b in zip(grads, inputs, baselines)]


def main():
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(0)
    data = make_data(g)
    model = SensorNet()
    train(model, data)
    model.eval()
    inputs = [data[0][:8], data[1][:8]]
    baselines = [x.mean(dim=0, keepdim=True).expand_as(x) for x in inputs]
    for target in range(3):
        signal_attr, tabular_attr = attributions(model, inputs, baselines, target)
        print(f"class {target}: signal {signal_attr.abs().sum():.4f} tabular {tabular_attr.abs().sum():.4f}")


if __name__ == "__main__":
    main()
