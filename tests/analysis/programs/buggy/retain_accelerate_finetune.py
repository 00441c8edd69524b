"""Regression fine-tuning loop written for an Accelerate-style wrapper (minimal stand-in
below), with retain_graph=True forwarded to every backward.

Real report of this mechanism: https://github.com/shenweichen/DeepCTR-Torch/issues/69
The library's training loop backwarded with retain_graph=True; the maintainers removed it
once the regularisation loss no longer reused the graph.
"""

import torch
from torch import nn


class Accelerator:
    def __init__(self):
        self.sync_gradients = True

    def prepare(self, *objs):
        return objs

    def backward(self, loss, **kwargs):
        loss.backward(**kwargs)

    def wait_for_everyone(self):
        pass


class Regressor(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(5, 16), nn.GELU(), nn.LayerNorm(16), nn.Linear(16, 1))

    def forward(self, x):
        return self.body(x).squeeze(-1)


def main():
    torch.manual_seed(0)
    accelerator = Accelerator()
    model = Regressor()
    optimizer = torch.optim.AdamW(model.parameters(), lr=2e-3)
    lr_scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=1e-2, total_steps=10)
    dataloader = [(torch.randn(8, 5), torch.randn(8)) for _ in range(3)]
    model, optimizer, dataloader, lr_scheduler = accelerator.prepare(
        model, optimizer, dataloader, lr_scheduler
    )

    for epoch in range(2):
        model.train()
        for step, (inputs, targets) in enumerate(dataloader):
            preds = model(inputs)
            loss = nn.functional.mse_loss(preds, targets)
            accelerator.backward(loss, retain_graph=True)  # error: [retain-graph-in-loop]
            optimizer.step()
            lr_scheduler.step()
            optimizer.zero_grad()
        accelerator.wait_for_everyone()
        print(f"epoch {epoch}: loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
