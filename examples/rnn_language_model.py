"""A character-level language model trained with truncated BPTT... almost."""

import torch
from torch import nn


class CharRNN(nn.Module):
    def __init__(self, vocab: int, hidden: int) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab, hidden)
        self.lstm = nn.LSTM(hidden, hidden, batch_first=True)
        self.out = nn.Linear(hidden, vocab)

    def forward(self, tokens, state):
        output, state = self.lstm(self.embed(tokens), state)
        return self.out(output), state


def main() -> None:
    torch.manual_seed(0)
    vocab, hidden, seq = 20, 16, 8
    model = CharRNN(vocab, hidden)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    criterion = nn.CrossEntropyLoss()
    data = torch.randint(0, vocab, (4, 5 * seq + 1))
    state = (torch.zeros(1, 4, hidden), torch.zeros(1, 4, hidden))
    for start in range(0, 5 * seq, seq):
        inputs = data[:, start : start + seq]
        targets = data[:, start + 1 : start + seq + 1]
        logits, state = model(inputs, state)
        loss = criterion(logits.reshape(-1, vocab), targets.reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(f"step {start // seq}: loss {loss.item():.3f}")


if __name__ == "__main__":
    main()
