"""Adversarial training with FGSM examples (Goodfellow et al.): the input gradient is taken with
retain_graph=True so the clean loss can still be combined with the adversarial loss in the one
final backward.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class SmallNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 6, 3, padding=1)
        self.fc = nn.Linear(6 * 4 * 4, 10)

    def forward(self, x):
        return self.fc(F.max_pool2d(F.relu(self.conv(x)), 2).flatten(1))


def fgsm(images, grad, epsilon):
    return (images + epsilon * grad.sign()).clamp(0, 1).detach()


def train_epoch(model, optimizer, batches, epsilon=0.1, adv_weight=0.5):
    model.train()
    stats = []
    for images, labels in batches:
        images = images.clone().requires_grad_(True)
        clean_loss = F.cross_entropy(model(images), labels)
        (input_grad,) = torch.autograd.grad(clean_loss, images, retain_graph=True)
        adv_images = fgsm(images.detach(), input_grad, epsilon)
        adv_loss = F.cross_entropy(model(adv_images), labels)
        loss = (1 - adv_weight) * clean_loss + adv_weight * adv_loss
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        stats.append((clean_loss.item(), adv_loss.item()))
    return stats


@torch.no_grad()
def robust_accuracy(model, images, labels, epsilon=0.1):
    model.eval()
    with torch.enable_grad():
        x = images.clone().requires_grad_(True)
        loss = F.cross_entropy(model(x), labels)
        grad = torch.autograd.grad(loss, x)[0]
    return (model(fgsm(images, grad, epsilon)).argmax(1) == labels).float().mean().item()


def main():
    torch.manual_seed(0)
    model = SmallNet()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    batches = [(torch.rand(8, 1, 8, 8), torch.randint(0, 10, (8,))) for _ in range(2)]
    for epoch in range(2):
        stats = train_epoch(model, optimizer, batches)
        acc = robust_accuracy(model, *batches[0])
        print(f"epoch {epoch}: {stats[-1]} robust acc {acc:.3f}")


if __name__ == "__main__":
    main()
