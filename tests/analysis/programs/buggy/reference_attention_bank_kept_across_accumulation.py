"""Reference-guided denoiser (AnimateAnyone-style): a reference net writes attention banks
that the denoising net reads, trained with gradient accumulation.

Report: https://github.com/MooreThreads/Moore-AnimateAnyone/issues/92 -- with
`gradient_accumulation_steps` above 1, train_stage_1.py raises "Trying to backward through
the graph a second time" at `accelerator.backward(loss)`. The reference UNet's attention
blocks append their normalised hidden states to a `bank` in write mode, the reader copies the
banks into the denoising UNet, and the script clears them only `if
accelerator.sync_gradients`, i.e. once per accumulation cycle: the second micro-batch's
attention still reads the first micro-batch's bank, whose graph its backward freed.
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
        loss.backward()  # error: [carried-graph-backward]
        if (step + 1) % accumulation == 0:
            optimizer.step()
            optimizer.zero_grad()
            reader.clear()
            writer.clear()
        print(f"step {step}: loss {loss.item() * accumulation:.4f}")


if __name__ == "__main__":
    main()
