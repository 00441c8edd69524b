"""Adversarial attack on a neural force field: a perturbation of the atomic positions is
optimised to maximise the disagreement (variance) of an ensemble's predicted forces while
keeping the energy low, as in uncertainty-driven adversarial sampling.

Report: https://github.com/learningmatter-mit/Atomistic-Adversarial-Attacks/issues/1 --
attacking a user's own model raised "Trying to backward through the graph a second time".
The maintainer: the forces are the gradient of the energy, computed inside the model
with torch.autograd.grad, and the reference force field passes retain_graph=True (and
builds the graph) there; without it the gradient call frees the energy's graph, and the
attack's loss, which uses the energy too, is backwarded into it. That fixed it.
"""

import torch
import torch.nn as nn


class EnergyModel(nn.Module):
    def __init__(self, hidden=32):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(1, hidden), nn.Tanh(), nn.Linear(hidden, 1))

    def forward(self, positions):
        diff = positions[:, None, :] - positions[None, :, :]
        dist = (diff.pow(2).sum(-1) + torch.eye(len(positions))).sqrt()
        pair = self.net(dist.unsqueeze(-1)).squeeze(-1) * (1 - torch.eye(len(positions)))
        energy = 0.5 * pair.sum()
        forces = -torch.autograd.grad(energy, positions)[0]
        return energy, forces


def main(steps=4, atoms=6, kT=1.0):
    torch.manual_seed(0)
    ensemble = [EnergyModel() for _ in range(3)]
    for model in ensemble:
        model.requires_grad_(False)
    base = torch.randn(atoms, 3) * 1.5
    delta = torch.zeros(atoms, 3, requires_grad=True)
    optimizer = torch.optim.Adam([delta], lr=0.05)
    for step in range(steps):
        positions = base + delta
        outputs = [model(positions) for model in ensemble]
        energies = torch.stack([e for e, _ in outputs])
        forces = torch.stack([f for _, f in outputs])
        uncertainty = forces.var(0).mean()
        boltzmann = torch.exp(-energies.mean() / kT)
        loss = -uncertainty * boltzmann
        optimizer.zero_grad()
        loss.backward()  # error: [shared-graph-backward]
        optimizer.step()
        print(f"step {step}: force variance {uncertainty.item():.5f} energy {energies.mean().item():.3f}")


if __name__ == "__main__":
    main()
