"""Two-input sensor classifier (a 1-D signal and tabular features), explained per input.

Report: https://github.com/shap/shap/pull/684 -- "if the DeepExplainer is used with multiple
inputs, the following error is raised: RuntimeError: Trying to backward through the graph a
second time". The explainer took one `torch.autograd.grad` of the selected output for each
input (`grads = [torch.autograd.grad(selected, x)[0]... for x in X]`, as quoted in the
traceback of https://github.com/shap/shap/issues/725); the first call frees the graph above
the point where the inputs' branches meet, which the next input's gradient needs again. The
merged fix retains the graph across those calls.
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
    grads = [torch.autograd.grad(selected, x)[0] for x in X]  # error: [double-backward]
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
