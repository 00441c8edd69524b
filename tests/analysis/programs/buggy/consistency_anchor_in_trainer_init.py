"""Semi-supervised trainer with a consistency term towards predictions on anchor inputs.

The anchor predictions are computed by the model in the trainer's constructor and
kept on self; train_step reuses them every call.

Real report of this mechanism: https://github.com/hiyoung123/SoftMaskedBert/issues/16
The model computes the [MASK] embedding from trainable layers once, in __init__, and uses it
in every forward; the fix given there detaches it.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class ConsistencyTrainer:
    def __init__(self, model, anchor_inputs, lr=1e-2, weight=0.5):
        self.model = model
        self.optimizer = torch.optim.Adam(model.parameters(), lr=lr)
        self.weight = weight
        self.anchor_inputs = anchor_inputs
        self.anchor_probs = F.softmax(self.model(anchor_inputs), dim=-1)
        self.step_count = 0

    def train_step(self, x, y):
        self.model.train()
        logits = self.model(x)
        sup = F.cross_entropy(logits, y)
        noisy = self.anchor_inputs + 0.05 * torch.randn_like(self.anchor_inputs)
        cons = F.kl_div(F.log_softmax(self.model(noisy), dim=-1), self.anchor_probs, reduction="batchmean")
        loss = sup + self.weight * cons
        self.optimizer.zero_grad()
        loss.backward()  # error: [pre-loop-graph-backward]
        self.optimizer.step()
        self.step_count += 1
        return {"sup": sup.item(), "cons": cons.item()}


def main():
    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 3))
    unlabeled = torch.randn(10, 6)
    trainer = ConsistencyTrainer(net, unlabeled)
    for epoch in range(2):
        for _ in range(2):
            x = torch.randn(8, 6)
            y = torch.randint(0, 3, (8,))
            stats = trainer.train_step(x, y)
        print(epoch, stats)


if __name__ == "__main__":
    main()
