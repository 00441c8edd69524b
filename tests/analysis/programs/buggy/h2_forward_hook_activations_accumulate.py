"""Activation-sparsity regularisation collected through forward hooks.

The hooks append every layer's output to a list; the regulariser sums over that
list, which is never cleared between steps, so step 2 reaches step 1's graph.

Real report of this mechanism: https://github.com/MooreThreads/Moore-AnimateAnyone/issues/92
With gradient accumulation, train_stage_1.py raises this error: the reference UNet's patched
attention blocks append their activations to a `bank` on every forward, and the script clears
the banks only once per accumulation cycle, so the next micro-batch reaches freed graphs.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class ActivationRecorder:
    def __init__(self, model, layer_types=(nn.ReLU,)):
        self.records = []
        self.handles = [
            module.register_forward_hook(self.hook) for module in model.modules() if isinstance(module, layer_types)
        ]

    def hook(self, module, inputs, output):
        self.records.append(output)

    def l1(self):
        return sum(a.abs().mean() for a in self.records)

    def remove(self):
        for handle in self.handles:
            handle.remove()


def make_model():
    return nn.Sequential(
        nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 3)
    )


def main(l1_weight=1e-3):
    torch.manual_seed(0)
    model = make_model()
    recorder = ActivationRecorder(model)
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    x = torch.randn(60, 10)
    y = torch.randint(0, 3, (60,))
    for epoch in range(2):
        for i in range(0, 60, 20):
            logits = model(x[i : i + 20])
            loss = F.cross_entropy(logits, y[i : i + 20]) + l1_weight * recorder.l1()
            optimizer.zero_grad()
            loss.backward()  # error: [carried-graph-backward]
            optimizer.step()
        print(f"epoch {epoch}: loss {loss.item():.4f} (records kept: {len(recorder.records)})")
    recorder.remove()


if __name__ == "__main__":
    main()
