import torch


def evaluation_mode():
    """Switches autograd off for everything that follows, as ElegantRL's `train_agent` does once."""
    torch.set_grad_enabled(False)


def training_mode():
    torch.set_grad_enabled(True)
