"""Grad-CAM maps of a trained GAN discriminator, one map per generated image.

Twin of buggy/gradcam_on_generated_batch_per_image.py, fixed by generating the images
without a graph: the maps need the gradients of the discriminator's score with respect
to its own activations only, so the generator's graph is not wanted, and each map's
backward builds and frees its own graph.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 8, 3, padding=1)
        self.head = nn.Linear(8, 1)

    def forward(self, x):
        return self.head(F.adaptive_avg_pool2d(F.relu(self.conv(x)), 1).flatten(1))


class GradCam:
    def __init__(self, model, layer):
        self.model = model
        layer.register_forward_hook(self.keep_activation)

    def keep_activation(self, module, inputs, output):
        self.activation = output
        output.register_hook(self.keep_gradient)

    def keep_gradient(self, grad):
        self.gradient = grad

    def __call__(self, image):
        self.model.zero_grad()
        score = self.model(image).sum()
        score.backward()
        weights = self.gradient.mean(dim=(2, 3), keepdim=True)
        cam = F.relu((weights * self.activation).sum(1))
        return (cam / (cam.max() + 1e-8)).detach()


def main(n_images=4, z_dim=8):
    torch.manual_seed(0)
    net_g = nn.Sequential(nn.Linear(z_dim, 64), nn.Tanh(), nn.Unflatten(1, (1, 8, 8)))
    net_d = Discriminator()
    cam = GradCam(net_d, net_d.conv)
    z_noise = torch.randn(n_images, z_dim)
    with torch.no_grad():
        x_fake = net_g(z_noise)
    for i in range(n_images):
        heatmap = cam(x_fake[i : i + 1])
        assert cam.gradient is not None and heatmap.shape == (1, 8, 8)
        print(f"image {i}: peak at {divmod(int(heatmap.argmax()), 8)}")


if __name__ == "__main__":
    main()
