"""Soft-Masked BERT for spelling correction: a GRU detector soft-masks token embeddings
towards the [MASK] embedding, and a transformer corrector predicts the right token.

Twin of buggy/soft_masked_bert_mask_embedding_built_in_init.py, fixed as given in
https://github.com/hiyoung123/SoftMaskedBert/issues/16: the [MASK] embedding computed in
``__init__`` is detached, so every step's backward stays inside that step's graph (and
no retain_graph is needed).
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

VOCAB, MASK_ID, HIDDEN = 60, 1, 32


class Embeddings(nn.Module):
    def __init__(self, vocab, hidden, max_len=64):
        super().__init__()
        self.words = nn.Embedding(vocab, hidden)
        self.positions = nn.Embedding(max_len, hidden)
        self.norm = nn.LayerNorm(hidden)
        self.dropout = nn.Dropout(0.1)

    def forward(self, input_ids):
        positions = torch.arange(input_ids.shape[1])[None, :]
        return self.dropout(self.norm(self.words(input_ids) + self.positions(positions)))


class SoftMaskedBert(nn.Module):
    def __init__(self, vocab=VOCAB, hidden=HIDDEN):
        super().__init__()
        self.embedding = Embeddings(vocab, hidden)
        self.detector_rnn = nn.GRU(hidden, hidden // 2, batch_first=True, bidirectional=True)
        self.detector_head = nn.Linear(hidden, 1)
        layer = nn.TransformerEncoderLayer(hidden, 4, 64, batch_first=True)
        self.corrector = nn.TransformerEncoder(layer, num_layers=2)
        self.mask_e = self.embedding(torch.tensor([[MASK_ID]])).detach()
        self.linear = nn.Linear(hidden, vocab)

    def forward(self, input_ids):
        e = self.embedding(input_ids)
        p = torch.sigmoid(self.detector_head(self.detector_rnn(e)[0]))
        e_soft = p * self.mask_e + (1 - p) * e
        h = self.corrector(e_soft) + e
        return F.log_softmax(self.linear(h), dim=-1), p.squeeze(-1)


def make_batch(batch=8, length=12):
    correct = torch.randint(2, VOCAB, (batch, length))
    typo = torch.rand(batch, length) < 0.15
    noisy = torch.where(typo, torch.randint(2, VOCAB, (batch, length)), correct)
    return noisy, correct, (noisy != correct).float()


def main():
    torch.manual_seed(0)
    model = SoftMaskedBert()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    gamma = 0.8
    for step in range(4):
        noisy, correct, is_typo = make_batch()
        out, p = model(noisy)
        correction_loss = F.nll_loss(out.reshape(-1, VOCAB), correct.reshape(-1))
        detection_loss = F.binary_cross_entropy(p, is_typo)
        loss = gamma * correction_loss + (1 - gamma) * detection_loss
        optimizer.zero_grad()
        loss.backward()
        assert all(p.grad is not None for p in model.parameters())
        optimizer.step()
        print(f"step {step}: correction {correction_loss.item():.3f} detection {detection_loss.item():.3f}")


if __name__ == "__main__":
    main()
