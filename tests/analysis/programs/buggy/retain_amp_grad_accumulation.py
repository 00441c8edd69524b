"""Image classifier with gradient accumulation and an AMP GradScaler (disabled on CPU).

retain_graph=True is passed to every scaled backward, although every
micro-batch builds its own graph.

Real report of this mechanism: https://github.com/facebookresearch/MetaBalance/issues/2
With loss.backward(retain_graph=True) on every step, memory grew until the run crashed; the
reporter attributes it to the graph never being cleared.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


class ConvNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(1, 6, 3), nn.ReLU(), nn.MaxPool2d(2))
        self.classifier = nn.Linear(6 * 3 * 3, 4)

    def forward(self, x):
        return self.classifier(self.features(x).flatten(1))


def main(accumulation_steps=2):
    torch.manual_seed(0)
    use_amp = torch.cuda.is_available()
    device = "cuda" if use_amp else "cpu"
    loader = DataLoader(TensorDataset(torch.randn(24, 1, 8, 8), torch.randint(0, 4, (24,))), batch_size=6)
    model = ConvNet().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    scaler = torch.amp.GradScaler(device, enabled=use_amp)

    for epoch in range(2):
        optimizer.zero_grad()
        for i, (x, y) in enumerate(loader):
            x, y = x.to(device), y.to(device)
            with torch.autocast(device_type=device, dtype=torch.float16, enabled=use_amp):
                loss = F.cross_entropy(model(x), y) / accumulation_steps
            scaler.scale(loss).backward(retain_graph=True)  # error: [retain-graph-in-loop]
            if (i + 1) % accumulation_steps == 0:
                scaler.unscale_(optimizer)
                nn.utils.clip_grad_norm_(model.parameters(), 2.0)
                scaler.step(optimizer)
                scaler.update()
                optimizer.zero_grad()
        print(f"epoch {epoch}: last loss {loss.item() * accumulation_steps:.4f}")


if __name__ == "__main__":
    main()
