"""Fine-tuning a small Transformer encoder for sentence classification (HF-Trainer-like loop):
linear warmup/decay, gradient clipping, evaluation every epoch, best checkpoint kept in memory.
"""

import copy
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class TextClassifier(nn.Module):
    def __init__(self, vocab=50, d_model=16, nhead=2, num_layers=2, num_labels=2, max_len=12):
        super().__init__()
        self.embed = nn.Embedding(vocab, d_model, padding_idx=0)
        self.pos = nn.Embedding(max_len, d_model)
        layer = nn.TransformerEncoderLayer(d_model, nhead, 32, dropout=0.1, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers, enable_nested_tensor=False)
        self.classifier = nn.Linear(d_model, num_labels)

    def forward(self, input_ids, attention_mask):
        pos = torch.arange(input_ids.size(1)).unsqueeze(0)
        h = self.encoder(self.embed(input_ids) + self.pos(pos), src_key_padding_mask=~attention_mask)
        mask = attention_mask.unsqueeze(-1).float()
        return self.classifier((h * mask).sum(1) / mask.sum(1))


def get_linear_schedule_with_warmup(optimizer, warmup, total):
    def lr_lambda(step):
        if step < warmup:
            return (step + 1) / warmup
        return max(0.0, (total - step) / max(1, total - warmup))
    return torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda)


def make_batches(n=3, bs=4, seq=10):
    batches = []
    for _ in range(n):
        ids = torch.randint(1, 50, (bs, seq))
        lengths = torch.randint(4, seq + 1, (bs,))
        mask = torch.arange(seq).unsqueeze(0) < lengths.unsqueeze(1)
        batches.append((ids.masked_fill(~mask, 0), mask, torch.randint(0, 2, (bs,))))
    return batches


def main(epochs=2):
    torch.manual_seed(0)
    model = TextClassifier()
    no_decay = ["bias", "norm"]
    groups = [
        {"params": [p for n, p in model.named_parameters() if not any(nd in n for nd in no_decay)],
         "weight_decay": 0.01},
        {"params": [p for n, p in model.named_parameters() if any(nd in n for nd in no_decay)],
         "weight_decay": 0.0},
    ]
    optimizer = torch.optim.AdamW(groups, lr=5e-4)
    train, dev = make_batches(), make_batches(2)
    scheduler = get_linear_schedule_with_warmup(optimizer, 2, epochs * len(train))
    best_acc, best_state = -math.inf, None
    for epoch in range(epochs):
        model.train()
        for ids, mask, labels in train:
            loss = F.cross_entropy(model(ids, mask), labels)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad()
        model.eval()
        with torch.no_grad():
            correct = sum((model(i, m).argmax(-1) == y).sum().item() for i, m, y in dev)
        acc = correct / sum(len(y) for _, _, y in dev)
        if acc > best_acc:
            best_acc, best_state = acc, copy.deepcopy(model.state_dict())
        print(f"epoch {epoch}: loss {loss.item():.4f} dev acc {acc:.3f} lr {scheduler.get_last_lr()[0]:.2e}")
    model.load_state_dict(best_state)


if __name__ == "__main__":
    main()
