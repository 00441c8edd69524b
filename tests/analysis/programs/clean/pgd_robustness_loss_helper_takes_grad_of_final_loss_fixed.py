"""Training a sparse autoencoder-like decomposition with an adversarial (PGD) loss term:
the PGD helper searches, by projected gradient ascent, for the worst masking of the
components and returns the loss at that masking, which is added to the training loss.

Twin of buggy/pgd_robustness_loss_helper_takes_grad_of_final_loss.py, rearranged as the
pull request does: the gradient routine is used for the ascent steps only, and the final
loss at the found masking is computed without being differentiated, so the training
backward owns its graph.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Decomposition(nn.Module):
    def __init__(self, dim=12, components=8):
        super().__init__()
        self.encoder = nn.Linear(dim, components)
        self.decoder = nn.Linear(components, dim)

    def forward(self, x, mask=None):
        codes = F.relu(self.encoder(x))
        if mask is not None:
            codes = codes * mask
        return self.decoder(codes)


def pgd_step_loss(model, x, adv):
    loss = F.mse_loss(model(x, torch.sigmoid(adv)), x)
    grad = torch.autograd.grad(loss, adv)[0]
    return loss, x.shape[0], grad


def pgd_loss(model, x, steps=3, step_size=0.5):
    adv = torch.zeros(x.shape[0], 8, requires_grad=True)
    for _ in range(steps):
        _, _, grad = pgd_step_loss(model, x, adv)
        adv = (adv + step_size * grad.sign()).clamp(-3, 3).detach().requires_grad_(True)
    loss = F.mse_loss(model(x, torch.sigmoid(adv.detach())), x)
    return loss, x.shape[0]


def main(steps=4):
    torch.manual_seed(0)
    model = Decomposition()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for step in range(steps):
        x = torch.randn(32, 12)
        recon = F.mse_loss(model(x), x)
        adv_loss, n = pgd_loss(model, x)
        total = recon + 0.5 * adv_loss
        optimizer.zero_grad()
        total.backward()
        assert all(p.grad is not None for p in model.parameters())
        optimizer.step()
        print(f"step {step}: recon {recon.item():.4f} adversarial {adv_loss.item():.4f} over {n}")


if __name__ == "__main__":
    main()
