"""The checker's knowledge of which ops keep a tensor for their backward, held against torch 2.13
(tests/groundtruth/saved_tensors.py, run in a subprocess): an op the table says keeps nothing must
let a graph of it be backwarded twice, and indexing keeps its index exactly when the checker says so."""

from __future__ import annotations

import ast
import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from errknow_ls.analysis import check_source
from errknow_ls.analysis.torch_api import NO_SAVE_OPS

SCRIPT = Path(__file__).resolve().parent / "saved_tensors.py"

requires_torch = pytest.mark.skipif(
    importlib.util.find_spec("torch") is None,
    reason=f"torch is not importable by {sys.executable}; `make test` installs it",
)


@pytest.fixture(scope="module")
def raised() -> dict[str, bool]:
    done = subprocess.run(
        [sys.executable, str(SCRIPT)], capture_output=True, text=True, timeout=300, check=True
    )
    result: dict[str, bool] = json.loads(done.stdout)
    return result


def recipe_names(table: str) -> set[str]:
    """The keys of a recipe table of the script, read from its source (this process has no torch)."""
    tree = ast.parse(SCRIPT.read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.target.id == table:
            assert isinstance(node.value, ast.Dict)
            return {
                k.value for k in node.value.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)
            }
    raise AssertionError(f"no table {table} in {SCRIPT.name}")


def test_every_op_said_to_keep_nothing_has_a_recipe() -> None:
    assert recipe_names("NO_SAVE_RECIPES") == set(NO_SAVE_OPS)


@requires_torch
@pytest.mark.torch
@pytest.mark.parametrize("op", sorted(NO_SAVE_OPS))
def test_an_op_said_to_keep_nothing_can_be_backwarded_twice(op: str, raised: dict[str, bool]) -> None:
    assert raised[op] is False, f"torch keeps a tensor for `{op}`: it does not belong in NO_SAVE_OPS"


@requires_torch
@pytest.mark.torch
@pytest.mark.parametrize("op", sorted(recipe_names("SAVING_RECIPES")))
def test_an_op_left_out_of_the_table_keeps_a_tensor(op: str, raised: dict[str, bool]) -> None:
    assert raised[f"saves: {op}"] is True


INDEXING = {
    "integer": ("x[0]", False),
    "slice": ("x[1:]", False),
    "none and ellipsis": ("x[None, ..., 0]", False),
    "tensor": ("x[torch.tensor([0, 2])]", True),
    "list": ("x[[0, 2]]", True),
    "tuple with a tensor": ("x[:, torch.tensor([0, 2])]", True),
}


@pytest.mark.parametrize("kind", sorted(INDEXING))
def test_the_checker_reads_indexing_as_torch_does(kind: str) -> None:
    """Each expression, checked: a finding exactly where the next test shows torch raising."""
    expression, keeps = INDEXING[kind]
    program = (
        "import torch\n"
        "x = torch.randn(3, 3, requires_grad=True)\n"
        f"total = {expression}.sum()\n"
        "total.backward()\n"
        "total.backward()\n"
    )
    found = [f.span.start.line + 1 for f in check_source(program).findings]
    assert found == ([5] if keeps else [])


@requires_torch
@pytest.mark.torch
@pytest.mark.parametrize("kind", sorted(INDEXING))
def test_torch_keeps_the_index_exactly_there(kind: str, raised: dict[str, bool]) -> None:
    assert raised[f"index: {kind}"] is INDEXING[kind][1]
