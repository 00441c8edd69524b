"""Variational autoencoder (pytorch/examples/vae): reconstruction + KL in one loss, one backward;
a test pass under no_grad and sampling from the prior at the end.
"""

import torch
from torch import nn, optim
from torch.nn import functional as F
from torch.utils.data import DataLoader, TensorDataset


class VAE(nn.Module):
    def __init__(self, d=36, h=16, z=3):
        super().__init__()
        self.fc1, self.fc21, self.fc22 = nn.Linear(d, h), nn.Linear(h, z), nn.Linear(h, z)
        self.fc3, self.fc4 = nn.Linear(z, h), nn.Linear(h, d)

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


def loss_function(recon_x, x, mu, logvar, beta=1.0):
    bce = F.binary_cross_entropy(recon_x, x, reduction="sum")
    kld = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
    return bce + beta * kld


def train(model, optimizer, loader, epoch):
    model.train()
    train_loss = 0.0
    for (data,) in loader:
        optimizer.zero_grad()
        recon_batch, mu, logvar = model(data)
        loss = loss_function(recon_batch, data, mu, logvar)
        loss.backward()
        train_loss += loss.item()
        optimizer.step()
    print(f"====> Epoch: {epoch} Average loss: {train_loss / len(loader.dataset):.4f}")


def test(model, loader):
    model.eval()
    test_loss = 0.0
    with torch.no_grad():
        for (data,) in loader:
            recon, mu, logvar = model(data)
            test_loss += loss_function(recon, data, mu, logvar).item()
    return test_loss / len(loader.dataset)


if __name__ == "__main__":
    torch.manual_seed(0)
    model = VAE()
    optimizer = optim.Adam(model.parameters(), lr=1e-3)
    loader = DataLoader(TensorDataset(torch.rand(24, 36)), batch_size=8, shuffle=True)
    for epoch in range(1, 3):
        train(model, optimizer, loader, epoch)
        print("test loss", test(model, loader))
    with torch.no_grad():
        samples = model.decode(torch.randn(4, 3))
    print(samples.shape)
