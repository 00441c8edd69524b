"""Fine-tuning a tiny LLaMA-style decoder whose attention keeps the inference KV cache
(cache_k / cache_v buffers written at start_pos) also during training.

Twin of buggy/llama_attention_kv_cache_written_with_graph.py with the reporter's fix:
the cache buffers are detached at the start of every forward, so each step writes its
keys and values into a buffer that carries no earlier step's graph; the current step's
keys still carry their own graph back to wk and wv.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

DIM, HEADS, VOCAB, MAX_BATCH, MAX_SEQ = 32, 4, 20, 8, 16


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.head_dim = DIM // HEADS
        self.wq, self.wk = nn.Linear(DIM, DIM, bias=False), nn.Linear(DIM, DIM, bias=False)
        self.wv, self.wo = nn.Linear(DIM, DIM, bias=False), nn.Linear(DIM, DIM, bias=False)
        self.cache_k = torch.zeros(MAX_BATCH, MAX_SEQ, HEADS, self.head_dim)
        self.cache_v = torch.zeros(MAX_BATCH, MAX_SEQ, HEADS, self.head_dim)

    def forward(self, x, start_pos, mask):
        bsz, seqlen, _ = x.shape
        xq = self.wq(x).view(bsz, seqlen, HEADS, self.head_dim)
        xk = self.wk(x).view(bsz, seqlen, HEADS, self.head_dim)
        xv = self.wv(x).view(bsz, seqlen, HEADS, self.head_dim)
        self.cache_k = self.cache_k.to(xq).detach()
        self.cache_v = self.cache_v.to(xq).detach()
        self.cache_k[:bsz, start_pos : start_pos + seqlen] = xk
        self.cache_v[:bsz, start_pos : start_pos + seqlen] = xv
        keys = self.cache_k[:bsz, : start_pos + seqlen].transpose(1, 2)
        values = self.cache_v[:bsz, : start_pos + seqlen].transpose(1, 2)
        scores = xq.transpose(1, 2) @ keys.transpose(2, 3) / self.head_dim**0.5 + mask
        out = F.softmax(scores, dim=-1) @ values
        return self.wo(out.transpose(1, 2).reshape(bsz, seqlen, DIM))


class TinyLlama(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(VOCAB, DIM)
        self.attn = Attention()
        self.out = nn.Linear(DIM, VOCAB)

    def forward(self, tokens, start_pos=0):
        seqlen = tokens.shape[1]
        mask = torch.full((seqlen, seqlen), float("-inf")).triu(1)
        h = self.tok(tokens)
        return self.out(h + self.attn(h, start_pos, mask))


def main(steps=4, batch=8, seqlen=12):
    torch.manual_seed(0)
    model = TinyLlama()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for step in range(steps):
        tokens = torch.randint(VOCAB, (batch, seqlen + 1))
        logits = model(tokens[:, :-1])
        loss = F.cross_entropy(logits.reshape(-1, VOCAB), tokens[:, 1:].reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        assert all(p.grad is not None for p in model.parameters())
        optimizer.step()
        print(f"step {step}: loss {loss.item():.3f}")


if __name__ == "__main__":
    main()
