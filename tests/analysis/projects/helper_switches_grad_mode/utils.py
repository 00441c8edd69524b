import torch
from torch import nn


def make_critic():
    return nn.Linear(4, 1)


def evaluation_mode():
    """Switches autograd off for everything that follows, as ElegantRL's `train_agent` does once."""
    torch.set_grad_enabled(False)


def training_mode():
    torch.set_grad_enabled(True)
