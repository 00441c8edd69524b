"""Domain-adversarial training with a custom gradient-reversal ``autograd.Function`` and a
tensor hook that clips the feature gradient; the task loss and the domain loss are summed and
backwarded once.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class GradReverse(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, lambd):
        ctx.lambd = lambd
        return x.view_as(x)

    @staticmethod
    def backward(ctx, grad_output):
        return -ctx.lambd * grad_output, None


class DANN(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 16), nn.ReLU())
        self.label_clf = nn.Linear(16, 3)
        self.domain_clf = nn.Sequential(nn.Linear(16, 16), nn.ReLU(), nn.Linear(16, 1))

    def forward(self, x, lambd):
        f = self.features(x)
        if f.requires_grad:
            f.register_hook(lambda grad: grad.clamp(-1.0, 1.0))
        return self.label_clf(f), self.domain_clf(GradReverse.apply(f, lambd)).squeeze(-1)


def main(steps=6):
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(0)
    src_x, src_y = torch.randn(48, 10, generator=g), torch.randint(0, 3, (48,), generator=g)
    tgt_x = torch.randn(48, 10, generator=g) + 0.5
    model = DANN()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.02, momentum=0.9)
    for step in range(steps):
        lambd = 2.0 / (1.0 + torch.exp(torch.tensor(-10.0 * step / steps)).item()) - 1
        idx = torch.randint(0, 48, (16,), generator=g)
        cls_logits, dom_src = model(src_x[idx], lambd)
        _, dom_tgt = model(tgt_x[idx], lambd)
        task_loss = F.cross_entropy(cls_logits, src_y[idx])
        dom_loss = F.binary_cross_entropy_with_logits(
            torch.cat([dom_src, dom_tgt]), torch.cat([torch.zeros(16), torch.ones(16)])
        )
        loss = task_loss + dom_loss
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(step, round(task_loss.item(), 4), round(dom_loss.item(), 4))


if __name__ == "__main__":
    main()
