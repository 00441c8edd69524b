"""Checking with a cache from earlier checks finds exactly what a check from scratch finds, and
re-runs only the units whose reachable text an edit changed."""

from __future__ import annotations

import ast
import random
import textwrap
from pathlib import Path

import pytest

import errknow_ls.analysis.checker as checker_module
from errknow_ls.analysis import Cache, CheckResult, check_source
from errknow_ls.analysis.checker import (
    MAX_FILE_STEPS,
    MAX_REMEMBERED,
    MAX_TESTED_FIXES,
    BodyRuns,
    unit_budget,
)
from errknow_ls.analysis.chunks import ChunkCache, read_chunk, split_chunks
from errknow_ls.analysis.interpreter import UNIT_BUDGET, Interpreter
from errknow_ls.analysis.source import SourceText, parse
from errknow_ls.core.findings import read_limit_note
from tests.support import STOPPED_DEF_LINE, stopped_by_the_budget

HERE = Path(__file__).parent
PROGRAMS = sorted((HERE / "programs").rglob("*.py"))
FIXTURES = sorted((HERE / "fixtures").rglob("*.py"))
SAMPLE = sorted(random.Random(7).sample(PROGRAMS, 40) + FIXTURES)

TRAINING = textwrap.dedent(
    """\
    import torch
    from torch import nn


    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 1)

        def forward(self, x):
            return self.fc(x)


    def train_twice(model, x):
        loss = model(x).sum()
        loss.backward()
        loss.backward()


    def train_loop(model, x):
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        for _ in range(3):
            opt.zero_grad()
            model(x).sum().backward()
            opt.step()


    def unrelated():
        return 1


    if __name__ == "__main__":
        train_twice(Net(), torch.randn(2, 4))
    """
)


def _summary(result: CheckResult) -> list[tuple[str, int, int, str]]:
    return [(f.code, f.span.start.line, f.span.start.character, f.message) for f in result.findings]


