"""Character model built from a ModuleList of LSTMCells, trained on a stream (TBPTT).

The per-layer ``(h, c)`` states live in a list that is carried from one chunk to the
next; the chunks are meant to be truncated but the states are never detached.

Real report of this mechanism: https://github.com/MorvanZhou/PyTorch-Tutorial/issues/57
The tutorial's RNN raises this error once `h_state = h_state.data` is removed, i.e. when the
hidden state returned for one batch is fed into the next batch with its graph.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

TEXT = "the quick brown fox jumps over the lazy dog " * 4


class StackedLSTM(nn.Module):
    def __init__(self, vocab, dim=16, layers=2):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.cells = nn.ModuleList([nn.LSTMCell(dim, dim) for _ in range(layers)])
        self.out = nn.Linear(dim, vocab)

    def init_states(self, batch):
        dim = self.cells[0].hidden_size
        return [(torch.zeros(batch, dim), torch.zeros(batch, dim)) for _ in self.cells]

    def forward(self, tokens, states):
        logits = []
        for t in range(tokens.size(1)):
            x = self.embed(tokens[:, t])
            for i, cell in enumerate(self.cells):
                states[i] = cell(x, states[i])
                x = states[i][0]
            logits.append(self.out(x))
        return torch.stack(logits, dim=1), states


def main(bptt=8):
    torch.manual_seed(0)
    chars = sorted(set(TEXT))
    ids = torch.tensor([chars.index(c) for c in TEXT]).unsqueeze(0)
    model = StackedLSTM(len(chars))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    states = model.init_states(1)
    for start in range(0, 4 * bptt, bptt):
        inp = ids[:, start : start + bptt]
        target = ids[:, start + 1 : start + bptt + 1]
        logits, states = model(inp, states)
        loss = F.cross_entropy(logits.reshape(-1, len(chars)), target.reshape(-1))
        optimizer.zero_grad()
        loss.backward()  # error: [carried-graph-backward]
        nn.utils.clip_grad_norm_(model.parameters(), 0.5)
        optimizer.step()
        print(start, round(loss.item(), 3))


if __name__ == "__main__":
    main()
