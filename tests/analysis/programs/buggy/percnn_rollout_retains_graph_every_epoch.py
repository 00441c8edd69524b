"""Physics-encoded recurrent convolutional network (PeRCNN-style) learning a 1-D
reaction-diffusion system: a learned convolutional update is rolled out from a fixed
initial state and compared with the measured snapshots.

Report: https://github.com/isds-neu/PeRCNN/issues/3 -- "training RNN using
retain_graph=True": the asker asks why the recurrent network is trained with
loss.backward(retain_graph=True) and whether it makes GPU memory explode and training
slow. Every epoch rolls the recurrence out again from the (constant) initial state, so
each epoch's loss has a new graph and is backwarded once; the kept graph is never used.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


def simulate(u0, steps, dt=0.05, nu=0.1, k=1.0):
    frames, u = [u0], u0
    lap = torch.tensor([[[1.0, -2.0, 1.0]]])
    for _ in range(steps):
        u = u + dt * (nu * F.conv1d(F.pad(u, (1, 1), mode="circular"), lap) + k * u * (1 - u))
        frames.append(u)
    return torch.stack(frames)


class PeRCNNCell(nn.Module):
    def __init__(self, channels=8, dt=0.05):
        super().__init__()
        self.dt = dt
        self.diff = nn.Conv1d(1, 1, 3, bias=False)
        self.pi_a, self.pi_b = nn.Conv1d(1, channels, 1), nn.Conv1d(1, channels, 1)
        self.mix = nn.Conv1d(channels, 1, 1)

    def forward(self, u):
        padded = F.pad(u, (1, 1), mode="circular")
        reaction = self.mix(self.pi_a(u) * self.pi_b(u))
        return u + self.dt * (self.diff(padded) + reaction)


def main(epochs=6, steps=6):
    torch.manual_seed(0)
    u0 = 0.5 + 0.2 * torch.sin(torch.linspace(0, 6.28, 32)).view(1, 1, 32)
    truth = simulate(u0, steps)
    model = PeRCNNCell()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    for epoch in range(epochs):
        u, outputs = u0, [u0]
        for _ in range(steps):
            u = model(u)
            outputs.append(u)
        loss = F.mse_loss(torch.stack(outputs), truth)
        optimizer.zero_grad()
        loss.backward(retain_graph=True)  # error: [retain-graph-in-loop]
        optimizer.step()
        if epoch % 3 == 0:
            print(f"epoch {epoch}: loss {loss.item():.6f}")


if __name__ == "__main__":
    main()
