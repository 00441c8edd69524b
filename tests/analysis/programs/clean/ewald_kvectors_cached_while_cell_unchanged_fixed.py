"""Relaxing point charges in a periodic box with a reciprocal-space energy whose
calculator computes the k-vectors from the current ``cell`` on every call, as the
library did before the cache of https://github.com/lab-cosmo/torch-pme/issues/62 was
introduced, so each step's backward (positions and stress) has a graph of its own.
"""

import math

import torch


class ReciprocalEnergy:
    def __init__(self, n_max=2, smearing=0.6):
        self.n_max = n_max
        self.smearing = smearing

    def kvectors(self, cell):
        rng = torch.arange(-self.n_max, self.n_max + 1, dtype=cell.dtype)
        grid = torch.cartesian_prod(rng, rng, rng)
        grid = grid[grid.abs().sum(1) > 0]
        recip = 2 * math.pi * torch.linalg.inv(cell).t()
        return grid @ recip

    def __call__(self, positions, charges, cell):
        k = self.kvectors(cell)
        k2 = (k * k).sum(1)
        structure = (charges[None, :] * torch.exp(1j * (k @ positions.t()))).sum(1)
        volume = torch.linalg.det(cell).abs()
        weights = torch.exp(-0.5 * self.smearing**2 * k2) / k2
        return (weights * structure.abs() ** 2).sum() * 2 * math.pi / volume


def main(steps=4, lr=0.05):
    torch.manual_seed(0)
    positions = (torch.rand(8, 3, dtype=torch.float64) * 3).requires_grad_()
    charges = torch.tensor([1.0, -1.0] * 4, dtype=torch.float64)
    cell = (3.0 * torch.eye(3, dtype=torch.float64)).requires_grad_()
    calculator = ReciprocalEnergy()
    history = []
    for step in range(steps):
        energy = calculator(positions, charges, cell)
        positions.grad, cell.grad = None, None
        energy.backward()
        with torch.no_grad():
            positions -= lr * positions.grad
        history.append(energy.item())
        print(f"step {step} energy {energy.item():.5f} stress_xx {cell.grad[0, 0].item():.4f}")

    assert history[-1] < history[0] and cell.grad.abs().sum() > 0


if __name__ == "__main__":
    main()
