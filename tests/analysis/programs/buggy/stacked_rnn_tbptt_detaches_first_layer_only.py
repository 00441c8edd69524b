"""Two-layer recurrent network (stacked GRU cells) trained with truncated BPTT on a long
sequence: the states are carried from one chunk to the next, and the loop detaches them
before every chunk.

Report: https://github.com/NeuroTorch/NeuroTorch/pull/137 -- "134 tbptt error using
multiple layers": TBPTT raised "Trying to backward through the graph a second time"
(https://github.com/NeuroTorch/NeuroTorch/issues/134) once the sequential model had more
than one layer; the fix detaches the hidden states (of every layer) automatically. Here
the chunk loop detaches the state it knows about, the first layer's, while the second
layer's state is kept on the model between calls and stays attached to the previous
chunk's graph.
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
        loss = 0
        for t in range(c * chunk_len, (c + 1) * chunk_len):
            pred, h1 = model(series[t], h1)
            loss = loss + F.mse_loss(pred, series[t + 1, :, :1])
        optimizer.zero_grad()
        loss.backward()  # error: [carried-graph-backward]
        optimizer.step()
        print(f"chunk {c}: loss {loss.item() / chunk_len:.4f}")


if __name__ == "__main__":
    main()
