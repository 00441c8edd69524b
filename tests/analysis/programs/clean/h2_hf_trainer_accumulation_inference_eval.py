"""Hand-rolled HuggingFace-style Trainer: dataclass arguments, dict batches, ``model(**inputs)``,
``compute_loss(return_outputs=True)``, gradient accumulation and an ``@torch.inference_mode()``
evaluation loop. The running training loss is a tensor of detached losses.
"""

from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class TrainingArguments:
    learning_rate: float = 3e-3
    num_train_epochs: int = 2
    train_batch_size: int = 4
    gradient_accumulation_steps: int = 2
    max_grad_norm: float = 1.0


class BagClassifier(nn.Module):
    def __init__(self, vocab=40, dim=16, num_labels=3):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim, padding_idx=0)
        self.classifier = nn.Sequential(nn.Linear(dim, dim), nn.GELU(), nn.Linear(dim, num_labels))

    def forward(self, input_ids, attention_mask, labels=None):
        mask = attention_mask.unsqueeze(-1).float()
        pooled = (self.embed(input_ids) * mask).sum(1) / mask.sum(1).clamp(min=1)
        logits = self.classifier(pooled)
        loss = F.cross_entropy(logits, labels) if labels is not None else None
        return {"loss": loss, "logits": logits}


class Trainer:
    def __init__(self, model, args, train_dataset, eval_dataset):
        self.model, self.args = model, args
        self.train_dataset, self.eval_dataset = train_dataset, eval_dataset
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=args.learning_rate)

    def dataloader(self, dataset):
        n = dataset["input_ids"].size(0)
        for i in range(0, n, self.args.train_batch_size):
            yield {k: v[i : i + self.args.train_batch_size] for k, v in dataset.items()}

    def compute_loss(self, model, inputs, return_outputs=False):
        outputs = model(**inputs)
        return (outputs["loss"], outputs) if return_outputs else outputs["loss"]

    def training_step(self, model, inputs):
        model.train()
        loss = self.compute_loss(model, inputs)
        loss = loss / self.args.gradient_accumulation_steps
        loss.backward()
        return loss.detach()

    @torch.inference_mode()
    def evaluate(self):
        self.model.eval()
        correct = total = 0
        for inputs in self.dataloader(self.eval_dataset):
            loss, outputs = self.compute_loss(self.model, inputs, return_outputs=True)
            correct += (outputs["logits"].argmax(-1) == inputs["labels"]).sum().item()
            total += inputs["labels"].numel()
        return {"eval_loss": loss.item(), "eval_accuracy": correct / total}

    def train(self):
        tr_loss = torch.tensor(0.0)
        accum = self.args.gradient_accumulation_steps
        for epoch in range(self.args.num_train_epochs):
            for step, inputs in enumerate(self.dataloader(self.train_dataset)):
                tr_loss += self.training_step(self.model, inputs)
                if (step + 1) % accum == 0:
                    nn.utils.clip_grad_norm_(self.model.parameters(), self.args.max_grad_norm)
                    self.optimizer.step()
                    self.optimizer.zero_grad()
            print(epoch, round(tr_loss.item(), 4), self.evaluate())
        return tr_loss.item()


def dataset(n, seed):
    g = torch.Generator().manual_seed(seed)
    return {
        "input_ids": torch.randint(1, 40, (n, 6), generator=g),
        "attention_mask": (torch.rand(n, 6, generator=g) > 0.1).long(),
        "labels": torch.randint(0, 3, (n,), generator=g),
    }


if __name__ == "__main__":
    torch.manual_seed(0)
    Trainer(BagClassifier(), TrainingArguments(), dataset(16, 0), dataset(8, 1)).train()
