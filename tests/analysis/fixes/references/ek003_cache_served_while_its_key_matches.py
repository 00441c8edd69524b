"""Reference for ek003_cache_served_while_its_key_matches: the calculator computes the reciprocal
vectors from the current box on every call, with nothing cached."""

import torch


class Energy:
    def reciprocal(self, box):
        return 1.0 / box

    def __call__(self, positions, box):
        return torch.cos(positions * self.reciprocal(box)).sum()


torch.manual_seed(0)
positions = torch.rand(6, requires_grad=True)
box = torch.tensor(2.0, requires_grad=True)
energy_of = Energy()
for step in range(3):
    energy = energy_of(positions, box)
    positions.grad, box.grad = None, None
    energy.backward()
    with torch.no_grad():
        positions -= 0.1 * positions.grad
    print(f"step {step}: energy {energy.item():.4f} stress {box.grad.item():.4f}")
