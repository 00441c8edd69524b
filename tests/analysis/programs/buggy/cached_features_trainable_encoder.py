"""Speed-up attempt: encode the whole (small) training set once, then train.

The encoder is still being fine-tuned (it is in the optimizer), so the cached
features hang off a graph that the first backward frees.

Real report of this mechanism: https://github.com/lucidrains/denoising-diffusion-pytorch/issues/109
A trainable conv1D applied to the data once, outside the training loop, made the second
loss.backward() raise.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Encoder(nn.Module):
    def __init__(self, d_in, d_out):
        super().__init__()
        self.proj = nn.Linear(d_in, d_out)
        self.norm = nn.LayerNorm(d_out)

    def forward(self, x):
        return self.norm(F.gelu(self.proj(x)))


def accuracy(logits, y):
    return (logits.argmax(-1) == y).float().mean().item()


def main(epochs=3, lr=1e-2):
    torch.manual_seed(0)
    x_train = torch.randn(40, 12)
    y_train = torch.randint(0, 3, (40,))
    x_val, y_val = torch.randn(20, 12), torch.randint(0, 3, (20,))

    encoder = Encoder(12, 8)
    head = nn.Linear(8, 3)
    optimizer = torch.optim.Adam(list(encoder.parameters()) + list(head.parameters()), lr=lr)

    train_features = encoder(x_train)

    best = 0.0
    for epoch in range(epochs):
        encoder.train()
        head.train()
        optimizer.zero_grad()
        logits = head(train_features)
        loss = F.cross_entropy(logits, y_train)
        loss.backward()  # error: [pre-loop-graph-backward]
        optimizer.step()

        with torch.no_grad():
            val_acc = accuracy(head(encoder(x_val)), y_val)
        best = max(best, val_acc)
        print(f"epoch {epoch} loss {loss.item():.3f} val_acc {val_acc:.3f}")
    return best


if __name__ == "__main__":
    main()
