"""Hand-rolled HuggingFace-style Trainer for a tiny token classifier.

``training_step`` backwards the loss through ``self.backward``; afterwards the
trainer logs the gradient norm of the embeddings by asking autograd again.
"""

from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class TrainingArguments:
    learning_rate: float = 5e-3
    num_train_epochs: int = 2
    per_device_train_batch_size: int = 8
    logging_steps: int = 2
    max_grad_norm: float = 1.0


class TinyTokenClassifier(nn.Module):
    def __init__(self, vocab=50, dim=16, num_labels=3):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.encoder = nn.GRU(dim, dim, batch_first=True)
        self.classifier = nn.Linear(dim, num_labels)

    def forward(self, input_ids, attention_mask, labels=None):
        hidden, _ = self.encoder(self.embed(input_ids))
        logits = self.classifier(hidden)
        out = {"logits": logits}
        if labels is not None:
            active = attention_mask.reshape(-1).bool()
            out["loss"] = F.cross_entropy(logits.reshape(-1, logits.size(-1))[active], labels.reshape(-1)[active])
        return out


class Trainer:
    def __init__(self, model, args, train_dataset):
        self.model = model
        self.args = args
        self.train_dataset = train_dataset
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=args.learning_rate)
        self.global_step = 0
        self.log_history = []

    def get_train_dataloader(self):
        bs = self.args.per_device_train_batch_size
        n = self.train_dataset["input_ids"].size(0)
        for start in range(0, n, bs):
            yield {k: v[start : start + bs] for k, v in self.train_dataset.items()}

    def compute_loss(self, model, inputs, return_outputs=False):
        outputs = model(**inputs)
        loss = outputs["loss"]
        return (loss, outputs) if return_outputs else loss

    def backward(self, loss):
        loss.backward()

    def training_step(self, model, inputs):
        model.train()
        loss = self.compute_loss(model, inputs)
        self.backward(loss)
        return loss

    def train(self):
        for epoch in range(self.args.num_train_epochs):
            for inputs in self.get_train_dataloader():
                loss = self.training_step(self.model, inputs)
                if self.global_step % self.args.logging_steps == 0:
                    emb_grad = torch.autograd.grad(loss, self.model.embed.weight)[0]  # error: [double-backward]
                    self.log_history.append({"loss": loss.item(), "emb_grad_norm": emb_grad.norm().item()})
                nn.utils.clip_grad_norm_(self.model.parameters(), self.args.max_grad_norm)
                self.optimizer.step()
                self.optimizer.zero_grad()
                self.global_step += 1
        return self.log_history


def build_dataset(n=32, seq=6, vocab=50, num_labels=3):
    g = torch.Generator().manual_seed(0)
    return {
        "input_ids": torch.randint(0, vocab, (n, seq), generator=g),
        "attention_mask": (torch.rand(n, seq, generator=g) > 0.2).long(),
        "labels": torch.randint(0, num_labels, (n, seq), generator=g),
    }


if __name__ == "__main__":
    torch.manual_seed(0)
    trainer = Trainer(TinyTokenClassifier(), TrainingArguments(), build_dataset())
    print(trainer.train()[-1])
