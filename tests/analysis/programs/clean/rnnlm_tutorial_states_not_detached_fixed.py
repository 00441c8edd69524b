"""Word-level LSTM language model in the style of the pytorch-tutorial RNNLM: the corpus
is one long id tensor per batch row, trained in windows of seq_length tokens, with the
LSTM states carried from one window to the next.

Twin of buggy/rnnlm_tutorial_states_not_detached.py with the tutorial's
states = detach(states) restored: the states keep their values across windows (truncated
backpropagation through time) but each window's backward stops at them.
"""

import torch
import torch.nn as nn

VOCAB, EMBED, HIDDEN, LAYERS = 30, 16, 32, 1


class RNNLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, EMBED)
        self.lstm = nn.LSTM(EMBED, HIDDEN, LAYERS, batch_first=True)
        self.linear = nn.Linear(HIDDEN, VOCAB)

    def forward(self, x, h):
        out, (h, c) = self.lstm(self.embed(x), h)
        out = out.reshape(out.size(0) * out.size(1), out.size(2))
        return self.linear(out), (h, c)


def main(num_epochs=2, batch_size=4, seq_length=10):
    torch.manual_seed(0)
    ids = torch.randint(VOCAB, (batch_size, 6 * seq_length + 1))
    model = RNNLM()
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=0.002)
    for epoch in range(num_epochs):
        states = (torch.zeros(LAYERS, batch_size, HIDDEN), torch.zeros(LAYERS, batch_size, HIDDEN))
        for i in range(0, ids.size(1) - seq_length, seq_length):
            inputs = ids[:, i : i + seq_length]
            targets = ids[:, (i + 1) : (i + 1) + seq_length]
            states = tuple(s.detach() for s in states)
            outputs, states = model(inputs, states)
            loss = criterion(outputs, targets.reshape(-1))
            model.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 0.5)
            assert all(p.grad is not None for p in model.parameters())
            optimizer.step()
        print(f"epoch {epoch}: loss {loss.item():.3f}")


if __name__ == "__main__":
    main()
