"""Window classifier for fMRI-like region time series whose LSTM starts every window
from a zero state instead of the state stored on the module, the fix posted in
https://github.com/sgadgil6/cnslab_fmri/issues/4 .
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class FMRILSTM(nn.Module):
    def __init__(self, n_regions=10, hidden_dim=16, batch=8):
        super().__init__()
        self.hidden_dim = hidden_dim
        self.lstm = nn.LSTM(n_regions, hidden_dim, batch_first=True)
        self.linear = nn.Linear(hidden_dim, 1)
        self.hidden = self.init_hidden(batch)

    def init_hidden(self, batch):
        return (torch.zeros(1, batch, self.hidden_dim), torch.zeros(1, batch, self.hidden_dim))

    def forward(self, x):
        lstm_out, self.hidden = self.lstm(x)
        return self.linear(F.dropout(lstm_out[:, -1], 0.2, self.training)).squeeze(-1)


def windows(n_batches, batch=8, length=12, regions=10):
    gen = torch.Generator().manual_seed(0)
    for _ in range(n_batches):
        x = torch.randn(batch, length, regions, generator=gen)
        yield x, (x[:, :, 0].mean(1) > 0).float()


def main(epochs=2):
    torch.manual_seed(0)
    model = FMRILSTM()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for epoch in range(epochs):
        for i, (x, y) in enumerate(windows(3)):
            loss = F.binary_cross_entropy_with_logits(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            assert model.lstm.weight_ih_l0.grad.abs().sum() > 0
            optimizer.step()
            print(f"epoch {epoch} batch {i} loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
