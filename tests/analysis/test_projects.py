"""The checker reads the project's own modules: small projects under ``projects/``, each a
``train.py`` that imports helpers, models or a package of its own (see projects/README.md).

Ground truth: each ``train.py`` runs under torch, in its folder, as ``python train.py`` would; a
labelled one must raise the second-backward error with the labelled line among its frames, an
unlabelled one must run clean. Checker: its findings in ``train.py`` are exactly the labels."""

from __future__ import annotations

import ast
import importlib.util
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from errknow_ls.analysis import check_source
from errknow_ls.analysis.interpreter import UNIT_BUDGET
from errknow_ls.analysis.modules import ModuleText, ParsedModules
from errknow_ls.analysis.registry import BY_NAME
from errknow_ls.cli import EXIT_FOUND, EXIT_OK, main
from errknow_ls.project.modules import ProjectModules
from tests.groundtruth.train_check import problems
from tests.groundtruth.train_check import run_in_subprocess as train_in_subprocess

PROJECTS = Path(__file__).resolve().parent / "projects"
ENTRIES = sorted(PROJECTS.glob("*/train.py"))
LABEL = re.compile(r"# error: \[(?P<rule>[a-z0-9-]+)\]")
SECOND_BACKWARD = "Trying to backward through the graph a second time"

requires_torch = pytest.mark.skipif(
    importlib.util.find_spec("torch") is None, reason=f"torch is not importable by {sys.executable}"
)


RAISES_AT = re.compile(r"raises at (?P<path>\S+):(?P<line>\d+)")


def labels(entry: Path) -> dict[int, str]:
    lines = entry.read_text(encoding="utf-8").splitlines()
    return {n: BY_NAME[m["rule"]].code for n, line in enumerate(lines, 1) if (m := LABEL.search(line))}


def project_labels(entry: Path) -> dict[tuple[str, int], str]:
    """Where ``check`` of the whole project reports: every file's labels, but a label of
    ``train.py`` that says ``raises at <file>:<line>`` (a bug that file holds whole, labelled there)."""
    found: dict[tuple[str, int], str] = {}
    for path in sorted(entry.parent.rglob("*.py")):
        name = path.relative_to(entry.parent).as_posix()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if (label := LABEL.search(line)) and not RAISES_AT.search(line):
                found[name, number] = BY_NAME[label["rule"]].code
    return found


def raising_elsewhere(entry: Path) -> dict[int, tuple[str, int]]:
    """The labels of ``train.py`` on a call whose bug raises in another file: where it raises."""
    lines = entry.read_text(encoding="utf-8").splitlines()
    return {
        n: (m["path"], int(m["line"])) for n, line in enumerate(lines, 1) if (m := RAISES_AT.search(line))
    }


def ids(entry: Path) -> str:
    return entry.parent.name


def test_there_are_buggy_and_clean_projects() -> None:
    kinds = {bool(labels(entry)) for entry in ENTRIES}
    assert kinds == {True, False} and len(ENTRIES) >= 5


