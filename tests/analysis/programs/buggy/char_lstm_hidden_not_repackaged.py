"""Character-level LSTM language model with truncated BPTT (word_language_model style).

The hidden state (h, c) is carried from batch to batch, but the
repackage_hidden step was dropped during a refactor.

Real report of this mechanism: https://github.com/MorvanZhou/PyTorch-Tutorial/issues/57
The tutorial's RNN raises this error once `h_state = h_state.data` is removed, i.e. when the
hidden state returned for one batch is fed into the next batch with its graph.
"""

import math

import torch
import torch.nn as nn

TEXT = "hello world, hello pytorch. " * 4


class CharRNN(nn.Module):
    def __init__(self, vocab, emb=8, hidden=16, layers=1, dropout=0.0):
        super().__init__()
        self.encoder = nn.Embedding(vocab, emb)
        self.rnn = nn.LSTM(emb, hidden, layers, dropout=dropout)
        self.decoder = nn.Linear(hidden, vocab)
        self.hidden_size, self.layers = hidden, layers

    def forward(self, x, hidden):
        out, hidden = self.rnn(self.encoder(x), hidden)
        return self.decoder(out), hidden

    def init_hidden(self, bsz):
        weight = next(self.parameters())
        return (
            weight.new_zeros(self.layers, bsz, self.hidden_size),
            weight.new_zeros(self.layers, bsz, self.hidden_size),
        )


def batchify(data, bsz):
    nbatch = data.size(0) // bsz
    return data[: nbatch * bsz].view(bsz, -1).t().contiguous()


def get_batch(source, i, bptt):
    seq_len = min(bptt, len(source) - 1 - i)
    return source[i : i + seq_len], source[i + 1 : i + 1 + seq_len].reshape(-1)


def train(model, train_data, vocab, bptt=6, lr=2.0, clip=0.25):
    model.train()
    criterion = nn.CrossEntropyLoss()
    total_loss = 0.0
    hidden = model.init_hidden(train_data.size(1))
    for batch, i in enumerate(range(0, train_data.size(0) - 1, bptt)):
        data, targets = get_batch(train_data, i, bptt)
        model.zero_grad()
        output, hidden = model(data, hidden)
        loss = criterion(output.view(-1, vocab), targets)
        loss.backward()  # error: [carried-graph-backward]
        torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
        for p in model.parameters():
            p.data.add_(p.grad, alpha=-lr)
        total_loss += loss.item()
        if batch % 2 == 1:
            print(f"batch {batch} loss {total_loss / 2:.2f} ppl {math.exp(total_loss / 2):.2f}")
            total_loss = 0.0


if __name__ == "__main__":
    torch.manual_seed(0)
    vocab = sorted(set(TEXT))
    ids = torch.tensor([vocab.index(c) for c in TEXT])
    model = CharRNN(len(vocab))
    train(model, batchify(ids, 4), len(vocab))
