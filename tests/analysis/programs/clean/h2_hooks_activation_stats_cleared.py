"""Forward hooks record activations for an activation-L1 penalty and for statistics. The
record list is cleared at the start of every step (the penalty uses only this step's
activations) and the statistics keep detached copies.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class ActivationTap:
    def __init__(self, model):
        self.current = []
        self.running_mean = {}
        self.handles = []
        for name, module in model.named_modules():
            if isinstance(module, nn.ReLU):
                self.handles.append(module.register_forward_hook(self.make_hook(name)))

    def make_hook(self, name):
        def hook(module, inputs, output):
            self.current.append(output)
            mean = output.detach().mean().item()
            self.running_mean[name] = 0.9 * self.running_mean.get(name, mean) + 0.1 * mean

        return hook

    def reset(self):
        self.current = []

    def penalty(self):
        return sum(a.abs().mean() for a in self.current)


def main(l1=1e-3):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 3))
    tap = ActivationTap(model)
    grad_norms = []
    model[2].weight.register_hook(lambda g: grad_norms.append(g.norm().item()))
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    x, y = torch.randn(60, 10), torch.randint(0, 3, (60,))
    for epoch in range(2):
        for i in range(0, 60, 20):
            tap.reset()
            loss = F.cross_entropy(model(x[i : i + 20]), y[i : i + 20]) + l1 * tap.penalty()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print(epoch, round(loss.item(), 4), {k: round(v, 3) for k, v in tap.running_mean.items()})
    for handle in tap.handles:
        handle.remove()
    print("grad norms seen:", len(grad_norms))


if __name__ == "__main__":
    main()
