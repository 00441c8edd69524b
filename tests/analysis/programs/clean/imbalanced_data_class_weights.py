"""Imbalanced classification: features standardised and class weights computed once, before the
loop, from the data (no grad anywhere in them); weighted loss recomputed per batch.
"""

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset, WeightedRandomSampler


def load_data(n=60, d=5, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, d)).astype(np.float32)
    y = (rng.random(n) < 0.2).astype(np.int64)
    x[y == 1] += 1.0
    return torch.from_numpy(x), torch.from_numpy(y)


def main():
    torch.manual_seed(0)
    x, y = load_data()
    mean, std = x.mean(0, keepdim=True), x.std(0, keepdim=True)
    x = (x - mean) / std
    counts = torch.bincount(y, minlength=2).float()
    class_weights = counts.sum() / (2 * counts)
    sample_weights = class_weights[y]

    sampler = WeightedRandomSampler(sample_weights, num_samples=len(y), replacement=True)
    loader = DataLoader(TensorDataset(x, y), batch_size=20, sampler=sampler)
    model = nn.Sequential(nn.Linear(5, 16), nn.ReLU(), nn.Linear(16, 2))
    criterion = nn.CrossEntropyLoss(weight=class_weights)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)

    for epoch in range(3):
        model.train()
        for xb, yb in loader:
            optimizer.zero_grad()
            loss = criterion(model(xb), yb)
            loss.backward()
            optimizer.step()
        model.eval()
        with torch.no_grad():
            pred = model(x).argmax(1)
            tp = ((pred == 1) & (y == 1)).sum().item()
            recall = tp / max(1, (y == 1).sum().item())
            precision = tp / max(1, (pred == 1).sum().item())
        print(f"epoch {epoch}: loss {loss.item():.4f} precision {precision:.2f} recall {recall:.2f}")


if __name__ == "__main__":
    main()
