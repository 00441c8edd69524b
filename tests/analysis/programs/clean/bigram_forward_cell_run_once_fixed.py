"""Character bigram language model trained by hand-written gradient descent, with the
forward pass inside the loop so every update backwards a fresh loss (the structure of
the lecture's training loop that
https://github.com/karpathy/nn-zero-to-hero/issues/31 was answered with).
"""

import torch
import torch.nn.functional as F

WORDS = ["emma", "olivia", "ava", "isabella", "sophia", "mia", "amelia", "harper"]


def bigram_pairs(words):
    chars = sorted(set("".join(words)))
    stoi = {c: i + 1 for i, c in enumerate(chars)}
    stoi["."] = 0
    xs, ys = [], []
    for w in words:
        seq = ["."] + list(w) + ["."]
        for a, b in zip(seq, seq[1:]):
            xs.append(stoi[a])
            ys.append(stoi[b])
    return torch.tensor(xs), torch.tensor(ys), len(stoi)


def main(steps=5, lr=20.0):
    g = torch.Generator().manual_seed(2147483647)
    xs, ys, vocab = bigram_pairs(WORDS)
    W = torch.randn((vocab, vocab), generator=g, requires_grad=True)
    xenc = F.one_hot(xs, num_classes=vocab).float()
    history = []
    for k in range(steps):
        # forward pass
        logits = xenc @ W
        counts = logits.exp()
        probs = counts / counts.sum(1, keepdim=True)
        loss = -probs[torch.arange(xs.numel()), ys].log().mean() + 0.01 * (W**2).mean()

        # backward pass and update
        W.grad = None
        loss.backward()
        W.data += -lr * W.grad
        history.append(loss.item())
        print(f"step {k} loss {loss.item():.4f}")
    assert history[-1] < history[0]


if __name__ == "__main__":
    main()
