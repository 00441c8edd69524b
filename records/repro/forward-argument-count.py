"""pytorch/forward-argument-count: a module called with arguments its forward() does not take."""

import torch
from torch import nn

FIXES = {
    "workarounds.0": "match_forward",
}


class ImageText(nn.Module):
    def __init__(self):
        super().__init__()
        self.image = nn.Linear(4, 2)
        self.text = nn.Linear(3, 2)

    def forward(self, image, text):
        return self.image(image) + self.text(text)


def variant_missing_input(fix=None):
    """forward(image, text) called with the image alone: a refactor added an input."""
    model = ImageText()
    image, text = torch.ones(2, 4), torch.ones(2, 3)
    out = model(image, text) if fix == "match_forward" else model(image)
    assert out.shape == (2, 2)


def variant_batch_splatted(fix=None):
    """The whole (inputs, labels) batch splatted into a forward that takes the inputs."""
    model = nn.Sequential(nn.Linear(4, 2))
    batch = (torch.ones(2, 4), torch.tensor([0, 1]))
    inputs, _labels = batch
    out = model(inputs) if fix == "match_forward" else model(*batch)
    assert out.shape == (2, 2)


def variant_unexpected_keyword(fix=None):
    """A keyword argument another model's forward takes (attention_mask) passed to this one."""
    model = nn.Linear(4, 2)
    inputs, mask = torch.ones(2, 4), torch.ones(2, dtype=torch.bool)
    out = model(inputs) if fix == "match_forward" else model(inputs, attention_mask=mask)
    assert out.shape == (2, 2)


if __name__ == "__main__":
    variant_missing_input()
