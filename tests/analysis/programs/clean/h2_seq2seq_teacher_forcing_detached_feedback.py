"""Seq2seq with a GRU encoder/decoder and scheduled teacher forcing. When the model's own
prediction is fed back it goes through ``argmax`` (no graph); per-step losses are built in a
list and averaged into one backward per batch.
"""

import random

import torch
import torch.nn as nn
import torch.nn.functional as F

BOS = 1


class Encoder(nn.Module):
    def __init__(self, vocab, dim):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.rnn = nn.GRU(dim, dim, batch_first=True)

    def forward(self, src):
        return self.rnn(self.embed(src))[1]


class Decoder(nn.Module):
    def __init__(self, vocab, dim):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.cell = nn.GRUCell(dim, dim)
        self.out = nn.Linear(dim, vocab)

    def forward(self, token, h):
        h = self.cell(self.embed(token), h)
        return self.out(h), h


def train_batch(enc, dec, optimizer, src, tgt, tf_ratio):
    h = enc(src)[0]
    token = torch.full((src.size(0),), BOS, dtype=torch.long)
    step_losses = []
    for t in range(tgt.size(1)):
        logits, h = dec(token, h)
        step_losses.append(F.cross_entropy(logits, tgt[:, t]))
        token = tgt[:, t] if random.random() < tf_ratio else logits.argmax(-1)
    loss = sum(step_losses) / len(step_losses)
    optimizer.zero_grad()
    loss.backward()
    nn.utils.clip_grad_norm_([*enc.parameters(), *dec.parameters()], 1.0)
    optimizer.step()
    return loss.item()


def main(vocab=12, dim=16, epochs=2):
    random.seed(0)
    torch.manual_seed(0)
    enc, dec = Encoder(vocab, dim), Decoder(vocab, dim)
    optimizer = torch.optim.Adam([*enc.parameters(), *dec.parameters()], lr=5e-3)
    src = torch.randint(2, vocab, (16, 5))
    tgt = src.flip(1)
    for epoch in range(epochs):
        tf_ratio = max(0.2, 1.0 - 0.3 * epoch)
        losses = [train_batch(enc, dec, optimizer, src[i : i + 8], tgt[i : i + 8], tf_ratio) for i in (0, 8)]
        print(epoch, tf_ratio, [round(l, 3) for l in losses])


if __name__ == "__main__":
    main()
