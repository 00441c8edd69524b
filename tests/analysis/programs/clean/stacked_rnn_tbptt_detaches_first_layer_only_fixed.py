"""Two-layer recurrent network (stacked GRU cells) trained with truncated BPTT on a long
sequence: the states are carried from one chunk to the next, and the loop detaches them
before every chunk.

Twin of buggy/stacked_rnn_tbptt_detaches_first_layer_only.py, fixed as the pull request
does: the hidden states of every layer are detached between chunks, including the second
layer's state kept on the model.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class StackedGRU(nn.Module):
    def __init__(self, n_in=3, hidden=16):
        super().__init__()
        self.cell1, self.cell2 = nn.GRUCell(n_in, hidden), nn.GRUCell(hidden, hidden)
        self.readout = nn.Linear(hidden, 1)
        self.h2 = torch.zeros(1, hidden)

    def forward(self, x, h1):
        h1 = self.cell1(x, h1)
        self.h2 = self.cell2(h1, self.h2)
        return self.readout(self.h2), h1


def main(chunks=4, chunk_len=8):
    torch.manual_seed(0)
    model = StackedGRU()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    series = torch.randn(chunks * chunk_len + 1, 1, 3).cumsum(0) * 0.1
    h1 = torch.zeros(1, 16)
    for c in range(chunks):
        h1 = h1.detach()
        model.h2 = model.h2.detach()
        loss = 0
        for t in range(c * chunk_len, (c + 1) * chunk_len):
            pred, h1 = model(series[t], h1)
            loss = loss + F.mse_loss(pred, series[t + 1, :, :1])
        optimizer.zero_grad()
        loss.backward()
        assert all(p.grad is not None for p in model.parameters())
        optimizer.step()
        print(f"chunk {c}: loss {loss.item() / chunk_len:.4f}")


if __name__ == "__main__":
    main()
