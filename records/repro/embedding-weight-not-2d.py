"""pytorch/embedding-weight-not-2d: F.embedding given a weight that is not [num_embeddings, dim]."""

import torch
import torch.nn.functional as F

FIXES = {
    "workarounds.0": "table",
}


def variant_one_row_of_the_table(fix=None):
    """A row of the table (weight[0]) passed where the whole table was meant."""
    ids, weight = torch.tensor([[1, 2]]), torch.randn(10, 4)
    out = F.embedding(ids, weight if fix == "table" else weight[0])
    assert out.shape == (1, 2, 4)


def variant_weight_of_one_row(fix=None):
    """A 1-D table (one value per token) where a [N, 1] table was meant."""
    ids, table = torch.tensor([0, 3]), torch.randn(10)
    out = F.embedding(ids, table.unsqueeze(1) if fix == "table" else table)
    assert out.shape == (2, 1)


if __name__ == "__main__":
    variant_one_row_of_the_table()
