"""pytorch/attn-mask-shape: MultiheadAttention given an attn_mask whose shape is not (L, S)."""

import torch
from torch import nn

FIXES = {
    "workarounds.0": "target_by_source",
}


def variant_batch_first_mask(fix=None):
    """A padding mask [N, S] passed as attn_mask; it belongs in key_padding_mask."""
    attention = nn.MultiheadAttention(8, 2)
    q = torch.randn(5, 2, 8)
    padding = torch.zeros(2, 5, dtype=torch.bool)
    if fix == "target_by_source":
        attention(q, q, q, key_padding_mask=padding)
    else:
        attention(q, q, q, attn_mask=padding)


def variant_mask_for_a_batch_first_layout(fix=None):
    """Inputs laid out [N, L, E] to a module built without batch_first=True: L and N are swapped."""
    x = torch.randn(4, 6, 8)
    causal = torch.triu(torch.ones(6, 6, dtype=torch.bool), diagonal=1)
    attention = nn.MultiheadAttention(8, 2, batch_first=fix == "target_by_source")
    attention(x, x, x, attn_mask=causal)


if __name__ == "__main__":
    variant_batch_first_mask()
