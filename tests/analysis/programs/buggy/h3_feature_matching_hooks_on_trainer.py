"""Feature-matching regulariser: forward hooks collect the hidden features of a classifier.

The collector is created by the trainer and kept on it; its hooks append the output
of every hidden layer to ``features``. ``fit`` adds a penalty on those features to the
loss -- but the list is never emptied, so the second step also reaches the features
(and the graph) of the first step, which its backward already freed.

Real report of this mechanism: https://github.com/MooreThreads/Moore-AnimateAnyone/issues/92
With gradient accumulation, train_stage_1.py raises this error: the reference UNet's patched
attention blocks append their activations to a `bank` on every forward, and the script clears
the banks only once per accumulation cycle, so the next micro-batch reaches freed graphs.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class FeatureCollector:
    def __init__(self, model):
        self.features = []
        self.handles = []
        for name, child in model.named_children():
            if name.startswith("hidden"):
                self.handles.append(child.register_forward_hook(self.save))

    def save(self, module, inputs, output):
        self.features.append(output)

    def penalty(self):
        return sum(f.pow(2).mean() for f in self.features)


class Classifier(nn.Module):
    def __init__(self, d_in=12, width=24, n_classes=4):
        super().__init__()
        self.hidden1 = nn.Sequential(nn.Linear(d_in, width), nn.GELU())
        self.hidden2 = nn.Sequential(nn.Linear(width, width), nn.GELU())
        self.out = nn.Linear(width, n_classes)

    def forward(self, x):
        return self.out(self.hidden2(self.hidden1(x)))


class Trainer:
    def __init__(self, model, lr=1e-2, feature_weight=1e-3):
        self.model = model
        self.collector = FeatureCollector(model)
        self.optimizer = torch.optim.Adam(model.parameters(), lr=lr)
        self.feature_weight = feature_weight

    def fit(self, batches):
        history = []
        for x, y in batches:
            logits = self.model(x)
            loss = F.cross_entropy(logits, y) + self.feature_weight * self.collector.penalty()
            self.optimizer.zero_grad()
            loss.backward()  # error: [carried-graph-backward]
            self.optimizer.step()
            history.append(loss.item())
        return history


def make_batches(n_batches=4, bs=16, d_in=12, n_classes=4):
    g = torch.Generator().manual_seed(3)
    w = torch.randn(d_in, n_classes, generator=g)
    batches = []
    for _ in range(n_batches):
        x = torch.randn(bs, d_in, generator=g)
        batches.append((x, (x @ w).argmax(1)))
    return batches


if __name__ == "__main__":
    torch.manual_seed(0)
    trainer = Trainer(Classifier())
    print(trainer.fit(make_batches()))
