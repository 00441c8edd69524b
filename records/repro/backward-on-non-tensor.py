"""pytorch/backward-on-non-tensor: backward() called on something that is not the loss tensor."""

import torch
from torch import nn

FIXES = {
    "workarounds.0": "tensor_loss",
}


def _data():
    return nn.Linear(3, 2), torch.ones(4, 3), torch.tensor([0, 1, 1, 0])


def variant_loss_item(fix=None):
    """The loss turned into a Python number with .item() before backward."""
    model, inputs, labels = _data()
    loss = nn.functional.cross_entropy(model(inputs), labels)
    total = loss if fix == "tensor_loss" else loss.item()
    total.backward()
    assert model.weight.grad is not None


def variant_criterion_module(fix=None):
    """backward() called on the loss module instead of on the loss it returned."""
    model, inputs, labels = _data()
    criterion = nn.CrossEntropyLoss()
    loss = criterion(model(inputs), labels)
    (loss if fix == "tensor_loss" else criterion).backward()
    assert model.weight.grad is not None


def variant_loss_returns_a_tuple(fix=None):
    """A loss function that returns (loss, accuracy), unpacked in the wrong order."""
    model, inputs, labels = _data()

    def loss_and_accuracy(logits, target):
        loss = nn.functional.cross_entropy(logits, target)
        return loss, (logits.argmax(1) == target).float().mean().item()

    accuracy, loss = loss_and_accuracy(model(inputs), labels)
    (accuracy if fix == "tensor_loss" else loss).backward()
    assert model.weight.grad is not None


if __name__ == "__main__":
    variant_loss_item()
