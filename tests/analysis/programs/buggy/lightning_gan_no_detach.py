"""GAN in a Lightning-style module with manual optimization.

`LightningModule` is a small stand-in for pytorch_lightning's class. The
discriminator step scores `self.generated` without detaching it; the generator
step then backpropagates through the same generated batch.

Real report of this mechanism: https://github.com/pytorch/examples/issues/116
A commenter reports that leaving out `.detach()` on the fake images when writing the DCGAN
loop gives this error: the generator step runs back through the fake images after the
discriminator's backward freed them.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class LightningModule(nn.Module):
    def __init__(self):
        super().__init__()
        self.automatic_optimization = True
        self._opts = ()

    def optimizers(self):
        return self._opts

    def manual_backward(self, loss, **kwargs):
        loss.backward(**kwargs)  # error: [shared-graph-backward]

    def log_dict(self, d, prog_bar=False):
        print({k: round(float(v), 4) for k, v in d.items()})


class GAN(LightningModule):
    def __init__(self, latent_dim=8, img_dim=16):
        super().__init__()
        self.automatic_optimization = False
        self.latent_dim = latent_dim
        self.generator = nn.Sequential(
            nn.Linear(latent_dim, 32), nn.ReLU(), nn.Linear(32, img_dim), nn.Tanh()
        )
        self.discriminator = nn.Sequential(nn.Linear(img_dim, 32), nn.LeakyReLU(0.2), nn.Linear(32, 1))
        self.generated = None

    def training_step(self, batch, batch_idx):
        opt_g, opt_d = self.optimizers()
        real = batch
        z = torch.randn(real.size(0), self.latent_dim)
        self.generated = self.generator(z)
        valid = torch.ones(real.size(0), 1)
        fake = torch.zeros(real.size(0), 1)

        d_real = F.binary_cross_entropy_with_logits(self.discriminator(real), valid)
        d_fake = F.binary_cross_entropy_with_logits(self.discriminator(self.generated), fake)
        d_loss = (d_real + d_fake) / 2
        opt_d.zero_grad()
        self.manual_backward(d_loss)
        opt_d.step()

        g_loss = F.binary_cross_entropy_with_logits(self.discriminator(self.generated), valid)
        opt_g.zero_grad()
        self.manual_backward(g_loss)
        opt_g.step()
        self.log_dict({"d_loss": d_loss, "g_loss": g_loss})

    def configure_optimizers(self):
        opt_g = torch.optim.Adam(self.generator.parameters(), lr=2e-4, betas=(0.5, 0.999))
        opt_d = torch.optim.Adam(self.discriminator.parameters(), lr=2e-4, betas=(0.5, 0.999))
        return opt_g, opt_d


def fit(model, loader, max_epochs=1):
    model._opts = model.configure_optimizers()
    for _ in range(max_epochs):
        for i, batch in enumerate(loader):
            model.training_step(batch, i)


if __name__ == "__main__":
    torch.manual_seed(0)
    fit(GAN(), [torch.rand(8, 16) * 2 - 1 for _ in range(2)])
