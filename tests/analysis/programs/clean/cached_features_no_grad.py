"""Fine-tune only the head of a text classifier; the encoder outputs for the whole
dataset are cached once under torch.no_grad() to save time.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


class Encoder(nn.Module):
    def __init__(self, vocab=40, dim=12):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.rnn = nn.GRU(dim, dim, batch_first=True, bidirectional=True)

    def forward(self, ids):
        out, _ = self.rnn(self.emb(ids))
        return out.mean(1)


@torch.no_grad()
def encode_dataset(encoder, ids, batch_size=8):
    encoder.eval()
    return torch.cat([encoder(chunk) for chunk in ids.split(batch_size)])


def main():
    torch.manual_seed(0)
    ids = torch.randint(0, 40, (24, 7))
    labels = torch.randint(0, 2, (24,))
    encoder = Encoder()

    with torch.no_grad():
        cached = encode_dataset(encoder, ids)
    assert not cached.requires_grad

    head = nn.Sequential(nn.Dropout(0.1), nn.Linear(24, 2))
    optimizer = torch.optim.Adam(head.parameters(), lr=1e-2)
    loader = DataLoader(TensorDataset(cached, labels), batch_size=8, shuffle=True)
    for epoch in range(3):
        head.train()
        epoch_loss = 0.0
        for feats, y in loader:
            loss = F.cross_entropy(head(feats), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            epoch_loss += loss.item()
        head.eval()
        with torch.no_grad():
            acc = (head(cached).argmax(1) == labels).float().mean().item()
        print(f"epoch {epoch}: loss {epoch_loss / len(loader):.4f} acc {acc:.3f}")


if __name__ == "__main__":
    main()
