"""Fine-tune a small text classifier, half-migrated to an Accelerate-style API.

`Accelerator` below is a tiny stand-in for accelerate.Accelerator (not installed here).

Real report of this mechanism: https://github.com/dropreg/R-Drop/issues/8
The same loss is backwarded twice, by `optimizer.backward(loss)` in the task and again in
the loss code; removing the duplicate call fixed it.
"""

import torch
from torch import nn
from torch.nn import functional as F


class Accelerator:
    def __init__(self, gradient_accumulation_steps=1):
        self.gradient_accumulation_steps = gradient_accumulation_steps
        self.device = torch.device("cpu")

    def prepare(self, *objects):
        return objects

    def backward(self, loss, **kwargs):
        loss = loss / self.gradient_accumulation_steps
        loss.backward(**kwargs)

    def print(self, *args):
        print(*args)


class BagOfWordsClassifier(nn.Module):
    def __init__(self, vocab_size=50, dim=16, num_labels=2):
        super().__init__()
        self.embedding = nn.EmbeddingBag(vocab_size, dim, mode="mean")
        self.classifier = nn.Linear(dim, num_labels)

    def forward(self, input_ids, labels=None):
        logits = self.classifier(torch.tanh(self.embedding(input_ids)))
        loss = F.cross_entropy(logits, labels) if labels is not None else None
        return loss, logits


def batches(n_batches=3, batch_size=8, seq_len=12):
    for _ in range(n_batches):
        yield torch.randint(0, 50, (batch_size, seq_len)), torch.randint(0, 2, (batch_size,))


def main():
    torch.manual_seed(0)
    accelerator = Accelerator()
    model = BagOfWordsClassifier()
    optimizer = torch.optim.AdamW(model.parameters(), lr=5e-3)
    scheduler = torch.optim.lr_scheduler.LinearLR(optimizer, start_factor=1.0, end_factor=0.1, total_iters=6)
    model, optimizer, scheduler = accelerator.prepare(model, optimizer, scheduler)

    for epoch in range(2):
        model.train()
        for step, (input_ids, labels) in enumerate(batches()):
            loss, _ = model(input_ids, labels=labels)
            accelerator.backward(loss)
            loss.backward()  # error: [double-backward]
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad()
            if step % 2 == 0:
                accelerator.print(f"epoch {epoch} step {step} loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
