"""SimCLR (Chen et al., 2020) pre-training with the NT-Xent loss over two augmented views, LARS
replaced by AdamW for simplicity, cosine schedule, then a linear-probe evaluation on frozen features.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class SimCLR(nn.Module):
    def __init__(self, d_in=16, d_feat=12, d_proj=8):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(d_in, 32), nn.ReLU(), nn.Linear(32, d_feat))
        self.projector = nn.Sequential(nn.Linear(d_feat, d_feat), nn.ReLU(), nn.Linear(d_feat, d_proj))

    def forward(self, x):
        return self.projector(self.encoder(x))


def nt_xent(z1, z2, temperature=0.5):
    z = F.normalize(torch.cat([z1, z2]), dim=1)
    sim = z @ z.t() / temperature
    n = z1.size(0)
    sim.fill_diagonal_(float("-inf"))
    targets = torch.cat([torch.arange(n, 2 * n), torch.arange(0, n)])
    return F.cross_entropy(sim, targets)


def augment(x):
    mask = (torch.rand_like(x) > 0.1).float()
    return x * mask + 0.1 * torch.randn_like(x)


def main(epochs=2, steps=2):
    torch.manual_seed(0)
    model = SimCLR()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=1e-6)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=epochs * steps)
    data = torch.randn(32, 16)
    for epoch in range(epochs):
        for step in range(steps):
            batch = data[torch.randint(0, 32, (8,))]
            loss = nt_xent(model(augment(batch)), model(augment(batch)))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            scheduler.step()
        print(f"epoch {epoch}: nt-xent {loss.item():.4f}")

    # linear probe on frozen features
    with torch.no_grad():
        feats = model.encoder(data)
    labels = (data[:, 0] > 0).long()
    probe = nn.Linear(12, 2)
    probe_opt = torch.optim.SGD(probe.parameters(), lr=0.1)
    for _ in range(3):
        probe_loss = F.cross_entropy(probe(feats), labels)
        probe_opt.zero_grad()
        probe_loss.backward()
        probe_opt.step()
    print("probe loss", probe_loss.item())


if __name__ == "__main__":
    main()
