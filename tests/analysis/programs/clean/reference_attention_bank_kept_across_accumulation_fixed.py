"""Reference-guided denoiser (AnimateAnyone-style): a reference net writes attention banks
that the denoising net reads, trained with gradient accumulation.

Twin of buggy/reference_attention_bank_kept_across_accumulation.py: the banks hold one
micro-batch's reference features, so they are cleared after every micro-batch's backward,
while the optimizer still steps once per accumulation cycle.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class BankedAttention(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.attn = nn.MultiheadAttention(dim, num_heads=2, batch_first=True)
        self.mode = "write"
        self.bank = []

    def forward(self, h):
        x = self.norm(h)
        if self.mode == "write":
            out, _ = self.attn(x, x, x)
            self.bank.append((h + out).clone())
        else:
            context = torch.cat([x] + self.bank, dim=1)
            out, _ = self.attn(x, context, context)
        return h + out


class ReferenceNet(nn.Module):
    def __init__(self, dim=16, depth=2):
        super().__init__()
        self.proj = nn.Linear(4, dim)
        self.blocks = nn.ModuleList(BankedAttention(dim) for _ in range(depth))

    def forward(self, tokens):
        h = self.proj(tokens)
        for block in self.blocks:
            h = block(h)
        return h


class DenoisingNet(ReferenceNet):
    def __init__(self, dim=16, depth=2):
        super().__init__(dim, depth)
        self.out = nn.Linear(dim, 4)
        for block in self.blocks:
            block.mode = "read"

    def forward(self, tokens):
        return self.out(super().forward(tokens))


class ReferenceControl:
    def __init__(self, net):
        self.net = net

    def update(self, writer):
        for r, w in zip(self.net.blocks, writer.net.blocks):
            r.bank = [v.clone() for v in w.bank]

    def clear(self):
        for block in self.net.blocks:
            block.bank.clear()


def main(steps=4, accumulation=2):
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(0)
    reference_net, denoising_net = ReferenceNet(), DenoisingNet()
    writer, reader = ReferenceControl(reference_net), ReferenceControl(denoising_net)
    params = [*reference_net.parameters(), *denoising_net.parameters()]
    optimizer = torch.optim.AdamW(params, lr=1e-3)
    for step in range(steps):
        ref_tokens = torch.randn(2, 6, 4, generator=g)
        clean = torch.randn(2, 6, 4, generator=g)
        noise = torch.randn(2, 6, 4, generator=g)
        reference_net(ref_tokens)
        reader.update(writer)
        pred = denoising_net(clean + noise)
        loss = F.mse_loss(pred, noise) / accumulation
        loss.backward()
        assert all(p.grad is not None for p in params)
        reader.clear()
        writer.clear()
        if (step + 1) % accumulation == 0:
            optimizer.step()
            optimizer.zero_grad()
        print(f"step {step}: loss {loss.item() * accumulation:.4f}")


if __name__ == "__main__":
    main()
