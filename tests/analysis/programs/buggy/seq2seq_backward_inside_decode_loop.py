"""GRU encoder-decoder (toy copy task) with teacher forcing.

The author backpropagates at every decoder step to "update faster", while the
per-step losses are summed into one running loss tensor.

Real report of this mechanism: https://github.com/davda54/sam/issues/10
A commenter's loop sums per-task losses into `loss`, backwards it, then adds the next pass's
task losses to the same `loss`, so the second backward runs through the first pass's freed
graph.
"""

import random

import torch
import torch.nn as nn

SOS = 0
VOCAB = 7


class EncoderRNN(nn.Module):
    def __init__(self, vocab, hidden):
        super().__init__()
        self.embedding = nn.Embedding(vocab, hidden)
        self.gru = nn.GRU(hidden, hidden, batch_first=True)

    def forward(self, src):
        _, hidden = self.gru(self.embedding(src))
        return hidden


class DecoderRNN(nn.Module):
    def __init__(self, vocab, hidden):
        super().__init__()
        self.embedding = nn.Embedding(vocab, hidden)
        self.gru = nn.GRU(hidden, hidden, batch_first=True)
        self.out = nn.Linear(hidden, vocab)

    def forward(self, token, hidden):
        output, hidden = self.gru(self.embedding(token).unsqueeze(1), hidden)
        return self.out(output.squeeze(1)), hidden


def train_batch(src, tgt, encoder, decoder, enc_opt, dec_opt, criterion, teacher_forcing=0.5):
    enc_opt.zero_grad()
    dec_opt.zero_grad()
    hidden = encoder(src)
    token = torch.full((src.size(0),), SOS, dtype=torch.long)
    loss = 0
    for t in range(tgt.size(1)):
        logits, hidden = decoder(token, hidden)
        loss += criterion(logits, tgt[:, t])
        loss.backward()  # error: [carried-graph-backward]
        enc_opt.step()
        dec_opt.step()
        token = tgt[:, t] if random.random() < teacher_forcing else logits.argmax(1).detach()
    return loss.item() / tgt.size(1)


def main():
    random.seed(0)
    torch.manual_seed(0)
    encoder, decoder = EncoderRNN(VOCAB, 12), DecoderRNN(VOCAB, 12)
    enc_opt = torch.optim.SGD(encoder.parameters(), lr=0.01)
    dec_opt = torch.optim.SGD(decoder.parameters(), lr=0.01)
    criterion = nn.CrossEntropyLoss()
    for it in range(2):
        src = torch.randint(1, VOCAB, (4, 5))
        print(it, train_batch(src, src.clone(), encoder, decoder, enc_opt, dec_opt, criterion))


if __name__ == "__main__":
    main()
