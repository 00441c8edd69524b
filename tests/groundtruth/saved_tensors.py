"""Which ops keep a tensor for their backward, asked of torch: for each recipe, ``z = op(x).sum()``
is backwarded twice; the second backward raises exactly when the op's node kept a tensor, which the
first backward freed.

    python tests/groundtruth/saved_tensors.py > saved.json

Prints ``{recipe: raised}``. The checker's table of ops that keep nothing
(``errknow_ls.analysis.torch_api.NO_SAVE_OPS``) and its reading of indexing are held against this by
tests/groundtruth/test_saved_tensors.py, which runs it in a subprocess.
"""

from __future__ import annotations

import json
from collections.abc import Callable

import torch

Recipe = Callable[[torch.Tensor], torch.Tensor]

NO_SAVE_RECIPES: dict[str, Recipe] = {
    "T": lambda x: x.T,
    "__getitem__": lambda x: x[1:3, 0],
    "add": lambda x: x.add(x),
    "alias": torch.ops.aten.alias,
    "bfloat16": lambda x: x.bfloat16(),
    "cat": lambda x: torch.cat([x, x]),
    "chunk": lambda x: x.chunk(2)[0],
    "clone": lambda x: x.clone(),
    "concat": lambda x: torch.concat([x, x]),
    "concatenate": lambda x: torch.concatenate([x, x]),
    "contiguous": lambda x: x.t().contiguous(),
    "cpu": lambda x: x.cpu(),
    "cuda": lambda x: x.cpu(),  # no device here: the same copy op, by another name
    "double": lambda x: x.double(),
    "expand": lambda x: x[:1].expand(3, 3),
    "expand_as": lambda x: x[:1].expand_as(x),
    "flatten": lambda x: x.flatten(),
    "float": lambda x: x.double().float(),
    "half": lambda x: x.half(),
    "hstack": lambda x: torch.hstack([x, x]),
    "mT": lambda x: x.mT,
    "mean": lambda x: x.mean(),
    "movedim": lambda x: x.movedim(0, 1),
    "narrow": lambda x: x.narrow(0, 0, 2),
    "neg": lambda x: x.neg(),
    "negative": lambda x: x.negative(),
    "permute": lambda x: x.permute(1, 0),
    "positive": lambda x: x.positive(),
    "ravel": lambda x: x.ravel(),
    "reshape": lambda x: x.reshape(-1),
    "reshape_as": lambda x: x.reshape_as(x.t()),
    "select": lambda x: x.select(0, 1),
    "split": lambda x: x.split(1)[0],
    "squeeze": lambda x: x[None].squeeze(0),
    "squeeze_": lambda x: x[None].clone().squeeze_(0),
    "stack": lambda x: torch.stack([x, x]),
    "sub": lambda x: x.sub(x),
    "sum": lambda x: x.sum(0),
    "swapaxes": lambda x: x.swapaxes(0, 1),
    "t": lambda x: x.t(),
    "to": lambda x: x.to(torch.float64),
    "transpose": lambda x: x.transpose(0, 1),
    "tril": lambda x: x.tril(-1),
    "triu": lambda x: x.triu(1),
    "type": lambda x: x.type(torch.float64),
    "type_as": lambda x: x.type_as(x.double()),
    "unbind": lambda x: x.unbind(0)[1],
    "unflatten": lambda x: x.flatten().unflatten(0, (3, 3)),
    "unsqueeze": lambda x: x.unsqueeze(0),
    "unsqueeze_": lambda x: x.clone().unsqueeze_(0),
    "view": lambda x: x.view(9),
    "view_as": lambda x: x.view_as(x.t()),
    "vstack": lambda x: torch.vstack([x, x]),
    "flip": lambda x: x.flip(0),
    "fliplr": lambda x: x.fliplr(),
    "flipud": lambda x: x.flipud(),
    "roll": lambda x: x.roll(1, 0),
    "rot90": lambda x: x.rot90(),
    "repeat": lambda x: x.repeat(2, 1),
    "tile": lambda x: x.tile(2, 1),
    "diagonal": lambda x: x.diagonal(),
    "diag": lambda x: x.diag().diag(),  # a matrix's diagonal, then the matrix of a vector
    "diag_embed": lambda x: x.diag_embed(),
    "broadcast_to": lambda x: x[:1].broadcast_to(3, 3),
    "tensor_split": lambda x: x.tensor_split(2)[0],
    "split_with_sizes": lambda x: x.split_with_sizes([1, 2])[0],
    "unfold": lambda x: x.unfold(0, 2, 1) + torch.nn.functional.unfold(x[None, None], 2).sum(),
    "cumsum": lambda x: x.cumsum(0),
    "trace": lambda x: x.trace(),
    "row_stack": lambda x: torch.row_stack([x, x]),
    "column_stack": lambda x: torch.column_stack([x, x]),
    "dstack": lambda x: torch.dstack([x, x]),
    "atleast_1d": lambda x: torch.atleast_1d(x.sum()),
    "atleast_2d": lambda x: torch.atleast_2d(x[0]),
    "atleast_3d": torch.atleast_3d,
}
"""One call of each op in the checker's table of ops that keep nothing, by the table's name."""

SAVING_RECIPES: dict[str, Recipe] = {
    "nansum": lambda x: x.nansum(),  # keeps its input, to know where the NaNs were
    "mul by a number": lambda x: x * 2.0,  # keeps the number, as a tensor
    "take": lambda x: x.take(torch.tensor([0, 4])),  # keeps the index
    "reflection pad": lambda x: torch.nn.functional.pad(x[None], (1, 1), mode="reflect"),  # keeps its input
}
"""Ops that look as plain as those above and do keep a tensor."""

INDEXING_RECIPES: dict[str, Recipe] = {
    "integer": lambda x: x[0],
    "slice": lambda x: x[1:],
    "none and ellipsis": lambda x: x[None, ..., 0],
    "tensor": lambda x: x[torch.tensor([0, 2])],
    "list": lambda x: x[[0, 2]],
    "mask": lambda x: x[x.detach() > 0],
    "tuple with a tensor": lambda x: x[:, torch.tensor([0, 2])],
}
"""``x[index]`` by what the index is: a tensor or a list makes advanced indexing, which keeps it."""


def raises_on_second_backward(recipe: Recipe) -> bool:
    x = torch.randn(3, 3, requires_grad=True)
    total = recipe(x).float().sum()
    total.backward()
    try:
        total.backward()
    except RuntimeError:
        return True
    return False


def main() -> None:
    recipes = {
        **NO_SAVE_RECIPES,
        **{f"saves: {k}": v for k, v in SAVING_RECIPES.items()},
        **{f"index: {k}": v for k, v in INDEXING_RECIPES.items()},
    }
    print(json.dumps({name: raises_on_second_backward(recipe) for name, recipe in recipes.items()}))


if __name__ == "__main__":
    main()
