"""The "GAN that paints like an artist" tutorial: the generator draws curves from random
ideas, the discriminator tells them from the artist's parabolas.

Report: https://github.com/MorvanZhou/PyTorch-Tutorial/issues/96 -- "Why retain_graph
is needed here?" about D_loss.backward(retain_graph=True) in the GAN tutorial. Both the
discriminator's loss and the generator's loss are computed from prob_artist1, the
discriminator's score of the generated paintings; without the retain, as here, the
generator's backward runs through the discriminator graph that D_loss.backward() freed.
"""

import numpy as np
import torch
import torch.nn as nn

N_IDEAS, ART_COMPONENTS, BATCH_SIZE = 5, 15, 64
PAINT_POINTS = np.vstack([np.linspace(-1, 1, ART_COMPONENTS) for _ in range(BATCH_SIZE)])


def artist_works():
    a = np.random.uniform(1, 2, size=BATCH_SIZE)[:, np.newaxis]
    paintings = a * np.power(PAINT_POINTS, 2) + (a - 1)
    return torch.from_numpy(paintings).float()


def main(steps=5):
    np.random.seed(0)
    torch.manual_seed(0)
    G = nn.Sequential(nn.Linear(N_IDEAS, 128), nn.ReLU(), nn.Linear(128, ART_COMPONENTS))
    D = nn.Sequential(nn.Linear(ART_COMPONENTS, 128), nn.ReLU(), nn.Linear(128, 1), nn.Sigmoid())
    opt_D = torch.optim.Adam(D.parameters(), lr=1e-4)
    opt_G = torch.optim.Adam(G.parameters(), lr=1e-4)
    for step in range(steps):
        artist_paintings = artist_works()
        G_ideas = torch.randn(BATCH_SIZE, N_IDEAS)
        G_paintings = G(G_ideas)
        prob_artist1 = D(G_paintings)
        prob_artist0 = D(artist_paintings)
        D_loss = -torch.mean(torch.log(prob_artist0) + torch.log(1.0 - prob_artist1))
        G_loss = torch.mean(torch.log(1.0 - prob_artist1))

        opt_D.zero_grad()
        D_loss.backward()
        opt_D.step()

        opt_G.zero_grad()
        G_loss.backward()  # error: [shared-graph-backward]
        opt_G.step()
        print(f"step {step}: D accuracy {prob_artist0.mean().item():.3f} D score {-D_loss.item():.3f}")


if __name__ == "__main__":
    main()
