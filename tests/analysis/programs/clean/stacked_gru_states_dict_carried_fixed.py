"""Word-level language model with truncated backpropagation: the dict of per-layer GRU
states is carried across chunks and every state in it is detached after each chunk (the
practice the tutorial of https://github.com/dpressel/dliss-tutorial/issues/1 follows),
keeping the dict's own shape.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class StackedGRULM(nn.Module):
    def __init__(self, vocab=30, dim=16):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.cells = nn.ModuleDict({"lower": nn.GRUCell(dim, dim), "upper": nn.GRUCell(dim, dim)})
        self.out = nn.Linear(dim, vocab)

    def init_states(self, batch):
        return {name: torch.zeros(batch, cell.hidden_size) for name, cell in self.cells.items()}

    def forward(self, tokens, states):
        logits = []
        for t in range(tokens.size(1)):
            h = self.emb(tokens[:, t])
            new_states = {}
            for name, cell in self.cells.items():
                h = cell(h, states[name])
                new_states[name] = h
            states = new_states
            logits.append(self.out(h))
        return torch.stack(logits, dim=1), states


def main(bptt=6):
    torch.manual_seed(0)
    stream = torch.randint(0, 30, (2, 37))
    model = StackedGRULM()
    optimizer = torch.optim.Adam(model.parameters(), lr=5e-3)
    states = model.init_states(stream.size(0))
    for start in range(0, stream.size(1) - 1 - bptt, bptt):
        inp = stream[:, start : start + bptt]
        target = stream[:, start + 1 : start + 1 + bptt]
        logits, states = model(inp, states)
        states = {name: h.detach() for name, h in states.items()}
        loss = F.cross_entropy(logits.reshape(-1, 30), target.reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        print(f"chunk at {start} loss {loss.item():.4f}")
    assert model.cells["lower"].weight_hh.grad.abs().sum() > 0


if __name__ == "__main__":
    main()
