"""Relaxing point charges in a periodic box with a reciprocal-space (Ewald-like) energy;
the box ``cell`` requires grad so that every step also yields the stress (``cell.grad``).

Report: https://github.com/lab-cosmo/torch-pme/issues/62 -- "Caching destroys
computational graph": with the k-vector cache introduced in the library, calling the
potential a second time with an unchanged cell and then ``backward`` raised "Trying to
backward through the graph a second time"; the first call worked.

Here the calculator caches the k-vectors computed from ``cell`` and reuses them while
the cell's value does not change, so the second step backwards into the first step's
freed graph.
"""

import math

import torch


class ReciprocalEnergy:
    def __init__(self, n_max=2, smearing=0.6):
        self.n_max = n_max
        self.smearing = smearing
        self._cell_key = None
        self._kvectors = None

    def kvectors(self, cell):
        if self._cell_key is not None and torch.equal(self._cell_key, cell.detach()):
            return self._kvectors
        rng = torch.arange(-self.n_max, self.n_max + 1, dtype=cell.dtype)
        grid = torch.cartesian_prod(rng, rng, rng)
        grid = grid[grid.abs().sum(1) > 0]
        recip = 2 * math.pi * torch.linalg.inv(cell).t()
        self._cell_key, self._kvectors = cell.detach().clone(), grid @ recip
        return self._kvectors

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
    for step in range(steps):
        energy = calculator(positions, charges, cell)
        positions.grad, cell.grad = None, None
        energy.backward()  # error: [carried-graph-backward]
        with torch.no_grad():
            positions -= lr * positions.grad
        print(f"step {step} energy {energy.item():.5f} stress_xx {cell.grad[0, 0].item():.4f}")


if __name__ == "__main__":
    main()
