"""Soft-Masked BERT for spelling correction: a GRU detector soft-masks token embeddings
towards the [MASK] embedding, and a transformer corrector predicts the right token.

Reports: https://github.com/hiyoung123/SoftMaskedBert/issues/15 and issue 16 of the same
repository -- the model computes ``self.mask_e = self.embedding(mask_token_id)`` once, in
``__init__``, and uses it in every forward; the training script calls
``loss.backward(retain_graph=True)`` (issue 15 asks why), and issue 16 reports that
with it, torch 1.5 fails after the optimizer step with an in-place modification error.
The fix given in issue 16 is ``self.mask_e = self.embedding(mask_token_id).detach()``.

This is the model trained with a plain ``loss.backward()``: the [MASK] embedding's graph
(embedding lookup, LayerNorm) is built once, in ``__init__``, and the first backward
frees it, so the second step's backward raises.
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
        self.mask_e = self.embedding(torch.tensor([[MASK_ID]]))
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
        loss.backward()  # error: [pre-loop-graph-backward]
        optimizer.step()
        print(f"step {step}: correction {correction_loss.item():.3f} detection {detection_loss.item():.3f}")


if __name__ == "__main__":
    main()
