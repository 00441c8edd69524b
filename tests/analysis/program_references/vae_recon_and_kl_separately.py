"""MNIST-style VAE on random 'images' (after pytorch/examples/vae).

The reconstruction and KL terms are backpropagated once, summed (pytorch/examples/vae's
``loss_function``), and the gradient norm is printed after the backward.
"""

import torch
from torch import nn, optim
from torch.nn import functional as F


class VAE(nn.Module):
    def __init__(self, d=36, h=16, z=3):
        super().__init__()
        self.fc1 = nn.Linear(d, h)
        self.fc21 = nn.Linear(h, z)
        self.fc22 = nn.Linear(h, z)
        self.fc3 = nn.Linear(z, h)
        self.fc4 = nn.Linear(h, d)

    def encode(self, x):
        h1 = F.relu(self.fc1(x))
        return self.fc21(h1), self.fc22(h1)

    def reparameterize(self, mu, logvar):
        std = torch.exp(0.5 * logvar)
        return mu + torch.randn_like(std) * std

    def decode(self, z):
        return torch.sigmoid(self.fc4(F.relu(self.fc3(z))))

    def forward(self, x):
        mu, logvar = self.encode(x)
        return self.decode(self.reparameterize(mu, logvar)), mu, logvar


def grad_norm(model):
    return sum(p.grad.norm() ** 2 for p in model.parameters() if p.grad is not None) ** 0.5


def train(model, optimizer, data, epoch, batch_size=8):
    model.train()
    for batch_idx, x in enumerate(data.split(batch_size)):
        optimizer.zero_grad()
        recon, mu, logvar = model(x)
        bce = F.binary_cross_entropy(recon, x, reduction="sum")
        kld = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
        (bce + kld).backward()
        g = grad_norm(model)
        print(f"epoch {epoch} batch {batch_idx}: rec {bce.item():.1f} kld {kld.item():.2f} (|g| {g:.2f})")
        optimizer.step()


if __name__ == "__main__":
    torch.manual_seed(0)
    model = VAE()
    optimizer = optim.Adam(model.parameters(), lr=1e-3)
    data = torch.rand(16, 36)
    for epoch in range(1, 3):
        train(model, optimizer, data, epoch)
