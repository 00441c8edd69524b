"""A character-level LSTM trained chunk by chunk; its (h, c) state is carried between chunks."""

import torch
import torch.nn as nn


class CharModel(nn.Module):
    def __init__(self, vocab: int, hidden: int) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab, hidden)
        self.lstm = nn.LSTM(hidden, hidden, batch_first=True)
        self.out = nn.Linear(hidden, vocab)

    def forward(self, tokens, state):
        features, state = self.lstm(self.embed(tokens), state)
        return self.out(features), state


def main() -> None:
    torch.manual_seed(0)
    vocab, width = 12, 16
    model = CharModel(vocab, width)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    text = torch.randint(0, vocab, (2, 41))
    state = (torch.zeros(1, 2, width), torch.zeros(1, 2, width))
    for start in range(0, 40, 8):
        inputs = text[:, start : start + 8]
        targets = text[:, start + 1 : start + 9]
        logits, state = model(inputs, state)
        repackaged = (state[0].detach(), state[1].detach())
        loss = nn.functional.cross_entropy(logits.reshape(-1, vocab), targets.reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(start, round(loss.item(), 4))
        state = repackaged


if __name__ == "__main__":
    main()
