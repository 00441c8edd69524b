"""Training a sparse autoencoder-like decomposition with an adversarial (PGD) loss term:
the PGD helper searches, by projected gradient ascent, for the worst masking of the
components and returns the loss at that masking, which is added to the training loss.

Report: https://github.com/goodfire-ai/spd/pull/252 -- "fix: Graph freed by pgd loss
before backward": after a refactor made every PGD loss return (loss, n_examples, grad)
from one shared gradient routine, the final forward pass, whose loss is used for
training, also went through torch.autograd.grad, which "frees part of the graph. this
part of the graph is needed if the loss is used later in .backward, and this causes the
classic: RuntimeError: Trying to backward through the graph a second time". The fix
rearranged the computation so that the final loss is not differentiated there.
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
    loss, n_examples, _ = pgd_step_loss(model, x, adv)
    return loss, n_examples


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
        total.backward()  # error: [shared-graph-backward]
        optimizer.step()
        print(f"step {step}: recon {recon.item():.4f} adversarial {adv_loss.item():.4f} over {n}")


if __name__ == "__main__":
    main()
