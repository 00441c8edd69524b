"""Sequence-classification fine-tuning written for an Accelerate-style API
(`Accelerator` below is a minimal stand-in), with gradient accumulation and warmup.
"""

import contextlib

import torch
import torch.nn as nn
import torch.nn.functional as F


class Accelerator:
    def __init__(self, gradient_accumulation_steps=1):
        self.gradient_accumulation_steps = gradient_accumulation_steps
        self.step = 0
        self.sync_gradients = True

    def prepare(self, *objs):
        return objs

    @contextlib.contextmanager
    def accumulate(self, model):
        self.step += 1
        self.sync_gradients = self.step % self.gradient_accumulation_steps == 0
        yield

    def backward(self, loss):
        (loss / self.gradient_accumulation_steps).backward()

    def clip_grad_norm_(self, params, max_norm):
        if self.sync_gradients:
            torch.nn.utils.clip_grad_norm_(params, max_norm)


class TinyEncoderClassifier(nn.Module):
    def __init__(self, vocab=32, d=16, n_labels=3):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        layer = nn.TransformerEncoderLayer(d, 2, 32, dropout=0.0, batch_first=True)
        self.enc = nn.TransformerEncoder(layer, 1)
        self.cls = nn.Linear(d, n_labels)

    def forward(self, input_ids):
        return self.cls(self.enc(self.emb(input_ids)).mean(1))


def main():
    torch.manual_seed(0)
    accelerator = Accelerator(gradient_accumulation_steps=2)
    model = TinyEncoderClassifier()
    optimizer = torch.optim.AdamW(model.parameters(), lr=5e-4)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: min(1.0, (s + 1) / 2))
    train_dl = [(torch.randint(0, 32, (4, 6)), torch.randint(0, 3, (4,))) for _ in range(4)]
    model, optimizer, train_dl, scheduler = accelerator.prepare(model, optimizer, train_dl, scheduler)

    for epoch in range(2):
        model.train()
        total = 0.0
        for input_ids, labels in train_dl:
            with accelerator.accumulate(model):
                loss = F.cross_entropy(model(input_ids), labels)
                accelerator.backward(loss)
                accelerator.clip_grad_norm_(model.parameters(), 1.0)
                if accelerator.sync_gradients:
                    optimizer.step()
                    scheduler.step()
                    optimizer.zero_grad()
            total += loss.detach().item()
        print(f"epoch {epoch}: loss {total / len(train_dl):.4f}")


if __name__ == "__main__":
    main()
