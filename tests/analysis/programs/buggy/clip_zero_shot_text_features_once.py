"""CLIP-style fine-tuning for zero-shot classification.

Class prompts are encoded by the (trainable) text tower once per run, to save
compute, and every image batch is scored against them.

Real report of this mechanism: https://github.com/tejank10/null-text-inversion/issues/1
The maintainer traces this error to a variable used during training (the text embedding)
that is not detached before training starts.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class TextTower(nn.Module):
    def __init__(self, vocab=30, dim=16):
        super().__init__()
        self.tok = nn.Embedding(vocab, dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, tokens):
        return self.proj(self.tok(tokens).mean(1))


class ImageTower(nn.Module):
    def __init__(self, dim=16):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, stride=2)
        self.proj = nn.Linear(8, dim)

    def forward(self, images):
        return self.proj(F.relu(self.conv(images)).mean((2, 3)))


class CLIPClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.text = TextTower()
        self.image = ImageTower()
        self.logit_scale = nn.Parameter(torch.tensor(2.0))


def main():
    torch.manual_seed(0)
    model = CLIPClassifier()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4, weight_decay=0.1)
    class_prompts = torch.randint(0, 30, (4, 5))  # "a photo of a {class}" token ids

    text_features = F.normalize(model.text(class_prompts), dim=-1)

    for epoch in range(2):
        for step in range(2):
            images = torch.randn(6, 3, 9, 9)
            labels = torch.randint(0, 4, (6,))
            image_features = F.normalize(model.image(images), dim=-1)
            logits = model.logit_scale.exp() * image_features @ text_features.t()
            loss = F.cross_entropy(logits, labels)
            optimizer.zero_grad()
            loss.backward()  # error: [pre-loop-graph-backward]
            optimizer.step()
            with torch.no_grad():
                model.logit_scale.clamp_(0, 4.6052)
        print("epoch", epoch, "loss", round(loss.item(), 4))


if __name__ == "__main__":
    main()
