"""Open-vocabulary segmentation head (SAN-style) on toy pixel features: a CLIP-like text
encoder embeds the class names, and each pixel is classified by its similarity to those
embeddings; the text encoder is fine-tuned together with the pixel decoder.

Twin of buggy/open_vocab_seg_text_encoder_unfrozen_with_feature_cache.py: the feature
cache only makes sense for a frozen encoder, so the trainable encoder is built with
cache_feature=False and embeds the class names afresh on every forward.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

CLASSES = ["road", "car", "tree", "sky"]


class TextEncoder(nn.Module):
    def __init__(self, dim=16, vocab=64, cache_feature=True):
        super().__init__()
        self.token_embedding = nn.Embedding(vocab, dim)
        self.proj = nn.Linear(dim, dim)
        self.cache_feature = cache_feature
        self.cache = {}

    def encode_text(self, tokens):
        return F.normalize(self.proj(self.token_embedding(tokens).mean(1)), dim=-1)

    def forward(self, class_names):
        tokens = torch.tensor([[ord(c) % 64 for c in name.ljust(5)[:5]] for name in class_names])
        if not self.cache_feature:
            return self.encode_text(tokens)
        new = [n for n in class_names if n not in self.cache]
        if new:
            embeds = self.encode_text(tokens[[class_names.index(n) for n in new]])
            self.cache.update(dict(zip(new, embeds)))
        return torch.stack([self.cache[n] for n in class_names])


def main(steps=4, dim=16):
    torch.manual_seed(0)
    text_encoder = TextEncoder(dim, cache_feature=False)
    pixel_decoder = nn.Sequential(nn.Conv2d(3, dim, 3, padding=1), nn.ReLU(), nn.Conv2d(dim, dim, 1))
    params = [*text_encoder.parameters(), *pixel_decoder.parameters()]
    optimizer = torch.optim.AdamW(params, lr=1e-3)
    for step in range(steps):
        images = torch.randn(2, 3, 8, 8)
        labels = torch.randint(len(CLASSES), (2, 8, 8))
        class_embeds = text_encoder(CLASSES)
        pixels = F.normalize(pixel_decoder(images), dim=1)
        logits = torch.einsum("bchw,kc->bkhw", pixels, class_embeds) / 0.07
        loss = F.cross_entropy(logits, labels)
        optimizer.zero_grad()
        loss.backward()
        assert all(p.grad is not None for p in text_encoder.parameters())
        optimizer.step()
        print(f"step {step}: loss {loss.item():.3f}")


if __name__ == "__main__":
    main()
