"""Character LSTM language model with truncated BPTT (pytorch/examples word_language_model style)."""

import math

import torch
import torch.nn as nn

TEXT = "to be or not to be, that is the question. " * 3


def repackage_hidden(h):
    """Wraps hidden states in new Tensors, to detach them from their history."""
    if isinstance(h, torch.Tensor):
        return h.detach()
    return tuple(repackage_hidden(v) for v in h)


class RNNModel(nn.Module):
    def __init__(self, ntoken, ninp=8, nhid=16, nlayers=2, dropout=0.1):
        super().__init__()
        self.drop = nn.Dropout(dropout)
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnn = nn.LSTM(ninp, nhid, nlayers, dropout=dropout)
        self.decoder = nn.Linear(nhid, ntoken)
        self.nlayers, self.nhid = nlayers, nhid

    def forward(self, x, hidden):
        output, hidden = self.rnn(self.drop(self.encoder(x)), hidden)
        return self.decoder(self.drop(output)), hidden

    def init_hidden(self, bsz):
        weight = next(self.parameters())
        return (
            weight.new_zeros(self.nlayers, bsz, self.nhid),
            weight.new_zeros(self.nlayers, bsz, self.nhid),
        )


def batchify(data, bsz):
    nbatch = data.size(0) // bsz
    return data[: nbatch * bsz].view(bsz, -1).t().contiguous()


def train(model, train_data, ntokens, bptt=7, lr=5.0, clip=0.25):
    model.train()
    criterion = nn.CrossEntropyLoss()
    hidden = model.init_hidden(train_data.size(1))
    total_loss = 0.0
    for batch, i in enumerate(range(0, train_data.size(0) - 1, bptt)):
        seq_len = min(bptt, len(train_data) - 1 - i)
        data, targets = train_data[i : i + seq_len], train_data[i + 1 : i + 1 + seq_len].reshape(-1)
        model.zero_grad()
        hidden = repackage_hidden(hidden)
        output, hidden = model(data, hidden)
        loss = criterion(output.view(-1, ntokens), targets)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
        for p in model.parameters():
            p.data.add_(p.grad, alpha=-lr)
        total_loss += loss.item()
    return total_loss / (batch + 1)


@torch.no_grad()
def evaluate(model, data, ntokens, bptt=7):
    model.eval()
    hidden = model.init_hidden(data.size(1))
    total = 0.0
    for i in range(0, data.size(0) - 1, bptt):
        seq_len = min(bptt, len(data) - 1 - i)
        output, hidden = model(data[i : i + seq_len], hidden)
        total += (
            seq_len
            * nn.functional.cross_entropy(
                output.view(-1, ntokens), data[i + 1 : i + 1 + seq_len].reshape(-1)
            ).item()
        )
    return total / (len(data) - 1)


if __name__ == "__main__":
    torch.manual_seed(0)
    vocab = sorted(set(TEXT))
    ids = torch.tensor([vocab.index(c) for c in TEXT])
    model = RNNModel(len(vocab))
    train_data = batchify(ids, 4)
    for epoch in range(2):
        loss = train(model, train_data, len(vocab))
        val = evaluate(model, train_data, len(vocab))
        print(f"epoch {epoch} train {loss:.3f} val ppl {math.exp(val):.2f}")
