"""ImageNet-style training loop (train / AverageMeter / top-k accuracy) switched to SAM.

Report: https://github.com/davda54/sam/issues/45 -- the reporter put SAM into the
ImageNet example's train(): one forward, ``loss.backward()``, ``first_step``, then
``criterion(output, target).backward()`` -- the README's second pass, but computed on
the `output` of the first forward -- and got "Trying to backward through the graph a
second time" there. The README's comment on that line is the fix: the second pass needs a
full forward pass at the perturbed weights.

The second loss is new, but it runs back through the first forward's graph, which the
first backward freed.
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
        grads = [p.grad.norm(2) for g in self.param_groups for p in g["params"] if p.grad is not None]
        grad_norm = torch.stack(grads).norm(2)
        for group in self.param_groups:
            scale = group["rho"] / (grad_norm + 1e-12)
            for p in group["params"]:
                if p.grad is not None:
                    self.state[p]["e_w"] = p.grad * scale
                    p.add_(self.state[p]["e_w"])
        if zero_grad:
            self.zero_grad()

    @torch.no_grad()
    def second_step(self, zero_grad=False):
        for group in self.param_groups:
            for p in group["params"]:
                if "e_w" in self.state[p]:
                    p.sub_(self.state[p]["e_w"])
        self.base_optimizer.step()
        if zero_grad:
            self.zero_grad()


class AverageMeter:
    def __init__(self):
        self.sum, self.count = 0.0, 0

    def update(self, value, n=1):
        self.sum += value * n
        self.count += n

    @property
    def avg(self):
        return self.sum / max(self.count, 1)


def accuracy(output, target, topk=(1,)):
    with torch.no_grad():
        _, pred = output.topk(max(topk), dim=1)
        correct = pred.eq(target[:, None])
        return [correct[:, :k].any(dim=1).float().mean() * 100 for k in topk]


def make_model(classes=10):
    return nn.Sequential(
        nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
        nn.Linear(16, classes),
    )


def train(loader, model, criterion, optimizer, epoch):
    losses, top1, top5 = AverageMeter(), AverageMeter(), AverageMeter()
    model.train()
    for images, target in loader:
        output = model(images)
        loss = criterion(output, target)
        loss.backward()
        optimizer.first_step(zero_grad=True)
        criterion(output, target).backward()  # error: [shared-graph-backward]
        optimizer.second_step(zero_grad=True)
        acc1, acc5 = accuracy(output, target, topk=(1, 5))
        losses.update(loss.item(), images.size(0))
        top1.update(acc1.item(), images.size(0))
        top5.update(acc5.item(), images.size(0))
    print(f"epoch {epoch}: loss {losses.avg:.3f} acc@1 {top1.avg:.1f} acc@5 {top5.avg:.1f}")


def main():
    torch.manual_seed(0)
    loader = [(torch.randn(16, 3, 16, 16), torch.randint(0, 10, (16,))) for _ in range(4)]
    model = make_model()
    criterion = nn.CrossEntropyLoss()
    optimizer = SAM(model.parameters(), torch.optim.SGD, lr=0.05, momentum=0.9)
    for epoch in range(2):
        train(loader, model, criterion, optimizer, epoch)


if __name__ == "__main__":
    main()
