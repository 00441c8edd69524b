"""Writing-editing network on toy sequences: an encoder reads the title, a decoder writes
a first draft, and each editing pass reads the previous draft and writes a new one; the
loss sums the cross-entropy of every pass.

Twin of buggy/writing_editing_drafts_retain_graph.py without the retain_graph=True, as
the author agreed: the summed loss of a batch is backwarded once and its graph freed.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

VOCAB, DIM, LENGTH = 12, 12, 7


class WritingEditing(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, DIM)
        self.encoder = nn.GRU(DIM, DIM, batch_first=True)
        self.draft_reader = nn.GRU(VOCAB, DIM, batch_first=True)
        self.decoder = nn.GRU(DIM, DIM, batch_first=True)
        self.out = nn.Linear(DIM, VOCAB)

    def forward(self, title, target, passes=2):
        _, h = self.encoder(self.embed(title))
        inputs = self.embed(F.pad(target[:, :-1], (1, 0)))
        logits, draft = [], None
        for _ in range(passes):
            state = h if draft is None else h + self.draft_reader(draft.softmax(-1))[1]
            dec, _ = self.decoder(inputs, state)
            draft = self.out(dec)
            logits.append(draft)
        return logits


def main(epochs=2, batches=2):
    torch.manual_seed(0)
    model = WritingEditing()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for epoch in range(epochs):
        for _ in range(batches):
            title = torch.randint(VOCAB, (8, 4))
            target = torch.cat([title, title.flip(1)[:, :3]], dim=1)
            logits = model(title, target)
            loss = sum(F.cross_entropy(l.reshape(-1, VOCAB), target.reshape(-1)) for l in logits)
            optimizer.zero_grad()
            loss.backward()
            assert all(p.grad is not None for p in model.parameters())
            optimizer.step()
        print(f"epoch {epoch}: loss {loss.item():.3f}")


if __name__ == "__main__":
    main()
