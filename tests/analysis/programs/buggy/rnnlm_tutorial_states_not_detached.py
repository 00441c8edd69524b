"""Word-level LSTM language model in the style of the pytorch-tutorial RNNLM: the corpus
is one long id tensor per batch row, trained in windows of seq_length tokens, with the
LSTM states carried from one window to the next.

Report: https://github.com/yunjey/pytorch-tutorial/issues/90 -- "language model
detach(states)": the asker could not see why the training loop calls
states = detach(states) before every step. The states returned by one window's forward
are the initial states of the next window; without the detach, as here, the next
window's backward runs back through the previous window, whose graph is already freed.
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
            outputs, states = model(inputs, states)
            loss = criterion(outputs, targets.reshape(-1))
            model.zero_grad()
            loss.backward()  # error: [carried-graph-backward]
            nn.utils.clip_grad_norm_(model.parameters(), 0.5)
            optimizer.step()
        print(f"epoch {epoch}: loss {loss.item():.3f}")


if __name__ == "__main__":
    main()
