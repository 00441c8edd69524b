"""A module of the project read by one unit is replayed, not read again, by the next unit of the
same check: the interpreter must end up as a second read would leave it."""

from __future__ import annotations

import ast
import itertools
from pathlib import Path

from errknow_ls.analysis.interpreter import Interpreter
from errknow_ls.analysis.interpreter.imports import _IMPORT_MEMO
from errknow_ls.analysis.modules import digest
from errknow_ls.project.modules import ProjectModules

HELPERS = """\
import torch
from common import scale, Config
from . import common as again


class Head(torch.nn.Module):
    def forward(self, x):
        return scale(x) * 2


def twice(x):
    return x * 2


WIDTH = torch.zeros(3)
"""
COMMON = """\
def scale(x):
    return x * 3


class Config:
    depth = 2
"""


def project(tmp_path: Path, helpers: str = HELPERS) -> ProjectModules:
    (tmp_path / "helpers.py").write_text(helpers, encoding="utf-8")
    (tmp_path / "common.py").write_text(COMMON, encoding="utf-8")
    (tmp_path / "train.py").write_text("import helpers\n", encoding="utf-8")
    return ProjectModules.for_file(tmp_path / "train.py")


def after_import(modules: ProjectModules, text: str = "import helpers\n") -> Interpreter:
    interpreter = Interpreter(ast.parse(text), modules=modules)
    interpreter.run_module(False)
    return interpreter


def seen(interpreter: Interpreter) -> tuple[object, ...]:
    """What a unit's run can tell of the modules it read."""
    serial = next(interpreter._serial)
    interpreter._serial = itertools.count(serial)
    return (
        interpreter.namespaces,
        interpreter.trees,
        list(interpreter.read.items()),
        interpreter.total_steps,
        list(interpreter.classes.items()),
        serial,
        interpreter.forward_calls,
        interpreter.module_calls,
        interpreter.state.env,
    )


def test_a_second_unit_replays_the_read_and_ends_as_a_read_would(tmp_path: Path) -> None:
    modules = project(tmp_path)
    first = after_import(modules)
    remembered = _IMPORT_MEMO.get(modules)
    assert remembered is not None
    helpers = str(tmp_path / "helpers.py")
    assert any(key[:2] == (helpers, digest(HELPERS)) for key in remembered)
    assert set(first.namespaces) == {helpers, str(tmp_path / "common.py")}
    assert first.forward_calls  # torch.zeros(3): a forward call the replay must carry over
    assert seen(after_import(modules)) == seen(first)


def test_a_module_read_with_different_text_is_read_again(tmp_path: Path) -> None:
    modules = project(tmp_path)
    after_import(modules)
    changed = HELPERS.replace("def twice(x):", "def thrice(x):")
    (tmp_path / "helpers.py").write_text(changed, encoding="utf-8")
    names = after_import(modules).namespaces[str(tmp_path / "helpers.py")]
    assert "thrice" in names and "twice" not in names


def test_a_read_that_runs_code_is_not_remembered(tmp_path: Path) -> None:
    modules = project(tmp_path, HELPERS + "HEAD = Head()\n")  # an object made: serial numbers move
    after_import(modules)
    remembered = _IMPORT_MEMO.get(modules)
    assert remembered is not None
    assert not any(key[0] == str(tmp_path / "helpers.py") for key in remembered)


def test_a_unit_that_read_an_import_before_gets_what_a_fresh_read_gives(tmp_path: Path) -> None:
    """helpers imports common: a unit that read common first finds it read, and the replay of
    helpers must leave it as a source that remembers nothing would."""
    modules = project(tmp_path)
    after_import(modules)  # remembers helpers, with common read inside it
    text = "import common\nimport helpers\n"
    fresh = ProjectModules.for_file(tmp_path / "train.py")  # another source: nothing remembered
    assert seen(after_import(modules, text)) == seen(after_import(fresh, text))
