"""Sentence-pair classifier trained from dict batches with ``model(**batch)``.

The loop backwards ``loss``; a leftover line from an older version of the loop
backwards ``outputs["loss"]`` -- the same tensor -- again.

Real report of this mechanism: https://github.com/dropreg/R-Drop/issues/8
The same loss is backwarded twice, by `optimizer.backward(loss)` in the task and again in
the loss code; removing the duplicate call fixed it.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class PairClassifier(nn.Module):
    def __init__(self, vocab=40, dim=12, n_labels=2):
        super().__init__()
        self.embed = nn.EmbeddingBag(vocab, dim, mode="mean")
        self.mlp = nn.Sequential(nn.Linear(4 * dim, dim), nn.Tanh(), nn.Linear(dim, n_labels))

    def forward(self, premise, hypothesis, labels=None):
        a, b = self.embed(premise), self.embed(hypothesis)
        logits = self.mlp(torch.cat([a, b, (a - b).abs(), a * b], dim=-1))
        outputs = {"logits": logits}
        if labels is not None:
            outputs["loss"] = F.cross_entropy(logits, labels)
        return outputs


def collate(rows):
    return {key: torch.stack([row[key] for row in rows]) for key in rows[0]}


def make_rows(n=24, length=5, vocab=40):
    g = torch.Generator().manual_seed(0)
    return [
        {
            "premise": torch.randint(0, vocab, (length,), generator=g),
            "hypothesis": torch.randint(0, vocab, (length,), generator=g),
            "labels": torch.randint(0, 2, (), generator=g),
        }
        for _ in range(n)
    ]


def main():
    torch.manual_seed(0)
    rows = make_rows()
    model = PairClassifier()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    for epoch in range(2):
        for start in range(0, len(rows), 6):
            batch = collate(rows[start : start + 6])
            outputs = model(**batch)
            loss = outputs["loss"]
            optimizer.zero_grad()
            loss.backward()
            acc = (outputs["logits"].argmax(-1) == batch["labels"]).float().mean()
            outputs["loss"].backward()  # error: [double-backward]
            optimizer.step()
        print(f"epoch {epoch}: loss={loss.item():.4f} acc={acc.item():.2f}")


if __name__ == "__main__":
    main()
