"""Noise-tolerant training by meta-learning (first-order): for each of several synthetic
label-noise types, a virtual SGD step is taken on the noisy labels and the adapted
weights are asked to agree with a mean-teacher's predictions.

Report: https://github.com/LiJunnan1992/MLNT/issues/8 -- in MLNT's meta-training, the
first synthetic noise type worked but the second one's ``grads = torch.autograd.grad()``
raised "Trying to backward through the graph a second time"; a reply suggested
``retain_graph=True``.

Here the student's forward on the batch runs once, before the loop over noise types,
and each noise type's ``autograd.grad`` goes through that one graph without retaining
it.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.func import functional_call


def corrupt(labels, n_classes, seed, rate=0.3):
    gen = torch.Generator().manual_seed(seed)
    flip = torch.rand(labels.shape, generator=gen) < rate
    random_labels = torch.randint(0, n_classes, labels.shape, generator=gen)
    return torch.where(flip, random_labels, labels)


def main(steps=3, noise_types=3, inner_lr=0.2):
    torch.manual_seed(0)
    x = torch.randn(40, 8)
    y = (x[:, 0] > 0).long() + (x[:, 1] > 0).long()
    student = nn.Sequential(nn.Linear(8, 24), nn.ReLU(), nn.Linear(24, 3))
    teacher = nn.Sequential(nn.Linear(8, 24), nn.ReLU(), nn.Linear(24, 3))
    teacher.load_state_dict(student.state_dict())
    names = [name for name, _ in student.named_parameters()]
    optimizer = torch.optim.SGD(student.parameters(), lr=0.1)
    for step in range(steps):
        logits = student(x)
        with torch.no_grad():
            target = F.softmax(teacher(x), dim=1)
        consistency = 0.0
        for m in range(noise_types):
            noisy = corrupt(y, 3, seed=100 * step + m)
            params = [p for _, p in student.named_parameters()]
            grads = torch.autograd.grad(F.cross_entropy(logits, noisy), params)  # error: [pre-loop-graph-backward]
            fast = {n: p - inner_lr * g for n, p, g in zip(names, params, grads)}
            fast_logits = functional_call(student, fast, (x,))
            consistency = consistency + F.kl_div(F.log_softmax(fast_logits, 1), target, reduction="batchmean")
        loss = F.cross_entropy(student(x), y) + consistency / noise_types
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        with torch.no_grad():
            for t, s in zip(teacher.parameters(), student.parameters()):
                t.mul_(0.9).add_(0.1 * s)
        print(f"step {step} loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
