"""Neural style transfer (Gatys et al.) with a small random feature extractor. As in the
PyTorch tutorial, the content and style targets are detached from the extractor's graph.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


def gram_matrix(x):
    b, c, h, w = x.size()
    features = x.view(b * c, h * w)
    return features @ features.t() / (b * c * h * w)


class ContentLoss(nn.Module):
    def __init__(self, target):
        super().__init__()
        self.target = target.detach()

    def forward(self, x):
        self.loss = F.mse_loss(x, self.target)
        return x


class StyleLoss(nn.Module):
    def __init__(self, target_feature):
        super().__init__()
        self.target = gram_matrix(target_feature).detach()

    def forward(self, x):
        self.loss = F.mse_loss(gram_matrix(x), self.target)
        return x


def build_model(cnn, style_img, content_img):
    model = nn.Sequential()
    content_losses, style_losses = [], []
    for i, layer in enumerate(cnn.children()):
        model.add_module(f"layer_{i}", layer)
        if isinstance(layer, nn.ReLU):
            target = model(content_img)
            content = ContentLoss(target)
            model.add_module(f"content_{i}", content)
            content_losses.append(content)
            style = StyleLoss(model(style_img))
            model.add_module(f"style_{i}", style)
            style_losses.append(style)
    return model, style_losses, content_losses


def run_style_transfer(cnn, content_img, style_img, num_steps=3, style_weight=1e5):
    model, style_losses, content_losses = build_model(cnn, style_img, content_img)
    input_img = content_img.clone().requires_grad_(True)
    model.requires_grad_(False)
    optimizer = torch.optim.Adam([input_img], lr=0.05)
    for step in range(num_steps):
        optimizer.zero_grad()
        model(input_img)
        style_score = sum(sl.loss for sl in style_losses)
        content_score = sum(cl.loss for cl in content_losses)
        loss = style_weight * style_score + content_score
        loss.backward()
        optimizer.step()
        with torch.no_grad():
            input_img.clamp_(0, 1)
        print(f"step {step}: style {style_score.item():.4f} content {content_score.item():.4f}")
    return input_img.detach()


if __name__ == "__main__":
    torch.manual_seed(0)
    cnn = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU(), nn.Conv2d(4, 8, 3, padding=1), nn.ReLU())
    out = run_style_transfer(cnn, torch.rand(1, 3, 8, 8), torch.rand(1, 3, 8, 8))
    print(out.shape)
