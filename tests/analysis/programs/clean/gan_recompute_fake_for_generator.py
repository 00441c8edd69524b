"""Conditional GAN on toy tabular data. The discriminator step uses generated samples made under
no_grad; the generator step draws new noise and runs the generator again.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

N_CLASSES, LATENT, DATA = 3, 4, 6


class CondGenerator(nn.Module):
    def __init__(self):
        super().__init__()
        self.label_emb = nn.Embedding(N_CLASSES, 4)
        self.net = nn.Sequential(nn.Linear(LATENT + 4, 32), nn.ReLU(), nn.Linear(32, DATA))

    def forward(self, z, labels):
        return self.net(torch.cat([z, self.label_emb(labels)], -1))


class CondDiscriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.label_emb = nn.Embedding(N_CLASSES, 4)
        self.net = nn.Sequential(nn.Linear(DATA + 4, 32), nn.LeakyReLU(0.2), nn.Linear(32, 1))

    def forward(self, x, labels):
        return self.net(torch.cat([x, self.label_emb(labels)], -1))


def sample_real(n):
    labels = torch.randint(0, N_CLASSES, (n,))
    return torch.randn(n, DATA) + labels.unsqueeze(1).float(), labels


def main(iterations=3, batch=8):
    torch.manual_seed(0)
    G, D = CondGenerator(), CondDiscriminator()
    opt_g = torch.optim.Adam(G.parameters(), lr=2e-4, betas=(0.5, 0.999))
    opt_d = torch.optim.Adam(D.parameters(), lr=2e-4, betas=(0.5, 0.999))
    for it in range(iterations):
        real, labels = sample_real(batch)
        with torch.no_grad():
            fake = G(torch.randn(batch, LATENT), labels)
        d_loss = F.binary_cross_entropy_with_logits(
            D(real, labels), torch.ones(batch, 1)
        ) + F.binary_cross_entropy_with_logits(D(fake, labels), torch.zeros(batch, 1))
        opt_d.zero_grad()
        d_loss.backward()
        opt_d.step()

        gen_labels = torch.randint(0, N_CLASSES, (batch,))
        fake = G(torch.randn(batch, LATENT), gen_labels)
        g_loss = F.binary_cross_entropy_with_logits(D(fake, gen_labels), torch.ones(batch, 1))
        opt_g.zero_grad()
        g_loss.backward()
        opt_g.step()
        print(f"it {it}: d {d_loss.item():.4f} g {g_loss.item():.4f}")


if __name__ == "__main__":
    main()
