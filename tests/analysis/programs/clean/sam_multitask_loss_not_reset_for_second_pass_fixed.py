"""Sharpness-Aware Minimization for a multi-label classifier with one binary head per
finding (a chest-X-ray-like setup on random features).

Twin of buggy/sam_multitask_loss_not_reset_for_second_pass.py, fixed as SAM's README
lays the step out: the second pass computes its own loss from zero on the new forward
at the perturbed weights, so its backward stays within that pass's graph.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class SAM(torch.optim.Optimizer):
    def __init__(self, params, base_optimizer, rho=0.05, **kwargs):
        super().__init__(params, dict(rho=rho, **kwargs))
        self.base_optimizer = base_optimizer(self.param_groups, **kwargs)

    @torch.no_grad()
    def first_step(self, zero_grad=False):
        norm = torch.norm(torch.stack([p.grad.norm() for g in self.param_groups for p in g["params"] if p.grad is not None]))
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                self.state[p]["e_w"] = e_w = p.grad * group["rho"] / (norm + 1e-12)
                p.add_(e_w)
        if zero_grad:
            self.zero_grad()

    @torch.no_grad()
    def second_step(self, zero_grad=False):
        for group in self.param_groups:
            for p in group["params"]:
                if "e_w" in self.state[p]:
                    p.sub_(self.state[p].pop("e_w"))
        self.base_optimizer.step()
        if zero_grad:
            self.zero_grad()


def get_loss(output, target, t):
    loss_t = F.binary_cross_entropy_with_logits(output[:, t], target[:, t])
    acc_t = ((output[:, t] > 0).float() == target[:, t]).float().mean()
    return loss_t, acc_t


def main(steps=4, num_tasks=3):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, num_tasks))
    optimizer = SAM(model.parameters(), torch.optim.SGD, lr=0.1, momentum=0.9)
    for step in range(steps):
        image = torch.randn(32, 16)
        target = (image[:, :num_tasks] > 0).float()
        loss_sum = [0.0] * num_tasks
        output = model(image)
        loss = 0
        for t in range(num_tasks):
            loss_t, acc_t = get_loss(output, target, t)
            loss += loss_t
            loss_sum[t] += loss_t.item()
        optimizer.zero_grad()
        loss.backward()
        optimizer.first_step(zero_grad=True)

        output = model(image)
        loss = 0
        for t in range(num_tasks):
            loss_t, acc_t = get_loss(output, target, t)
            loss += loss_t
        loss.backward()
        assert all(p.grad is not None for p in model.parameters())
        optimizer.second_step(zero_grad=True)
        print(f"step {step}: task losses {[round(v, 3) for v in loss_sum]}")


if __name__ == "__main__":
    main()