def _edits(text: str, rng: random.Random) -> list[str]:
    """Edits as typing makes them: a line changed, inserted or deleted, a character typed."""
    lines = text.split("\n")
    out = []
    for _ in range(4):
        copy = list(lines)
        at = rng.randrange(len(copy))
        kind = rng.choice(("comment", "blank", "delete", "type", "indent"))
        if kind == "comment":
            copy[at] += "  # edited"
        elif kind == "blank":
            copy.insert(at, "")
        elif kind == "delete":
            del copy[at]
        elif kind == "type":
            copy[at] = copy[at][: len(copy[at]) // 2] + "x" + copy[at][len(copy[at]) // 2 :]
        else:
            copy[at] = "    " + copy[at]
        out.append("\n".join(copy))
    return out


@pytest.mark.parametrize("path", SAMPLE, ids=lambda p: str(p.relative_to(HERE)))
def test_a_cached_check_after_edits_equals_a_fresh_check(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    cache = Cache()
    assert _summary(check_source(text, cache=cache)) == _summary(check_source(text))
    rng = random.Random(str(path.name))
    for edited in _edits(text, rng):
        cached = check_source(edited, cache=cache)
        fresh = check_source(edited)
        assert _summary(cached) == _summary(fresh)
        assert cached.errors == fresh.errors
    assert _summary(check_source(text, cache=cache)) == _summary(check_source(text))


def test_an_edit_reruns_only_the_units_that_reach_it() -> None:
    cache = Cache()
    first = check_source(TRAINING, cache=cache)
    assert [f.code for f in first.findings] == ["EK001"]
    # The text and, to see whether each of its fixes holds, the text with that fix applied: each
    # fix edits train_twice (which the module body reaches) and moves train_loop.
    texts = 1 + len(first.findings[0].fixes)
    runs = cache.runs
    assert runs == 3 * texts  # the module body (it calls train_twice), train_twice, train_loop

    check_source(TRAINING.replace("return 1", "return 2"), cache=cache)
    assert cache.runs == runs, "nothing reaches `unrelated`: no unit runs again"

    check_source(TRAINING.replace("lr=0.1", "lr=0.2"), cache=cache)
    assert cache.runs == runs + texts, "only train_loop reaches the edited line"

    check_source(TRAINING.replace("nn.Linear(4, 1)", "nn.Linear(4, 2)"), cache=cache)
    assert cache.runs == runs + texts + 3 * texts, (
        "every unit reaches Net: through its name or the module body"
    )


def test_a_line_inserted_above_moves_the_findings_below() -> None:
    cache = Cache()
    check_source(TRAINING, cache=cache)
    moved = check_source("# a comment\n" + TRAINING, cache=cache)
    assert _summary(moved) == _summary(check_source("# a comment\n" + TRAINING))
    assert [f.span.start.line for f in moved.findings] == [17]


TWO_FUNCTIONS = textwrap.dedent(
    """\
    import torch
    from torch import nn


    def train_twice():
        model = nn.Linear(4, 1)
        loss = model(torch.randn(2, 4)).sum()
        loss.backward()
        loss.backward()


    def train_loop():
        model = nn.Linear(4, 1)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        for _ in range(3):
            opt.zero_grad()
            model(torch.randn(2, 4)).sum().backward()
            opt.step()
    """
)


def test_lines_added_above_a_unit_that_found_nothing_do_not_run_it_again() -> None:
    """train_loop moves two lines down and finds nothing, there as here: it is not run again;
    train_twice, edited, is, and its finding is on its new line. (The rule is left out where units
    are counted: the test of its fixes checks fixed texts too.)"""
    cache = Cache()
    first = check_source(TWO_FUNCTIONS, cache=cache)
    assert [(f.code, f.span.start.line) for f in first.findings] == [("EK001", 8)]
    runs = cache.runs
    longer = TWO_FUNCTIONS.replace("loss.backward()\n", "loss.backward()\n\n    # two lines more\n", 1)
    assert check_source(longer, cache=cache, ignore=("EK001",)).findings == []
    assert cache.runs == runs + 1, "only train_twice, whose text changed, runs again"
    moved = check_source(longer, cache=cache)
    assert _summary(moved) == _summary(check_source(longer))
    assert [(f.code, f.span.start.line) for f in moved.findings] == [("EK001", 10)]
    runs = cache.runs
    assert check_source(TWO_FUNCTIONS, cache=cache, ignore=("EK001",)).findings == []
    assert cache.runs == runs, "back where they were: both are known at their old lines"


def test_a_limits_note_moves_with_the_unit_it_stopped() -> None:
    """A unit the budget stopped, moved down by lines added above it, is not run again: its note
    names the line its ``def`` is on now."""
    cache = Cache()
    above = "def unrelated():\n    return 1\n\n\n"
    text = above + stopped_by_the_budget()
    first = check_source(text, cache=cache)
    assert [read_limit_note(e)[0] for e in first.errors] == [STOPPED_DEF_LINE + 4]  # type: ignore[index]
    runs = cache.runs
    longer = text.replace("return 1\n", "return 1\n    # two lines\n    # more\n", 1)
    moved = check_source(longer, cache=cache)
    assert cache.runs == runs
    assert moved.errors == check_source(longer).errors
    assert [read_limit_note(e)[0] for e in moved.errors] == [STOPPED_DEF_LINE + 6]  # type: ignore[index]


def test_a_chunk_known_at_another_line_is_moved_there_without_parsing_it() -> None:
    cache = ChunkCache()
    text = "def f(x):\n    return x\n"
    there, parsed = cache.get((0, text))
    here, again = cache.get((5, text))
    assert parsed is not None and again is None
    assert (here.start, here.name, here.calls) == (5, there.name, there.calls)
    (definition,) = cache.body(here)
    assert definition.lineno == 6


LAYOUTS = {
    "top-level lines in a string": 'DOC = """\nloss.backward()\nloss.backward()\n"""\n' + TRAINING,
    "top-level line in brackets": "x = dict(\na=1)\n" + TRAINING,
    "CRLF": TRAINING.replace("\n", "\r\n"),
    "CR": TRAINING.replace("\n", "\r"),
    "else in column 0": "if True:\n    pass\nelse:\n    pass\n" + TRAINING,
    "try in column 0": "try:\n    pass\nexcept E:\n    pass\nfinally:\n    pass\n" + TRAINING,
    "decorated": TRAINING.replace("def train_twice", "@decorate\n@other(1)\ndef train_twice"),
    "triple quotes in a comment and a string": '# """\ns = \'"""\'\n' + TRAINING,
}


@pytest.mark.parametrize("text", LAYOUTS.values(), ids=LAYOUTS.keys())
def test_odd_layouts_find_the_same_as_one_parse(text: str) -> None:
    assert [f.code for f in check_source(text).findings] == ["EK001"]
    assert "".join(t for _, t in split_chunks(text)) == text


def test_a_broken_definition_loses_only_itself() -> None:
    broken = TRAINING.replace("def unrelated():\n    return 1", "def unrelated(:\n    return 1")
    result = check_source(broken)
    assert [f.code for f in result.findings] == ["EK001"]
    assert len(result.errors) == 1
    assert result.errors[0].startswith("line 28:")


def test_triple_quoted_strings_hide_column_0_lines_from_the_chunker() -> None:
    text = "\"\"\"Docs.\n\nTrain twice:\nloss.backward()\n\"\"\"\nimport torch\ns = '''\nt = 0\n'''\nt = 1\n"
    assert [(line, chunk.split("\n", 1)[0]) for line, chunk in split_chunks(text)] == [
        (0, '"""Docs.'),
        (5, "import torch"),
        (6, "s = '''"),
        (9, "t = 1"),
    ]


@pytest.mark.parametrize("units", [1, 3, 40, 400, 4_000])
@pytest.mark.parametrize("lines", [10, 900, 5_000, 20_000, 200_000])
def test_a_files_units_share_a_bounded_budget_that_typing_keeps(units: int, lines: int) -> None:
    budget = unit_budget(lines)(units)
    assert 0 < budget <= UNIT_BUDGET
    assert units * budget <= max(UNIT_BUDGET, MAX_FILE_STEPS)
    assert unit_budget(lines + 1)(units) == budget or (lines & (lines - 1)) == 0  # a power of two
    assert unit_budget(lines - 1)(units) == budget or ((lines - 1) & (lines - 2)) == 0


@pytest.mark.parametrize(
    ("text", "cut"),
    [
        ("x = f(\n", True),
        ('s = """\n', True),
        ("x = 1 + \\\n", True),
        ("def f():\n", True),
        ("def f():\n    loader = DataLoader(data, batch_size=32x)\n    return loader\n", False),
        ("def f(:\n    return 1\n", False),
    ],
)
def test_only_a_chunk_left_open_may_have_been_cut_by_the_chunker(text: str, cut: bool) -> None:
    """A chunk that ends inside a bracket, a string or a continuation may be half a statement the
    chunker split (then the whole text is parsed to know); any other error is the code's own, and
    the check goes on with the other chunks, without a parse of the whole file on every keystroke."""
    chunk, body = read_chunk(10, text)
    assert chunk.error is not None and body == ()
    assert chunk.cut is cut


@pytest.mark.parametrize("path", SAMPLE[::3], ids=lambda p: str(p.relative_to(HERE)))
def test_typing_inside_a_line_rechecks_from_the_last_check_and_finds_the_same(path: Path) -> None:
    """Characters typed and deleted inside lines, one at a time, as an editor sends them: each check
    starts from the previous one where it can, and always finds what a check from scratch finds."""
    text = path.read_text(encoding="utf-8")
    cache = Cache()
    check_source(text, cache=cache)
    rng = random.Random(path.name)
    for _ in range(12):
        at = rng.randrange(1, len(text))
        if rng.random() < 0.5:
            text = text[:at] + rng.choice("xe1(._ ") + text[at:]
        elif text[at] not in "\n":
            text = text[:at] + text[at + 1 :]
        cached = check_source(text, cache=cache)
        fresh = check_source(text)
        assert _summary(cached) == _summary(fresh)
        assert cached.errors == fresh.errors


def test_a_keystroke_inside_a_function_reruns_only_its_unit() -> None:
    cache = Cache()
    first = check_source(TRAINING, cache=cache, document="train.py")
    # The document and, to see whether each fix holds, the document with that fix applied: each
    # starts from its own last check.
    texts = 1 + len(first.findings[0].fixes)
    runs, quick = cache.runs, cache.quick
    typed = TRAINING.replace("lr=0.1", "lr=0.15")
    assert _summary(check_source(typed, cache=cache, document="train.py")) == _summary(check_source(typed))
    assert (cache.runs, cache.quick) == (runs + texts, quick + texts)
    broken = typed.replace("lr=0.15", "lr=0.15x")  # a syntax error: train_loop is left out
    result = check_source(broken, cache=cache, document="train.py")
    assert (_summary(result), result.errors) == (_summary(fresh := check_source(broken)), fresh.errors)
    assert result.errors == ["line 21: invalid decimal literal"]
    assert cache.quick == quick + 2 * texts
    renamed = typed.replace("def unrelated", "def unrelated2")  # a new name: units are built again
    check_source(renamed, cache=cache, document="train.py")
    assert cache.quick == quick + 2 * texts


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_an_edited_source_has_the_lines_a_split_gives(newline: str) -> None:
    text = newline.join(["a = 1", "b = 2", "c = 3", ""])
    at = text.index("b = 2") + 2
    edited = text[:at] + "xy" + text[at:]
    assert SourceText(text).edited(edited, at).lines == SourceText(edited).lines


def test_documents_named_by_the_caller_start_from_their_own_last_check() -> None:
    cache = Cache()
    other = TRAINING.replace("def unrelated", "def elsewhere")
    first = check_source(TRAINING, cache=cache, document="a.py")
    check_source(other, cache=cache, document="b.py")
    texts = 1 + len(first.findings[0].fixes)  # each document, and it with each fix applied
    quick = cache.quick
    for name, text in (("a.py", TRAINING), ("b.py", other)):
        typed = text.replace("lr=0.1", "lr=0.12")
        assert _summary(check_source(typed, cache=cache, document=name)) == _summary(check_source(typed))
    assert cache.quick == quick + 2 * texts
    moved = TRAINING.replace("lr=0.1", "lr=0.13")
    check_source(moved, cache=cache, document="c.py")  # a document never checked: from scratch
    assert cache.quick == quick + 2 * texts


def test_a_keystroke_starts_from_the_last_check_however_many_fixes_are_tested() -> None:
    """More fixes than documents a cache remembers: the document and each fixed text still start
    from their own last check (one remembered check each, in a queue shorter than their number,
    had pushed each out before its turn: every keystroke took the full path 1 + fixes times)."""
    twice = (
        "\n\ndef train_{n}():\n    x = torch.randn(2, 4, requires_grad=True)\n"
        "    loss = (x * 2).sum()\n    loss.backward()\n    loss.backward()\n"
    )
    text = TRAINING + "".join(twice.format(n=n) for n in range(MAX_REMEMBERED + 2))
    cache = Cache()
    first = check_source(text, cache=cache, document="train.py")
    fixes = {(f.span.start, fix.edits) for f in first.findings for fix in f.fixes}
    assert MAX_REMEMBERED < len(fixes) <= MAX_TESTED_FIXES
    quick = cache.quick
    typed = text.replace("lr=0.1", "lr=0.15")
    assert _summary(check_source(typed, cache=cache, document="train.py")) == _summary(check_source(typed))
    assert cache.quick == quick + 1 + len(fixes)


def test_the_checks_remembered_hold_a_bounded_text_and_the_latest_document_stays(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A document's fixed texts are each as long as it: past ``MAX_REMEMBERED_CHARS`` the document
    checked longest ago is forgotten (its next keystroke takes the full path), the latest never."""
    first = check_source(TRAINING)
    texts = 1 + len(first.findings[0].fixes)  # the document and it with each fix applied
    monkeypatch.setattr(checker_module, "MAX_REMEMBERED_CHARS", texts * len(TRAINING) + 10)
    cache = Cache()
    other = TRAINING.replace("def unrelated", "def elsewhere")
    check_source(TRAINING, cache=cache, document="a.py")
    check_source(other, cache=cache, document="b.py")
    quick = cache.quick
    check_source(other.replace("lr=0.1", "lr=0.12"), cache=cache, document="b.py")
    assert cache.quick == quick + texts, "b.py, the latest, is remembered"
    check_source(TRAINING.replace("lr=0.1", "lr=0.12"), cache=cache, document="a.py")
    assert cache.quick == quick + texts, "a.py was forgotten to keep b.py"


def test_a_unit_skips_a_module_body_the_check_saw_stop_and_finds_the_same() -> None:
    """The module unit's run of the body stops at the budget; a function's unit of the same chunks
    then skips that run (it would stop too) and finds what it finds after running it."""
    setup = "def setup(count):\n" + "    count += 1\n" * 100 + "    return count\n\n\n"
    train = (
        "def train():\n    w = torch.ones(2, requires_grad=True)\n    loss = (w * w).sum()\n"
        "    loss.backward()\n    loss.backward()\n\n\n"
    )
    text = "import torch\n\n\n" + train + setup + "count = 0\n" + "count = setup(count)\n" * 100 + "train()\n"
    cache = Cache()
    chunks = [cache.chunks.get(key)[0] for key in split_chunks(text)]
    module_unit, train_unit = (
        u for u in cache.units_for(tuple(chunks), text.count("\n") + 1) if u.kind != "class"
    )
    source = SourceText(text)
    stops = BodyRuns()
    module_outcome = cache.outcome(module_unit, source, {}, None, stops)
    assert module_outcome.errors and stops.stops(train_unit)
    skipped = Cache().outcome(train_unit, source, {}, None, stops)
    ran = Cache().outcome(train_unit, source, {}, None, BodyRuns())
    assert skipped == ran
    assert [p.code for p in ran.passes] == ["EK001"]


SCRIPT = textwrap.dedent(
    """\
    import torch
    from torch import nn

    net = nn.Linear(3, 1)
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    losses = []


    def train(x):
        loss = net(x).sum()
        losses.append(loss)
        loss.backward()
        loss.backward()


    def tune(x):
        out = net(x)
        out.sum().backward()
        opt.step()
        out.mean().backward()


    train(torch.randn(4, 3))
    tune(torch.randn(4, 3))
    """
)


def test_a_unit_goes_on_from_the_module_body_the_check_ran_and_finds_the_same() -> None:
    """The module unit runs the body to its end; each function's unit of the same chunks goes on
    from a fork of that run, in either order, and finds what it finds when it runs the body again.
    On other trees of the same text (parsed again), it runs the body again."""
    cache = Cache()
    parsed = [cache.chunks.get(key) for key in split_chunks(SCRIPT)]
    chunks = [chunk for chunk, _ in parsed]
    trees = {chunk.key: body for chunk, body in parsed if body is not None}
    module_unit, *functions = cache.units_for(tuple(chunks), SCRIPT.count("\n") + 1)
    assert module_unit.kind == "module" and [u.kind for u in functions] == ["function", "function"]
    source = SourceText(SCRIPT)
    alone = [Cache().outcome(unit, source, trees, None, BodyRuns()) for unit in functions]
    assert [[p.code for p in o.passes] for o in alone] == [["EK001"], ["EK004"]]
    assert all(p.finding.fixes for o in alone for p in o.passes)
    for order in (functions, functions[::-1]):
        runs = BodyRuns()
        Cache().outcome(module_unit, source, trees, None, runs)
        module = ast.Module(body=[s for c in chunks for s in trees[c.key]], type_ignores=[])
        assert all(runs.resume(unit, module) is not None for unit in order)
        found = {id(unit): Cache().outcome(unit, source, trees, None, runs) for unit in order}
        assert [found[id(unit)] for unit in functions] == alone
    runs = BodyRuns()
    Cache().outcome(module_unit, source, {}, None, runs)
    assert runs.resume(functions[0], module) is None
    assert [Cache().outcome(unit, source, {}, None, runs) for unit in functions] == alone


def _held(interpreter: object) -> dict[str, object]:
    """How much each of an interpreter's containers holds (a state: its names and places)."""
    shape: dict[str, object] = {}
    for name, value in vars(interpreter).items():
        if hasattr(value, "env"):
            shape[name] = (len(value.env), len(value.heap), len(value.freed), len(value.retained))
        elif hasattr(value, "optimizers"):
            shape[name] = (len(value.optimizers), len(value.uses), len(value.timeline))
        elif hasattr(value, "__len__") and not isinstance(value, str):
            shape[name] = len(value)
    return shape


def test_what_a_fork_of_an_interpreter_runs_the_interpreter_and_other_forks_do_not_see() -> None:
    module = parse(SCRIPT)
    interpreter = Interpreter(module)
    interpreter.run_module(True)
    before = _held(interpreter)
    train = next(s for s in module.body if isinstance(s, ast.FunctionDef) and s.name == "train")
    first, second = interpreter.fork(), interpreter.fork()
    for fork in (first, second):
        fork.run_function(train)
    assert _held(interpreter) == before
    assert _held(first) == _held(second) != before
    assert [type(e).__name__ for e in first.events] == [type(e).__name__ for e in second.events]
    assert len(first.events) > len(interpreter.events)
    assert first.serial_now() == second.serial_now()
