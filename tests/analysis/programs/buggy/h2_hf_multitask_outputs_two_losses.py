"""Joint intent classification + slot filling, HF-style model output dataclass.

The model returns an output object with two losses sharing the encoder; the trainer
backwards them one after the other.

Real report of this mechanism: https://github.com/OpenNMT/OpenNMT-py/issues/2153
A loss from an extra classification head on the shared encoder, backwarded on its own
besides the translation loss, raises this error.
"""

from dataclasses import dataclass
from typing import Optional

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class JointOutput:
    intent_logits: torch.Tensor
    slot_logits: torch.Tensor
    intent_loss: Optional[torch.Tensor] = None
    slot_loss: Optional[torch.Tensor] = None


class JointModel(nn.Module):
    def __init__(self, vocab=40, dim=16, n_intents=4, n_slots=6):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.encoder = nn.LSTM(dim, dim, batch_first=True, bidirectional=True)
        self.intent_head = nn.Linear(2 * dim, n_intents)
        self.slot_head = nn.Linear(2 * dim, n_slots)

    def forward(self, input_ids, intent_labels=None, slot_labels=None):
        states, _ = self.encoder(self.embed(input_ids))
        out = JointOutput(self.intent_head(states.mean(1)), self.slot_head(states))
        if intent_labels is not None:
            out.intent_loss = F.cross_entropy(out.intent_logits, intent_labels)
            out.slot_loss = F.cross_entropy(out.slot_logits.flatten(0, 1), slot_labels.flatten())
        return out


class JointTrainer:
    def __init__(self, model, lr=3e-3):
        self.model = model
        self.optimizer = torch.optim.Adam(model.parameters(), lr=lr)

    def training_step(self, batch):
        outputs = self.model(**batch)
        self.optimizer.zero_grad()
        outputs.intent_loss.backward()
        outputs.slot_loss.backward()  # error: [shared-graph-backward]
        self.optimizer.step()
        return {"intent": outputs.intent_loss.item(), "slot": outputs.slot_loss.item()}


def make_batches(n_batches=3, bs=6, seq=7):
    g = torch.Generator().manual_seed(0)
    return [
        {
            "input_ids": torch.randint(0, 40, (bs, seq), generator=g),
            "intent_labels": torch.randint(0, 4, (bs,), generator=g),
            "slot_labels": torch.randint(0, 6, (bs, seq), generator=g),
        }
        for _ in range(n_batches)
    ]


if __name__ == "__main__":
    torch.manual_seed(0)
    trainer = JointTrainer(JointModel())
    for epoch in range(2):
        logs = [trainer.training_step(batch) for batch in make_batches()]
        print(epoch, logs[-1])
