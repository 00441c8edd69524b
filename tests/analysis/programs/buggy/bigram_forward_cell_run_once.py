"""Character bigram language model trained by hand-written gradient descent on a weight
matrix, notebook style: a "forward pass" cell and a "backward pass + update" cell.

Report: https://github.com/karpathy/nn-zero-to-hero/issues/31 -- a notebook with a
"Forward Pass" cell (one-hot, logits, probabilities, loss) and a "Backward Pass" cell
(``loss.backward()`` and the weight update) raised "Trying to backward through the graph
a second time"; backwarding again a loss computed once is what raises it.

Here the forward pass is computed once before the loop and the loop only backwards and
updates.
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

    # forward pass
    xenc = F.one_hot(xs, num_classes=vocab).float()
    logits = xenc @ W
    counts = logits.exp()
    probs = counts / counts.sum(1, keepdim=True)
    loss = -probs[torch.arange(xs.numel()), ys].log().mean() + 0.01 * (W**2).mean()

    # backward pass and update
    for k in range(steps):
        W.grad = None
        loss.backward()  # error: [pre-loop-graph-backward]
        W.data += -lr * W.grad
        print(f"step {k} loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
