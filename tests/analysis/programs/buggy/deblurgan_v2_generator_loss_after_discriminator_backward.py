"""DeblurGAN-v2-style training step on toy image patches: the generator restores a
blurred batch; the discriminator's adversarial loss is computed on the restored batch
and backwarded first, then the generator's content + adversarial loss.

Report: https://github.com/VITA-Group/DeblurGANv2/issues/19 -- "Question about your
code": why is retain_graph=True set when the discriminator is updated? The answer: "you
have to do so because few lines below you have loss_G.backward() and you don't want the
information on gradients to be destroyed during the first backprop pass." The
discriminator's loss is computed from the generator's output with its graph; without the
retain, as here, loss_G.backward() runs through the generator graph that loss_D freed.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


def blur(x):
    kernel = torch.full((1, 1, 3, 3), 1 / 9)
    return F.conv2d(F.pad(x, (1, 1, 1, 1), mode="replicate"), kernel)


class Trainer:
    def __init__(self, adv_lambda=0.001):
        self.net_g = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 1, 3, padding=1))
        self.net_d = nn.Sequential(nn.Conv2d(1, 8, 3, stride=2, padding=1), nn.LeakyReLU(0.2), nn.Flatten(), nn.Linear(8 * 16, 1))
        self.optimizer_g = torch.optim.Adam(self.net_g.parameters(), lr=1e-4)
        self.optimizer_d = torch.optim.Adam(self.net_d.parameters(), lr=1e-4)
        self.adv_lambda = adv_lambda

    def loss_d(self, pred, target):
        return (self.net_d(pred).mean() - self.net_d(target).mean()).clamp(min=-10)

    def update_d(self, outputs, targets):
        self.optimizer_d.zero_grad()
        loss_d = self.adv_lambda * self.loss_d(outputs, targets)
        loss_d.backward()
        self.optimizer_d.step()
        return loss_d.item()

    def train_step(self, inputs, targets):
        outputs = inputs + self.net_g(inputs)
        loss_d = self.update_d(outputs, targets)
        self.optimizer_g.zero_grad()
        loss_g = F.l1_loss(outputs, targets) - self.adv_lambda * self.net_d(outputs).mean()
        loss_g.backward()  # error: [shared-graph-backward]
        self.optimizer_g.step()
        return loss_d, loss_g.item()


def main(steps=4):
    torch.manual_seed(0)
    trainer = Trainer()
    for step in range(steps):
        sharp = torch.rand(4, 1, 8, 8)
        loss_d, loss_g = trainer.train_step(blur(sharp), sharp)
        print(f"step {step}: D {loss_d:.5f} G {loss_g:.4f}")


if __name__ == "__main__":
    main()
