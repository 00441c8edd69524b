"""pytorch/index-out-of-range-in-self: an embedding lookup with an index >= num_embeddings."""

import torch
from torch import nn

FIXES = {
    "workarounds.0": "num_embeddings",
}


def variant_vocab_too_small(fix=None):
    """A tokenizer with more ids than the embedding table has rows."""
    embedding = nn.Embedding(101 if fix == "num_embeddings" else 100, 8)
    embedding(torch.tensor([[5, 99, 100]]))


def variant_padding_id_outside(fix=None):
    """The pad id appended after the vocabulary, not counted in num_embeddings."""
    vocab, pad = 50, 50
    embedding = nn.Embedding(vocab + 1 if fix == "num_embeddings" else vocab, 4, padding_idx=None)
    embedding(torch.tensor([[1, 2, pad, pad]]))


def variant_position_ids(fix=None):
    """Learned positions sized for 8 tokens, fed a sequence of 10."""
    positions = nn.Embedding(10 if fix == "num_embeddings" else 8, 4)
    positions(torch.arange(10))


if __name__ == "__main__":
    variant_vocab_too_small()
