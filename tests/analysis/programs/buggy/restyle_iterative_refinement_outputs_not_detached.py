"""ReStyle-style iterative inversion: an encoder looks at the target image together with
the current reconstruction and predicts a residual on the latent code; a frozen generator
decodes the code; every refinement iteration has its own loss and backward.

Report: https://github.com/yuval-alaluf/restyle-encoder/issues/15 -- training ReStyle
with a converted generator raised "Trying to backward through the graph a second time"
at loss.backward() in perform_train_iteration_on_batch; the maintainer answered that it
happens when a variable is passed through the network multiple times. Each iteration
feeds the previous iteration's reconstruction and latent back into the encoder; without
detaching them after that iteration's backward, as here, the next backward runs back
into the previous iteration's graph.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

IMG, LATENT = 64, 8


def main(batches=3, n_iters=3):
    torch.manual_seed(0)
    decoder = nn.Sequential(nn.Linear(LATENT, 32), nn.Tanh(), nn.Linear(32, IMG))
    decoder.requires_grad_(False)
    encoder = nn.Sequential(nn.Linear(2 * IMG, 64), nn.ReLU(), nn.Linear(64, LATENT))
    optimizer = torch.optim.Adam(encoder.parameters(), lr=1e-3)
    avg_latent = torch.zeros(1, LATENT)
    avg_image = decoder(avg_latent)
    for batch in range(batches):
        y = decoder(torch.randn(4, LATENT)) + 0.05 * torch.randn(4, IMG)
        y_hat, latent = avg_image.expand(4, -1), avg_latent.expand(4, -1)
        for it in range(n_iters):
            codes = latent + encoder(torch.cat([y, y_hat], dim=1))
            y_hat = decoder(codes)
            latent = codes
            loss = F.mse_loss(y_hat, y)
            optimizer.zero_grad()
            loss.backward()  # error: [carried-graph-backward]
            optimizer.step()
        print(f"batch {batch}: final refinement loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
