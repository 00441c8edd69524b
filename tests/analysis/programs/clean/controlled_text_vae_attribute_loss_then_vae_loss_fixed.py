"""Controllable text generation (Hu et al., 2017) on toy token sequences: a VAE encodes
a sentence to z, the decoder generates from (z, c) with a structured attribute code c,
and two attribute losses ask a classifier and the encoder to recover c and z from the
generated soft sentence.

Twin of buggy/controlled_text_vae_attribute_loss_then_vae_loss.py, fixed the way the
paper writes the generator's objective: the VAE loss and the weighted attribute losses
are one sum, backwarded once through the shared encoder pass.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

VOCAB, LEN, Z, C = 10, 6, 4, 2


class TextVAE(nn.Module):
    def __init__(self, hidden=32):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, hidden)
        self.encoder = nn.Linear(LEN * hidden, 2 * Z)
        self.decoder = nn.Sequential(nn.Linear(Z + C, hidden), nn.Tanh(), nn.Linear(hidden, LEN * VOCAB))

    def encode(self, tokens):
        return self.encoder(self.embed(tokens).flatten(1)).chunk(2, dim=1)

    def encode_soft(self, probs):
        return self.encoder((probs @ self.embed.weight).flatten(1)).chunk(2, dim=1)[0]

    def decode(self, z, c):
        return self.decoder(torch.cat([z, c], dim=1)).view(-1, LEN, VOCAB)


def main(steps=4, batch=16, lambda_c=0.1, lambda_z=0.1):
    torch.manual_seed(0)
    vae = TextVAE()
    classifier = nn.Sequential(nn.Flatten(), nn.Linear(LEN * VOCAB, C))
    optimizer = torch.optim.Adam(vae.parameters(), lr=1e-3)
    for step in range(steps):
        tokens = torch.randint(VOCAB, (batch, LEN))
        mu, logvar = vae.encode(tokens)
        z = mu + torch.randn_like(mu) * (0.5 * logvar).exp()
        c = F.one_hot(torch.randint(C, (batch,)), C).float()
        recon_logits = vae.decode(z, c)
        soft_sentence = F.softmax(recon_logits / 0.5, dim=-1)
        l_attr_c = F.cross_entropy(classifier(soft_sentence), c.argmax(1))
        l_attr_z = F.mse_loss(vae.encode_soft(soft_sentence), z)
        optimizer.zero_grad()
        recon = F.cross_entropy(recon_logits.reshape(-1, VOCAB), tokens.reshape(-1))
        kl = -0.5 * (1 + logvar - mu.pow(2) - logvar.exp()).sum(1).mean()
        total_vae_loss = recon + kl + lambda_c * l_attr_c + lambda_z * l_attr_z
        total_vae_loss.backward()
        assert all(p.grad is not None for p in vae.parameters())
        optimizer.step()
        print(f"step {step}: recon {recon.item():.3f} kl {kl.item():.3f} attr {l_attr_c.item():.3f}")


if __name__ == "__main__":
    main()
