"""Paths and small helpers the tests share."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

from errknow_ls.analysis.interpreter import UNIT_BUDGET
from errknow_ls.analysis.registry import RULES

REPO = Path(__file__).resolve().parents[1]
RECORDS = REPO / "records"
SHIPPED_ID = "pytorch/backward-through-freed-graph"
SHIPPED_FILE = RECORDS / "pytorch" / "backward-through-freed-graph.json"
SHIPPED_FORMER_ID = "pytorch/grad-accumulation-required-grad-false"
"""The id the shipped second-backward record had until it was renamed (its ``former_ids``)."""
SHIPPED_IDS = sorted(f"pytorch/{path.stem}" for path in (RECORDS / "pytorch").glob("*.json"))
"""Every built-in record's id (each file under records/pytorch/ is named after its id)."""
CITED_IDS = sorted(
    f"pytorch/{path.stem}"
    for path in (RECORDS / "pytorch").glob("*.json")
    if json.loads(path.read_text(encoding="utf-8"))["verification_tier"] == "cited"
)
"""Built-in records of errors a CPU cannot raise (a GPU's, a cluster's): quoted from public tracebacks,
not reproduced."""
REPRODUCED_IDS = [rid for rid in SHIPPED_IDS if rid not in CITED_IDS]
"""Built-in records with a reproduction in records/repro/."""
KB_FIXTURES = REPO / "tests" / "kb" / "fixtures"
INPLACE_ID = "pytorch/inplace-modified-needed-for-grad"
SHAPE_ID = "pytorch/mat1-mat2-shapes"
GOOD_FILE = KB_FIXTURES / "good.json"
GOOD_ID = "test/good"


def read_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def write_json(path: Path, data: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    return path


def copy_into(directory: Path, *files: Path) -> Path:
    """A record directory holding copies of ``files``, named as they are."""
    directory.mkdir(parents=True, exist_ok=True)
    for file in files:
        shutil.copyfile(file, directory / file.name)
    return directory


def assert_readme_table(name: str, printed: str, command: str) -> None:
    """The README's generated table ``name`` (between ``<!-- name:start -->`` and ``<!-- name:end
    -->``) is what ``command`` printed now."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    start, end = f"<!-- {name}:start -->\n", f"<!-- {name}:end -->"
    assert start in readme and end in readme
    table = readme.split(start, 1)[1].split(end, 1)[0]
    assert table == printed, f"regenerate the README table with: {command}"


ENGLISH = re.compile(r"[A-Za-z]+(?:[ '-]+[A-Za-z]+){2,}")
"""Three Latin words in a row: a phrase of English (``detach``, ``GAN``, ``torch 2.13`` are not)."""
_CODE = re.compile(
    r"```.*?```|`[^`]*`|\]\([^)]*\)|(?:https?|file)://[^\s)]+|errknow-ls explain \S+", re.DOTALL
)
"""Code spans and blocks, link targets, URLs and file URIs, and the command line that explains a record
(plain-text hovers show it without the backticks Markdown puts around it)."""
IDENTIFIERS = ("errknow-ls", *(rule.name for rule in RULES))
"""Latin text a Chinese reader is shown as it is: the tool's and the rules' names."""


def english_left(text: str) -> list[str]:
    """English phrases in ``text`` outside code spans and blocks, link targets and the tool's and
    rules' names: what a test of the Chinese locale finds untranslated."""
    prose = _CODE.sub(" ", text)
    for identifier in sorted(IDENTIFIERS, key=len, reverse=True):
        prose = prose.replace(identifier, " ")
    return ENGLISH.findall(prose)


def stopped_by_the_budget() -> str:
    """A program whose ``train`` (``def`` on line 71) runs more statements than the checker's budget
    allows before its double backward: 400 calls of a helper that loops, each handed another number
    (a call handed what an earlier one was, on the same state, is answered without running)."""
    body = "".join(f"            a{i} = {i}\n" for i in range(60))
    loops = "def helper(x):\n    for i in range(3):\n        for j in range(3):\n"
    helper = loops + body + "    return x + 1\n\n\n"
    train = "def train():\n    model = nn.Linear(4, 1)\n    x = 0\n" + "    x = helper(x)\n" * 399
    double_backward = "    loss = model(torch.randn(3, 4)).sum()\n    loss.backward()\n    loss.backward()\n"
    return "import torch\nimport torch.nn as nn\n\n\n" + helper + train + double_backward


STOPPED_DEF_LINE = 71
"""1-based: the line of ``def train`` in ``stopped_by_the_budget()``."""

STOPPED_NOTE = (
    f"train: stopped after {UNIT_BUDGET:,} interpreted statements, the budget; what follows was not checked"
)
"""What the note on ``stopped_by_the_budget()``'s ``train`` says after where it is."""
