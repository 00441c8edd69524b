"""Word-level LSTM LM. The hidden state is repackaged correctly, but retain_graph=True
from an earlier debugging session was left on the backward call.

Real report of this mechanism: https://github.com/EagleW/Writing-editing-Network/issues/3
A backward in the training loop passes retain_graph=True although every iteration builds its
graph again; removing it made no difference to training.
"""

import torch
import torch.nn as nn


def repackage_hidden(h):
    if isinstance(h, torch.Tensor):
        return h.detach()
    return tuple(repackage_hidden(v) for v in h)


class RNNModel(nn.Module):
    def __init__(self, ntoken=20, ninp=8, nhid=12, nlayers=2):
        super().__init__()
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnn = nn.LSTM(ninp, nhid, nlayers)
        self.decoder = nn.Linear(nhid, ntoken)
        self.nhid, self.nlayers = nhid, nlayers

    def forward(self, x, hidden):
        out, hidden = self.rnn(self.encoder(x), hidden)
        return self.decoder(out), hidden

    def init_hidden(self, bsz):
        w = next(self.parameters())
        return (w.new_zeros(self.nlayers, bsz, self.nhid), w.new_zeros(self.nlayers, bsz, self.nhid))


def train_epoch(model, data, optimizer, bptt=5, ntoken=20):
    model.train()
    hidden = model.init_hidden(data.size(1))
    criterion = nn.CrossEntropyLoss()
    total = 0.0
    for i in range(0, data.size(0) - 1, bptt):
        seq_len = min(bptt, data.size(0) - 1 - i)
        inputs, targets = data[i : i + seq_len], data[i + 1 : i + 1 + seq_len]
        hidden = repackage_hidden(hidden)
        optimizer.zero_grad()
        output, hidden = model(inputs, hidden)
        loss = criterion(output.view(-1, ntoken), targets.reshape(-1))
        loss.backward(retain_graph=True)  # error: [retain-graph-in-loop]
        torch.nn.utils.clip_grad_norm_(model.parameters(), 0.25)
        optimizer.step()
        total += loss.item() * seq_len
    return total / (data.size(0) - 1)


if __name__ == "__main__":
    torch.manual_seed(0)
    corpus = torch.randint(0, 20, (16, 3))
    model = RNNModel()
    optimizer = torch.optim.SGD(model.parameters(), lr=1.0)
    for epoch in range(2):
        print(epoch, train_epoch(model, corpus, optimizer))
