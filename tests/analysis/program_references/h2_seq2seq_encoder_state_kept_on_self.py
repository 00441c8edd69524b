"""Streaming seq2seq (GRU encoder/decoder, teacher forcing) over consecutive chunks.

To keep context between chunks, the trainer stores the encoder's final state on
``self`` and feeds it to the next chunk, detached: truncated backpropagation through time, one
chunk per step.
"""

import random

import torch
import torch.nn as nn
import torch.nn.functional as F


class Seq2Seq(nn.Module):
    def __init__(self, vocab=20, dim=16):
        super().__init__()
        self.src_embed = nn.Embedding(vocab, dim)
        self.tgt_embed = nn.Embedding(vocab, dim)
        self.encoder = nn.GRU(dim, dim, batch_first=True)
        self.decoder = nn.GRUCell(dim, dim)
        self.out = nn.Linear(dim, vocab)

    def encode(self, src, h0):
        _, h = self.encoder(self.src_embed(src), h0)
        return h

    def decode_step(self, token, h):
        h = self.decoder(self.tgt_embed(token), h)
        return self.out(h), h


class StreamingTrainer:
    def __init__(self, model, bos=1, teacher_forcing=0.7):
        self.model = model
        self.optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
        self.bos = bos
        self.teacher_forcing = teacher_forcing
        self.context = None

    def training_step(self, src, tgt):
        h = self.model.encode(src, self.context)
        self.context = h.detach()  # the next chunk starts from it; its backward stops here
        dec_h = h[-1]
        token = torch.full((src.size(0),), self.bos, dtype=torch.long)
        step_losses = []
        for t in range(tgt.size(1)):
            logits, dec_h = self.model.decode_step(token, dec_h)
            step_losses.append(F.cross_entropy(logits, tgt[:, t]))
            use_teacher = random.random() < self.teacher_forcing
            token = tgt[:, t] if use_teacher else logits.argmax(-1)
        loss = torch.stack(step_losses).mean()
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.item()


def chunks(n_chunks=4, batch=4, length=5, vocab=20):
    g = torch.Generator().manual_seed(0)
    for _ in range(n_chunks):
        src = torch.randint(2, vocab, (batch, length), generator=g)
        yield src, src.flip(1)


if __name__ == "__main__":
    random.seed(0)
    torch.manual_seed(0)
    trainer = StreamingTrainer(Seq2Seq())
    for i, (src, tgt) in enumerate(chunks()):
        print(i, trainer.training_step(src, tgt))
