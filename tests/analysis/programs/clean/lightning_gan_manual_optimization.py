"""GAN with Lightning-style manual optimization (stand-in base class; lightning is not installed).
The discriminator sees `fake.detach()`; the generator step re-scores the fake batch.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class LightningModule(nn.Module):
    def __init__(self):
        super().__init__()
        self.automatic_optimization = True
        self._opts = ()
        self.logged = {}

    def optimizers(self):
        return self._opts

    def manual_backward(self, loss, **kwargs):
        loss.backward(**kwargs)

    def toggle_optimizer(self, optimizer):
        params = {id(p) for g in optimizer.param_groups for p in g["params"]}
        for p in self.parameters():
            p.requires_grad_(id(p) in params)

    def untoggle_optimizer(self, optimizer):
        for p in self.parameters():
            p.requires_grad_(True)

    def log(self, name, value):
        self.logged[name] = value.item() if torch.is_tensor(value) else value


class GAN(LightningModule):
    def __init__(self, latent_dim=6, data_dim=10):
        super().__init__()
        self.automatic_optimization = False
        self.latent_dim = latent_dim
        self.generator = nn.Sequential(nn.Linear(latent_dim, 32), nn.ReLU(), nn.Linear(32, data_dim))
        self.discriminator = nn.Sequential(nn.Linear(data_dim, 32), nn.LeakyReLU(0.2), nn.Linear(32, 1))

    def training_step(self, batch, batch_idx):
        opt_g, opt_d = self.optimizers()
        z = torch.randn(batch.size(0), self.latent_dim)
        ones, zeros = torch.ones(batch.size(0), 1), torch.zeros(batch.size(0), 1)

        self.toggle_optimizer(opt_g)
        fake = self.generator(z)
        g_loss = F.binary_cross_entropy_with_logits(self.discriminator(fake), ones)
        opt_g.zero_grad()
        self.manual_backward(g_loss)
        opt_g.step()
        self.untoggle_optimizer(opt_g)

        self.toggle_optimizer(opt_d)
        real_loss = F.binary_cross_entropy_with_logits(self.discriminator(batch), ones)
        fake_loss = F.binary_cross_entropy_with_logits(self.discriminator(fake.detach()), zeros)
        d_loss = (real_loss + fake_loss) / 2
        opt_d.zero_grad()
        self.manual_backward(d_loss)
        opt_d.step()
        self.untoggle_optimizer(opt_d)
        self.log("g_loss", g_loss)
        self.log("d_loss", d_loss)

    def configure_optimizers(self):
        return (
            torch.optim.Adam(self.generator.parameters(), lr=2e-4, betas=(0.5, 0.999)),
            torch.optim.Adam(self.discriminator.parameters(), lr=2e-4, betas=(0.5, 0.999)),
        )


def fit(model, loader, epochs=2):
    model._opts = model.configure_optimizers()
    for epoch in range(epochs):
        for i, batch in enumerate(loader):
            model.training_step(batch, i)
        print(epoch, model.logged)


if __name__ == "__main__":
    torch.manual_seed(0)
    fit(GAN(), [torch.randn(8, 10) for _ in range(2)])
