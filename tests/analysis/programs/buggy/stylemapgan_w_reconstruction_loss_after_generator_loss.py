"""StyleMapGAN-style training on toy vectors: a mapping network turns noise into a
spatial style code, the generator renders it, the discriminator scores the result, and
an encoder must recover the style code from the rendered output (the w reconstruction
loss).

Report: https://github.com/naver-ai/StyleMapGAN/issues/16 -- training raised "Trying to
backward through the graph a second time" at (w_rec_loss * args.lambda_w_rec_loss)
.backward(), which comes right after the generator's adversarial loss is backwarded; the
reporter unblocked it by backwarding the two in one go. Both losses run back through the
same generated batch and style code.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

Z, STYLE, IMG = 8, 12, 24


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.mapping = nn.Sequential(nn.Linear(Z, 32), nn.LeakyReLU(0.2), nn.Linear(32, STYLE))
        self.generator = nn.Sequential(nn.Linear(STYLE, 32), nn.ReLU(), nn.Linear(32, IMG))
        self.encoder = nn.Sequential(nn.Linear(IMG, 32), nn.ReLU(), nn.Linear(32, STYLE))
        self.discriminator = nn.Sequential(nn.Linear(IMG, 32), nn.LeakyReLU(0.2), nn.Linear(32, 1))

    def forward(self, real, mode):
        stylecode = self.mapping(torch.randn(real.shape[0], Z))
        fake = self.generator(stylecode)
        if mode == "D":
            return F.softplus(self.discriminator(fake.detach())).mean() + F.softplus(-self.discriminator(real)).mean()
        adv_loss = F.softplus(-self.discriminator(fake)).mean()
        w_rec_loss = F.mse_loss(self.encoder(fake), stylecode)
        return adv_loss, w_rec_loss, stylecode


def main(steps=3, lambda_adv=1.0, lambda_w_rec=1.0):
    torch.manual_seed(0)
    model = Model()
    g_params = [*model.mapping.parameters(), *model.generator.parameters(), *model.encoder.parameters()]
    g_optim = torch.optim.Adam(g_params, lr=2e-3, betas=(0.0, 0.99))
    d_optim = torch.optim.Adam(model.discriminator.parameters(), lr=2e-3, betas=(0.0, 0.99))
    for step in range(steps):
        real = torch.randn(16, IMG).tanh()
        d_loss = model(real, "D")
        d_optim.zero_grad()
        d_loss.backward()
        d_optim.step()

        adv_loss, w_rec_loss, stylecode = model(real, "G")
        g_loss = adv_loss * lambda_adv
        g_optim.zero_grad()
        g_loss.backward()
        (w_rec_loss * lambda_w_rec).backward()  # error: [shared-graph-backward]
        g_optim.step()
        print(f"step {step}: d {d_loss.item():.3f} adv {adv_loss.item():.3f} w_rec {w_rec_loss.item():.4f}")


if __name__ == "__main__":
    main()
