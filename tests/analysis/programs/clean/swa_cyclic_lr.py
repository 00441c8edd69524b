"""Stochastic Weight Averaging (torch.optim.swa_utils) after a short SGD phase, with BN statistics
recomputed for the averaged model at the end.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.optim.swa_utils import SWALR, AveragedModel, update_bn
from torch.utils.data import DataLoader, TensorDataset


def main(epochs=4, swa_start=2):
    torch.manual_seed(0)
    loader = DataLoader(TensorDataset(torch.randn(24, 7), torch.randint(0, 3, (24,))), batch_size=8, shuffle=True)
    model = nn.Sequential(nn.Linear(7, 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Linear(16, 3))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=swa_start)
    swa_model = AveragedModel(model)
    swa_scheduler = SWALR(optimizer, swa_lr=0.01, anneal_epochs=1)

    for epoch in range(epochs):
        model.train()
        for x, y in loader:
            optimizer.zero_grad()
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            optimizer.step()
        if epoch >= swa_start:
            swa_model.update_parameters(model)
            swa_scheduler.step()
        else:
            scheduler.step()
        print(f"epoch {epoch}: loss {loss.item():.4f} lr {optimizer.param_groups[0]['lr']:.4f}")

    update_bn(((x,) for x, _ in loader), swa_model)
    swa_model.eval()
    with torch.no_grad():
        x_all, y_all = loader.dataset.tensors
        acc = (swa_model(x_all).argmax(1) == y_all).float().mean().item()
    print(f"SWA accuracy {acc:.3f}")


if __name__ == "__main__":
    main()
