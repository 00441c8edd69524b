"""Streaming GRU language model whose carried state goes through the project's own helper
``cut_history`` (defined in this file, as a ``utils`` module would define it), which
returns ``state.detach()`` -- the helper must be read, not assumed to pass the graph on
(negative for issue 13, mechanism 2).
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


def cut_history(state):
    """Truncated BPTT: keep the value of the state, drop its history."""
    return state.detach()


class CharGRU(nn.Module):
    def __init__(self, vocab=26, hidden=32):
        super().__init__()
        self.emb = nn.Embedding(vocab, 16)
        self.gru = nn.GRU(16, hidden, batch_first=True)
        self.out = nn.Linear(hidden, vocab)

    def forward(self, tokens, state):
        out, state = self.gru(self.emb(tokens), state)
        return self.out(out), state


def main(chunk=8):
    torch.manual_seed(0)
    text = torch.randint(0, 26, (4, 65))
    model = CharGRU()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    state = torch.zeros(1, 4, 32)
    for start in range(0, 64 - chunk, chunk):
        inp = text[:, start : start + chunk]
        tgt = text[:, start + 1 : start + 1 + chunk]
        state = cut_history(state)
        logits, state = model(inp, state)
        loss = F.cross_entropy(logits.reshape(-1, 26), tgt.reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(f"chunk {start} loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
