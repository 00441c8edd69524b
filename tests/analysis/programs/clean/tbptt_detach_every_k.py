"""Truncated BPTT over a long sequence with an RNN cell: every k1 steps the accumulated chunk
loss is backpropagated and the hidden state is detached before the next chunk.
"""

import torch
import torch.nn as nn


class SequenceModel(nn.Module):
    def __init__(self, d_in=3, hidden=12, d_out=1):
        super().__init__()
        self.cell = nn.RNNCell(d_in, hidden, nonlinearity="tanh")
        self.out = nn.Linear(hidden, d_out)
        self.hidden = hidden

    def init_state(self, batch):
        return torch.zeros(batch, self.hidden)


def train_sequence(model, optimizer, inputs, targets, k1=4):
    h = model.init_state(inputs.size(1))
    chunk_loss, n_in_chunk, losses = 0.0, 0, []
    for t in range(inputs.size(0)):
        h = model.cell(inputs[t], h)
        chunk_loss = chunk_loss + nn.functional.mse_loss(model.out(h), targets[t])
        n_in_chunk += 1
        if n_in_chunk == k1 or t == inputs.size(0) - 1:
            optimizer.zero_grad()
            (chunk_loss / n_in_chunk).backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            losses.append(chunk_loss.item() / n_in_chunk)
            h = h.detach()
            chunk_loss, n_in_chunk = 0.0, 0
    return losses


def main():
    torch.manual_seed(0)
    model = SequenceModel()
    optimizer = torch.optim.Adam(model.parameters(), lr=5e-3)
    T, B = 10, 2
    inputs = torch.randn(T, B, 3)
    targets = inputs.cumsum(0)[..., :1] * 0.1
    for epoch in range(2):
        losses = train_sequence(model, optimizer, inputs, targets)
        print(f"epoch {epoch}: chunk losses {[round(l, 4) for l in losses]}")


if __name__ == "__main__":
    main()
