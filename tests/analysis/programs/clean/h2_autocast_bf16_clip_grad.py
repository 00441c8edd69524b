"""Small transformer encoder trained with ``torch.autocast("cpu", dtype=torch.bfloat16)``:
the forward and loss run under autocast, the backward outside it, once per step; the loss
is logged through ``float(loss)``.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class TinyEncoder(nn.Module):
    def __init__(self, vocab=32, dim=16, n_classes=2):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        layer = nn.TransformerEncoderLayer(dim, nhead=2, dim_feedforward=32, dropout=0.0, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers=1)
        self.cls = nn.Linear(dim, n_classes)

    def forward(self, ids):
        return self.cls(self.encoder(self.embed(ids)).mean(1))


def batches(n_batches=4, bs=8, seq=6, seed=0):
    g = torch.Generator().manual_seed(seed)
    for _ in range(n_batches):
        ids = torch.randint(0, 32, (bs, seq), generator=g)
        yield ids, (ids[:, 0] < 16).long()


def main(epochs=2):
    torch.manual_seed(0)
    model = TinyEncoder()
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3)
    history = []
    for epoch in range(epochs):
        for ids, labels in batches(seed=epoch):
            with torch.autocast("cpu", dtype=torch.bfloat16):
                logits = model(ids)
                loss = F.cross_entropy(logits, labels)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
            optimizer.step()
            history.append(float(loss))
        print(epoch, round(sum(history[-4:]) / 4, 4))


if __name__ == "__main__":
    main()