@requires_torch
@pytest.mark.parametrize("entry", ENTRIES, ids=ids)
def test_the_label_is_what_torch_does(entry: Path) -> None:
    run = subprocess.run(
        [sys.executable, "-X", "faulthandler", entry.name],
        cwd=entry.parent,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    expected = labels(entry)
    if not expected:
        assert run.returncode == 0, run.stderr[-2000:]
        return
    assert SECOND_BACKWARD in run.stderr, run.stderr[-2000:]
    frames = {int(n) for n in re.findall(rf'File "[^"]*{re.escape(entry.name)}", line (\d+)', run.stderr)}
    assert set(expected) <= frames, f"labels {sorted(expected)}, frames in {entry.name}: {sorted(frames)}"
    innermost = re.findall(r'File "([^"]*)", line (\d+)', run.stderr.split(SECOND_BACKWARD)[0])
    in_project = [
        (Path(p).resolve(), int(n)) for p, n in innermost if Path(p).resolve().is_relative_to(entry.parent)
    ]
    for path, line in raising_elsewhere(entry).values():
        assert (entry.parent / path, line) == in_project[-1], (
            f"the traceback ends in the project at {in_project[-1]}"
        )
        assert (path, line) in project_labels(entry), f"{path}:{line} holds the label"


@pytest.mark.parametrize("entry", ENTRIES, ids=ids)
def test_the_checker_finds_exactly_the_labels(entry: Path) -> None:
    result = check_source(entry.read_text(encoding="utf-8"), modules=ProjectModules.for_file(entry))
    assert result.errors == []
    assert {f.span.start.line + 1: f.code for f in result.findings} == labels(entry)
    assert result.read, "the project's own modules were read"


@pytest.mark.parametrize("entry", ENTRIES, ids=ids)
def test_check_over_the_project_says_each_bug_once_where_it_raises(entry: Path) -> None:
    """`errknow-ls check <project>` says what the editor says: a ``train.py`` without a backward of
    its own, whose call reaches one in a helper, is checked too (the first test on its bytes let it
    pass unchecked)."""
    run = subprocess.run(
        [sys.executable, "-m", "errknow_ls", "check", "--no-cache", "--output-format", "json", "."],
        cwd=entry.parent,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert run.returncode in (0, 1), run.stderr
    found = json.loads(run.stdout)
    where = {
        (
            (entry.parent / f["filename"]).resolve().relative_to(entry.parent.resolve()).as_posix(),
            f["location"]["row"],
        ): f["code"]
        for f in found
    }
    assert where == project_labels(entry)


FIXED_AT_A_CALL = ["helper_backwards_twice", "helper_step_in_loop", "helper_steps_share_a_forward"]
"""Projects whose finding sits on a call in ``train.py`` that runs a backward in a helper."""


@requires_torch
@pytest.mark.parametrize("name", FIXED_AT_A_CALL)
def test_a_finding_on_a_call_is_told_and_fixed_as_the_backward_it_runs(name: str, tmp_path: Path) -> None:
    """A helper that backwards what it is given, called here: the finding says what it would say
    of the backward written here, and its fix trains. One call that backwards twice holds the bug
    whole: the finding says where, and no fix edits the caller (none there would help)."""
    project = tmp_path / name
    shutil.copytree(PROJECTS / name, project)
    entry = project / "train.py"
    result = check_source(entry.read_text(encoding="utf-8"), modules=ProjectModules.for_file(entry))
    (finding,) = result.findings
    assert finding.raises_elsewhere is not None  # the backward that raises, in the helper, comes first
    if name == "helper_backwards_twice":
        assert finding.message.startswith("the backward at steps.py:9 goes through")
        assert finding.fixes == ()
        return
    assert finding.message.startswith("`")  # the rule's own words, naming the tensor at the call
    assert finding.fixes and finding.fixes[0].applicability == "safe"
    assert all("retain_graph" not in f.title for f in finding.fixes)
    assert main(["check", "--no-cache", "--fix", str(entry)]) == EXIT_OK
    assert "step(" in entry.read_text(encoding="utf-8")
    (training,) = train_in_subprocess([entry]).values()
    assert problems(training) == [], entry.read_text(encoding="utf-8")


def test_without_the_project_the_imports_stay_unknown() -> None:
    """The same files checked alone: a helper's graph is unknown, and unknown never reports."""
    for entry in ENTRIES:
        assert check_source(entry.read_text(encoding="utf-8")).findings == []


def test_a_changed_module_is_read_again(tmp_path: Path) -> None:
    """A cached check stands only while the modules it read say the same."""
    from errknow_ls.analysis import Cache  # noqa: PLC0415 (the checker is loaded lazily)

    for name in ("train.py", "utils.py"):
        (tmp_path / name).write_text(
            (PROJECTS / "helper_keeps_the_graph" / name).read_text(), encoding="utf-8"
        )
    entry, cache = tmp_path / "train.py", Cache()
    text = entry.read_text(encoding="utf-8")
    assert [
        f.code for f in check_source(text, cache=cache, modules=ProjectModules.for_file(entry)).findings
    ] == ["EK003"]
    cut = "def smooth(state, factor=0.9):\n    return (state * factor).detach()\n"
    (tmp_path / "utils.py").write_text(cut, encoding="utf-8")
    assert check_source(text, cache=cache, modules=ProjectModules.for_file(entry)).findings == []


def test_a_helper_that_gains_a_backward_is_read_again(tmp_path: Path) -> None:
    """A file whose imports reached no backward ran no unit, so no unit read the helper: the check
    still stands only while the helper it looked at says the same, in the checker's cache and in
    ``check``'s results cache alike."""
    from errknow_ls.analysis import Cache  # noqa: PLC0415 (the checker is loaded lazily)

    project = PROJECTS / "helper_backwards_twice"
    entry, helper, cache = tmp_path / "train.py", tmp_path / "steps.py", Cache()
    entry.write_text((project / "train.py").read_text(), encoding="utf-8")
    helper.write_text("def backward_for_both(loss, first, second):\n    pass\n", encoding="utf-8")
    text = entry.read_text(encoding="utf-8")
    first = check_source(text, cache=cache, modules=ProjectModules.for_file(entry))
    assert first.findings == [] and first.read, "what the imports' walk read is recorded"
    assert main(["check", "--cache-dir", str(tmp_path / "cache"), str(tmp_path)]) == EXIT_OK
    helper.write_text((project / "steps.py").read_text(), encoding="utf-8")
    found = check_source(text, cache=cache, modules=ProjectModules.for_file(entry))
    assert [f.code for f in found.findings] == ["EK001"]
    assert main(["check", "--cache-dir", str(tmp_path / "cache"), str(tmp_path)]) == EXIT_FOUND


def test_a_module_made_after_the_check_is_read(tmp_path: Path) -> None:
    """A cached check whose import found nothing stands only while nothing is made where it looked:
    the helper created afterwards (or a package folder holding it) is read by the next check."""
    from errknow_ls.analysis import Cache  # noqa: PLC0415 (the checker is loaded lazily)

    project = PROJECTS / "helper_keeps_the_graph"
    entry, cache = tmp_path / "train.py", Cache()
    entry.write_text((project / "train.py").read_text(), encoding="utf-8")
    text = entry.read_text(encoding="utf-8")
    assert check_source(text, cache=cache, modules=ProjectModules.for_file(entry)).findings == []
    (tmp_path / "utils.py").write_text((project / "utils.py").read_text(), encoding="utf-8")
    found = check_source(text, cache=cache, modules=ProjectModules.for_file(entry))
    assert [f.code for f in found.findings] == ["EK003"]
    (tmp_path / "utils.py").unlink()
    assert check_source(text, cache=cache, modules=ProjectModules.for_file(entry)).findings == []


def test_a_module_made_inside_a_package_is_read(tmp_path: Path) -> None:
    """``from tools.utils import smooth``: the package ``tools`` exists, its module ``utils`` does not
    yet; once made there, the next check reads it."""
    from errknow_ls.analysis import Cache  # noqa: PLC0415 (the checker is loaded lazily)

    project = PROJECTS / "helper_keeps_the_graph"
    entry, cache = tmp_path / "train.py", Cache()
    text = (project / "train.py").read_text().replace("from utils import", "from tools.utils import")
    entry.write_text(text, encoding="utf-8")
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "__init__.py").write_text("", encoding="utf-8")
    assert check_source(text, cache=cache, modules=ProjectModules.for_file(entry)).findings == []
    (tmp_path / "tools" / "utils.py").write_text((project / "utils.py").read_text(), encoding="utf-8")
    found = check_source(text, cache=cache, modules=ProjectModules.for_file(entry))
    assert [f.code for f in found.findings] == ["EK003"]


def test_a_module_is_parsed_once_per_text() -> None:
    """Two files with the same text, or one read by many checks, are parsed and walked once."""
    parsed = ParsedModules()
    text = (PROJECTS / "helper_keeps_the_graph" / "utils.py").read_text(encoding="utf-8")
    first = parsed.read(ModuleText("a/utils.py", text))
    assert first is not None and first.defined == {"smooth"} and not first.may_backward
    assert parsed.read(ModuleText("b/utils.py", text)) is first
    assert parsed.read(ModuleText("a/utils.py", text + "\n")) is not first
    assert parsed.read(ModuleText("bad.py", "def (:\n")) is None


def test_definitions_at_any_depth_are_read() -> None:
    """A module's definitions are found wherever a statement can hold them (under ``if``, ``try``,
    ``except``, ``else``, ``finally``, ``match``, ``with``, ``for`` and inside other definitions);
    a lambda bound to a name is no definition."""
    text = (
        "import sys\n"
        "if sys.platform:\n    def a(): pass\nelse:\n    class B:\n        def b(self): pass\n"
        "try:\n    def c(): pass\nexcept ImportError:\n    def d(): pass\nelse:\n    async def e(): pass\n"
        "finally:\n    def f(): pass\n"
        "match sys.argv:\n    case [_]:\n        def g(): pass\n"
        "with open(__file__):\n    for _ in ():\n        def h():\n            def i(): pass\n"
        "j = lambda: None\n"
    )
    parsed = ParsedModules().read(ModuleText("m.py", text))
    assert parsed is not None and parsed.defined == set("aBbcdefghi")


def _chain(folder: Path, links: int) -> Path:
    """``train.py`` calling a helper re-exported through ``links`` modules, the last of which
    backwards twice (``helper_backwards_twice``'s helper)."""
    helper = (PROJECTS / "helper_backwards_twice" / "steps.py").read_text(encoding="utf-8")
    (folder / f"m{links}.py").write_text(helper, encoding="utf-8")
    for n in range(1, links):
        (folder / f"m{n}.py").write_text(f"from m{n + 1} import backward_for_both\n", encoding="utf-8")
    entry = folder / "train.py"
    train = (PROJECTS / "helper_backwards_twice" / "train.py").read_text(encoding="utf-8")
    entry.write_text(train.replace("from steps import", "from m1 import"), encoding="utf-8")
    return entry


@pytest.mark.parametrize(("links", "codes"), [(4, ["EK001"]), (5, [])])
def test_a_backward_is_looked_for_three_imports_past_the_first(
    tmp_path: Path, links: int, codes: list[str]
) -> None:
    """A call of an imported name is followed when the module it comes from, or one at most three
    imports past it, holds a backward: four modules down the finding is made, five down the call
    is not followed (the walk ends there without reading the last module)."""
    entry = _chain(tmp_path, links)
    modules = ProjectModules.for_file(entry)
    found = check_source(entry.read_text(encoding="utf-8"), modules=modules)
    assert [f.code for f in found.findings] == codes


def test_a_modules_imports_are_read_without_parsing_it_whole() -> None:
    """The import statements at module level, found by parsing only the statements that say
    ``import``, are those of the whole parse: on one line after another statement, over several
    lines, not those inside a function or an ``if``. A module that does not parse whole still
    says what it imports; a statement with the word that does not parse gives no answer."""
    text = (
        "import os\n"
        "x = 1; import sys as system\n"
        "from .pkg import (\n    a,\n    b as c,\n)\n"
        "def f():\n    import json\n"
        "if x:\n    import re\n"
        '"""\nimport inside_a_docstring\n"""\n'
    )
    parsed = ParsedModules()
    whole = parsed.read(ModuleText("m.py", text))
    chunked = parsed.imports(ModuleText("m.py", text))
    assert whole is not None and chunked is not None
    assert [ast.dump(s) for s in chunked] == [ast.dump(s) for s in whole.imports]
    assert [type(s).__name__ for s in chunked] == ["Import", "Import", "ImportFrom"]
    broken = ModuleText("broken.py", text + "def g(:\n    pass\n")
    assert parsed.read(broken) is None
    assert [ast.dump(s) for s in parsed.imports(broken) or ()] == [ast.dump(s) for s in chunked]
    assert parsed.imports(ModuleText("cut.py", "from os import (\n")) is None


def test_a_module_that_does_not_parse_stays_unknown_though_its_imports_reach(tmp_path: Path) -> None:
    """The helper two imports away backwards twice, but the module between does not parse: it is
    unknown, as Python cannot import it, and nothing is reported."""
    entry = _chain(tmp_path, 2)
    middle = tmp_path / "m1.py"
    middle.write_text(middle.read_text(encoding="utf-8") + "def broken(:\n    pass\n", encoding="utf-8")
    found = check_source(entry.read_text(encoding="utf-8"), modules=ProjectModules.for_file(entry))
    assert found.findings == []
    middle.write_text("from m2 import backward_for_both\n", encoding="utf-8")
    found = check_source(entry.read_text(encoding="utf-8"), modules=ProjectModules.for_file(entry))
    assert [f.code for f in found.findings] == ["EK001"]


@pytest.mark.parametrize(
    ("imported", "called"),
    [
        ("from steps import backward_for_both as both", "both"),
        ("import steps as helpers", "helpers.backward_for_both"),
        ("from steps import *", "backward_for_both"),
        # a submodule of a package: `import lib.steps` makes `steps` an attribute of `lib`
        ("import lib.steps", "lib.steps.backward_for_both"),
        ("import lib\nimport lib.steps", "lib.steps.backward_for_both"),
        ("import lib.steps\nimport lib.other", "lib.steps.backward_for_both"),
        ("import lib.steps as helpers", "helpers.backward_for_both"),
        ("from lib import steps", "steps.backward_for_both"),
    ],
)
def test_a_helper_that_backwards_is_followed_however_it_is_imported(
    tmp_path: Path, imported: str, called: str
) -> None:
    """The helper that backwards twice, imported under another name, as a module's attribute,
    by a star or as a package's submodule: the call is followed and the finding made."""
    folder = PROJECTS / "helper_backwards_twice"
    home = tmp_path / "lib" if "lib" in imported else tmp_path
    home.mkdir(exist_ok=True)
    (tmp_path / "lib" / "__init__.py").write_text("", encoding="utf-8") if home != tmp_path else None
    (home / "other.py").write_text("SIZE = 3\n", encoding="utf-8")
    shutil.copy(folder / "steps.py", home / "steps.py")
    train = (folder / "train.py").read_text(encoding="utf-8")
    train = train.replace("from steps import backward_for_both", imported)
    train = train.replace("    backward_for_both(loss", f"    {called}(loss")
    entry = tmp_path / "train.py"
    entry.write_text(train, encoding="utf-8")
    found = check_source(train, modules=ProjectModules.for_file(entry))
    assert [f.code for f in found.findings] == ["EK001"]


def _long_render(statements: int) -> str:
    """A function that interprets ``statements`` statements and never reaches a backward."""
    return "def render(frames):\n" + "".join(f"    frames.append({n})\n" for n in range(statements))


@pytest.mark.parametrize(("calls", "stopped"), [("render(frames)", False), ("render(frames)\nfit()", True)])
def test_only_the_imported_definitions_that_reach_a_backward_are_run(
    tmp_path: Path, calls: str, stopped: bool
) -> None:
    """``helpers.py`` backwards in ``fit`` and also defines ``render``, which runs longer than a
    unit's budget and backwards nowhere: a file that calls ``render`` alone is not run (no note
    that the check stopped); one that calls ``fit`` too is, and its run stops in ``render``."""
    (tmp_path / "helpers.py").write_text(
        _long_render(20_000) + "\n\ndef fit():\n    import torch\n    w = torch.ones(2, requires_grad=True)\n"
        "    (w * 2).sum().backward()\n",
        encoding="utf-8",
    )
    entry = tmp_path / "plot.py"
    text = f"from helpers import fit, render\nframes = []\n{calls}\n"
    entry.write_text(text, encoding="utf-8")
    found = check_source(text, modules=ProjectModules.for_file(entry))
    assert found.findings == []
    assert any("stopped after" in e for e in found.errors) is stopped, found.errors


@pytest.mark.parametrize("order", [("other.py", "train.py"), ("train.py", "other.py")])
def test_the_checks_of_one_run_share_the_walk_and_find_what_each_alone_finds(
    tmp_path: Path, order: tuple[str, str]
) -> None:
    """The checks of one run of ``check`` (one layout of the project) share what the walk through
    the project's imports found: each file's findings and reads are those of its check alone. The
    checked file is never one of its own modules: ``middle.py`` reaches a backward only through
    its ``import train``, which the check of ``other.py`` follows and that of ``train.py`` passes
    over. Each works out that part of the walk for itself: taken from the other, ``train.py``'s
    reads would name itself, or ``other.py`` would not run its call of ``middle.run``."""
    (tmp_path / "train.py").write_text(
        "import middle\n\n\ndef twice(loss):\n    loss.backward()\n    loss.backward()\n", encoding="utf-8"
    )
    (tmp_path / "middle.py").write_text(
        "import train\n\n\ndef run(loss):\n    train.twice(loss)\n", encoding="utf-8"
    )
    (tmp_path / "other.py").write_text(
        "import torch\nfrom middle import run\n\nw = torch.ones(2, requires_grad=True)\nrun((w * 2).sum())\n",
        encoding="utf-8",
    )
    (tmp_path / "pyproject.toml").write_text("", encoding="utf-8")

    def check(name: str, run: str | None) -> tuple[list[tuple[str, int]], set[str]]:
        path = tmp_path / name
        found = check_source(path.read_text(encoding="utf-8"), modules=ProjectModules.for_file(path, run=run))
        return [(f.code, f.span.start.line) for f in found.findings], {d.key for d in found.read}

    alone = {name: check(name, None) for name in order}
    shared = {name: check(name, f"one run, {order}") for name in order}
    assert shared == alone
    assert alone["other.py"][0] == [("EK001", 4)]
    assert str((tmp_path / "train.py").resolve()) in alone["other.py"][1]
    assert str((tmp_path / "train.py").resolve()) not in alone["train.py"][1]


@pytest.mark.parametrize(
    ("binding", "call", "runs"),
    [
        ("try:\n    import thop\nexcept ImportError:\n    thop = None\n", "thop.profile(frames)", False),
        ("from thop import profile\n", "profile(frames)", False),
        ("import thop.vision as vision\n", "vision.profile(frames)", False),
        ("from helpers import profile\n", "profile(frames)", True),
        ("import thop\nthop = helpers.wrap(thop)\n", "thop.profile(frames)", True),
        ("import thop\nglobals()['other'] = 1\n", "thop.profile(frames)", True),
        ("import thop\nfrom helpers import *\n", "thop.profile(frames)", True),
        ("import thop\n", "thop.profile(frames)", True),  # with a thop.py of the project's
    ],
)
def test_a_call_of_what_comes_from_outside_the_project_reaches_no_backward_of_its_own(
    tmp_path: Path, binding: str, call: str, runs: bool
) -> None:
    """``helpers.profile`` backwards (it times a model's backward pass). ``model.render`` calls a
    ``profile`` too, that of a library (``thop``): by name alone it reached the project's, so every
    file that calls ``render`` ran it (here to the end of the budget, which a note says). A name
    the module binds only to an import that finds no module of the project (or to a constant)
    reaches nothing of the project's; a name bound otherwise too (a rebinding, ``globals()``, a
    ``from helpers import *`` that binds it, a ``thop.py`` of the project's) still does."""
    (tmp_path / "helpers.py").write_text(
        "import torch\nthop = None\n\n\ndef profile(frames):\n    w = torch.ones(2, requires_grad=True)\n"
        "    (w * 2).sum().backward()\n\n\ndef wrap(module):\n    return module\n",
        encoding="utf-8",
    )
    if binding == "import thop\n":
        (tmp_path / "thop.py").write_text(
            "import helpers\n\n\ndef profile(frames):\n    helpers.profile(frames)\n", encoding="utf-8"
        )
    render = _long_render(20_000).replace("def render(frames):\n", f"def render(frames):\n    {call}\n", 1)
    (tmp_path / "model.py").write_text(f"import helpers\n{binding}\n\n{render}", encoding="utf-8")
    entry = tmp_path / "plot.py"
    text = "from model import render\nframes = []\nrender(frames)\n"
    entry.write_text(text, encoding="utf-8")
    found = check_source(text, modules=ProjectModules.for_file(entry))
    assert found.findings == []
    assert any("stopped after" in e for e in found.errors) is runs, found.errors


@pytest.mark.parametrize(("definitions", "found"), [(1_200, True), (UNIT_BUDGET * 9 // 8, False)])
def test_the_imports_every_unit_starts_from_are_read_within_the_full_budget(
    tmp_path: Path, definitions: int, found: bool
) -> None:
    """pytorch/ignite's tests: many small test functions share a file's budget (about 400
    statements each), and reading the package they import ran out of a unit's share: an internal
    error for the file (so never cached, and checked again on every warm run), and names the unit
    needs not known. The module's imports and definitions are read within the full unit budget;
    a package beyond even that gets a note, never an internal error."""
    (tmp_path / "big").mkdir()
    filler = "".join(f"def f{i}():\n    pass\n\n\n" for i in range(definitions))
    maker = "def make_weight():\n    import torch\n    return torch.ones(2, requires_grad=True)\n"
    (tmp_path / "big" / "__init__.py").write_text(filler + maker, encoding="utf-8")
    tests = "".join(
        f"\n\ndef test_{i}():\n    w = make_weight()\n    loss = (w * w).sum()\n"
        "    loss.backward()\n    loss.backward()\n"
        for i in range(20)
    )
    entry = tmp_path / "test_small.py"
    entry.write_text("from big import make_weight\n" + tests, encoding="utf-8")
    result = check_source(entry.read_text(encoding="utf-8"), modules=ProjectModules.for_file(entry))
    assert not any("internal error" in e for e in result.errors), result.errors
    assert len(result.findings) == (20 if found else 0)
    notes = [e for e in result.errors if "the module's definitions and imports" in e]
    assert len(notes) == (0 if found else 1), result.errors
