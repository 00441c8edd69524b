"""Tiny BERT-style pre-training with masked-LM and next-sentence-prediction heads, AMP scaler.

Mixed precision is only enabled on CUDA; on CPU the scaler is a no-op. Each head's
loss is scaled and backpropagated separately.

Real report of this mechanism: https://github.com/OpenNMT/OpenNMT-py/issues/2153
A loss from an extra classification head on the shared encoder, backwarded on its own
besides the translation loss, raises this error.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

VOCAB, MASK_ID, SEQ = 40, 1, 10


class TinyBert(nn.Module):
    def __init__(self, d_model=16, nhead=2, layers=1):
        super().__init__()
        self.tok = nn.Embedding(VOCAB, d_model)
        self.pos = nn.Parameter(torch.zeros(1, SEQ, d_model))
        layer = nn.TransformerEncoderLayer(d_model, nhead, dim_feedforward=32, batch_first=True, dropout=0.0)
        self.encoder = nn.TransformerEncoder(layer, layers)
        self.mlm = nn.Linear(d_model, VOCAB)
        self.nsp = nn.Linear(d_model, 2)

    def forward(self, ids):
        h = self.encoder(self.tok(ids) + self.pos)
        return self.mlm(h), self.nsp(h[:, 0])


def mask_tokens(ids, p=0.15):
    labels = ids.clone()
    mask = torch.rand(ids.shape) < p
    mask[:, 1] = True
    labels[~mask] = -100
    return ids.masked_fill(mask, MASK_ID), labels


def main():
    torch.manual_seed(0)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    model = TinyBert().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    scaler = torch.amp.GradScaler(device, enabled=device == "cuda")
    for step in range(2):
        ids = torch.randint(2, VOCAB, (4, SEQ), device=device)
        inputs, mlm_labels = mask_tokens(ids)
        nsp_labels = torch.randint(0, 2, (4,), device=device)
        with torch.autocast(device_type=device, enabled=device == "cuda"):
            mlm_logits, nsp_logits = model(inputs)
            mlm_loss = F.cross_entropy(
                mlm_logits.reshape(-1, VOCAB), mlm_labels.reshape(-1), ignore_index=-100
            )
            nsp_loss = F.cross_entropy(nsp_logits, nsp_labels)
        optimizer.zero_grad(set_to_none=True)
        scaler.scale(mlm_loss).backward()
        scaler.scale(nsp_loss).backward()  # error: [shared-graph-backward]
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        scaler.step(optimizer)
        scaler.update()
        print(f"step {step}: mlm {mlm_loss.item():.3f} nsp {nsp_loss.item():.3f}")


if __name__ == "__main__":
    main()
