"""Autoencoder with separate encoder and decoder optimizers (different schedules).

Written by hand: both optimizers step on the gradient of one reconstruction loss, so the
gradients are cleared for both, the loss is backwarded once, and each optimizer then steps.
"""

import torch
from torch import nn

torch.manual_seed(0)

encoder = nn.Sequential(nn.Linear(20, 8), nn.ReLU(), nn.Linear(8, 3))
decoder = nn.Sequential(nn.Linear(3, 8), nn.ReLU(), nn.Linear(8, 20))
enc_opt = torch.optim.Adam(encoder.parameters(), lr=1e-3)
dec_opt = torch.optim.Adam(decoder.parameters(), lr=3e-3)
schedulers = [
    torch.optim.lr_scheduler.StepLR(enc_opt, step_size=1, gamma=0.5),
    torch.optim.lr_scheduler.StepLR(dec_opt, step_size=1, gamma=0.9),
]
criterion = nn.MSELoss()

data = torch.randn(48, 20)
loader = torch.utils.data.DataLoader(data, batch_size=16, shuffle=True)

for epoch in range(2):
    running = 0.0
    for batch in loader:
        recon = decoder(encoder(batch))
        loss = criterion(recon, batch)
        enc_opt.zero_grad()
        dec_opt.zero_grad()
        loss.backward()
        enc_opt.step()
        dec_opt.step()
        running += loss.item() * batch.size(0)
    for scheduler in schedulers:
        scheduler.step()
    print(f"epoch {epoch}: mse {running / len(data):.4f}")

encoder.eval()
decoder.eval()
with torch.no_grad():
    codes = encoder(data)
    print("latent std per dim:", codes.std(0).tolist())
torch.save({"encoder": encoder.state_dict(), "decoder": decoder.state_dict()}, "/dev/null")
