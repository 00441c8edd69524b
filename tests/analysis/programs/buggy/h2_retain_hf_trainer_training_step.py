"""HF-style Trainer subclass whose ``training_step`` was "fixed" with retain_graph=True.

Every step rebuilds the graph, so the flag only keeps the buffers alive longer.

Real report of this mechanism: https://github.com/shenweichen/DeepCTR-Torch/issues/69
The library's training loop backwarded with retain_graph=True; the maintainers removed it
once the regularisation loss no longer reused the graph.
"""

from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class Args:
    lr: float = 2e-3
    epochs: int = 2
    batch_size: int = 8
    gradient_accumulation_steps: int = 2


class TinyRegressorLM(nn.Module):
    def __init__(self, vocab=30, dim=16):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.proj = nn.Linear(dim, vocab)

    def forward(self, input_ids, labels=None):
        logits = self.proj(torch.tanh(self.embed(input_ids)))
        loss = None
        if labels is not None:
            loss = F.cross_entropy(logits[:, :-1].reshape(-1, logits.size(-1)), labels[:, 1:].reshape(-1))
        return {"loss": loss, "logits": logits}


class BaseTrainer:
    def __init__(self, model, args, dataset):
        self.model, self.args, self.dataset = model, args, dataset
        self.optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)

    def batches(self):
        n = self.dataset["input_ids"].size(0)
        for i in range(0, n, self.args.batch_size):
            yield {k: v[i : i + self.args.batch_size] for k, v in self.dataset.items()}

    def compute_loss(self, model, inputs):
        return model(**inputs)["loss"]

    def training_step(self, model, inputs):
        raise NotImplementedError

    def train(self):
        accum = self.args.gradient_accumulation_steps
        for epoch in range(self.args.epochs):
            for step, inputs in enumerate(self.batches()):
                loss = self.training_step(self.model, inputs)
                if (step + 1) % accum == 0:
                    self.optimizer.step()
                    self.optimizer.zero_grad()
            print(f"epoch {epoch}: {loss.item():.4f}")


class MyTrainer(BaseTrainer):
    def training_step(self, model, inputs):
        model.train()
        loss = self.compute_loss(model, inputs) / self.args.gradient_accumulation_steps
        loss.backward(retain_graph=True)  # error: [retain-graph-in-loop]
        return loss.detach()


if __name__ == "__main__":
    torch.manual_seed(0)
    ids = torch.randint(0, 30, (32, 6))
    MyTrainer(TinyRegressorLM(), Args(), {"input_ids": ids, "labels": ids.clone()}).train()
