"""Grad-CAM attribution for every class of a small CNN: the ``GradCAM`` wrapper's own
``backward(ids=...)`` method (not ``Tensor.backward``) backwards a one-hot gradient from
the logits kept by ``forward``, retaining the graph for the next class (negative for
issue 13, mechanism 4: an object's own ``backward`` method is not a tensor's).
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class SmallCNN(nn.Module):
    def __init__(self, n_classes=3):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(1, 6, 3, padding=1), nn.ReLU(), nn.Conv2d(6, 6, 3, padding=1), nn.ReLU())
        self.fc = nn.Linear(6, n_classes)

    def forward(self, x):
        return self.fc(self.features(x).mean((2, 3)))


class GradCAM:
    def __init__(self, model):
        self.model = model
        self.activations = None
        model.features.register_forward_hook(self._save)

    def _save(self, module, inputs, output):
        self.activations = output
        output.retain_grad()

    def forward(self, image):
        self.logits = self.model(image)
        return self.logits.softmax(-1)

    def backward(self, ids):
        one_hot = F.one_hot(ids, self.logits.size(-1)).float()
        self.model.zero_grad()
        self.activations.grad = None
        self.logits.backward(gradient=one_hot, retain_graph=True)

    def generate(self):
        weights = self.activations.grad.mean((2, 3), keepdim=True)
        return F.relu((weights * self.activations).sum(1)).detach()


def main():
    torch.manual_seed(0)
    gcam = GradCAM(SmallCNN())
    images = torch.randn(2, 1, 8, 8)
    probs = gcam.forward(images)
    for cls in range(probs.size(-1)):
        gcam.backward(ids=torch.full((2,), cls))
        cam = gcam.generate()
        print(cls, cam.shape, round(cam.sum().item(), 4))


if __name__ == "__main__":
    main()
