"""Real programs' output, read back: in every format, the second backward is found on its message
line, pinned on the user's line and explained by the shipped record; other errors parse too, each
explained by its own record (the in-place and shape errors) or by none (the programs' own errors)."""

from __future__ import annotations

import json

import pytest

from errknow_ls.kb import KnowledgeBase
from errknow_ls.tracebacks import (
    Chain,
    Style,
    Traceback,
    TracebackMatch,
    TracebackScanner,
    match_tracebacks,
    read_notebook,
    read_tracebacks,
)
from tests.support import INPLACE_ID, SHAPE_ID, SHIPPED_ID

from .conftest import SECOND_BACKWARD, Capture, Captures

INPLACE = "RuntimeError: one of the variables needed for gradient computation has been modified"
SHAPE = "RuntimeError: mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)"
RECORD_OF = {INPLACE: INPLACE_ID, SHAPE: SHAPE_ID}
"""The other errors the programs raise that a record explains; the rest (ValueError, KeyError, the
torchrun summary) no record does."""


def _expected_record(tb: Traceback) -> str | None:
    return next((rid for needle, rid in RECORD_OF.items() if tb.exception_line.startswith(needle)), None)


def _record_id(match: TracebackMatch) -> str | None:
    return match.record.id if match.record else None


@pytest.fixture(scope="module")
def kb() -> KnowledgeBase:
    return KnowledgeBase.load()


def _matches(kb: KnowledgeBase, capture: Capture) -> list[TracebackMatch]:
    return match_tracebacks(kb, read_tracebacks(capture.output))


def _explained(matches: list[TracebackMatch]) -> list[Traceback]:
    return [m.traceback for m in matches if m.record is not None and m.record.id == SHIPPED_ID]


def _assert_second_backward(
    kb: KnowledgeBase, capture: Capture, expected_count: int, needle: str = SECOND_BACKWARD
) -> list[Traceback]:
    """Every second-backward message line, and only those, explained by the shipped record,
    each pinned on the program's ``# second backward`` line."""
    matches = _matches(kb, capture)
    expected_lines = capture.lines_with(needle)
    assert len(expected_lines) == expected_count, capture.plain_lines
    explained = _explained(matches)
    assert sorted(tb.message_line for tb in explained) == expected_lines
    others = [m for m in matches if m.traceback not in explained]
    found = [(m.traceback.exception_line[:80], _record_id(m)) for m in others]
    assert found == [(m.traceback.exception_line[:80], _expected_record(m.traceback)) for m in others]
    signature = kb.get(SHIPPED_ID).signature  # type: ignore[union-attr]
    for tb in explained:
        assert tb.exception_line == signature  # torch 2.13 prints the record's signature verbatim
        assert tb.user_frame is not None
        assert (tb.user_frame.file, tb.user_frame.line) == (
            str(capture.program),
            capture.marker_line("second backward"),
        )
    return explained


@pytest.mark.parametrize(("name", "count"), [("plain", 1), ("tqdm", 2)])
def test_second_backward_in_a_script_log(
    kb: KnowledgeBase, captures: Captures, name: str, count: int
) -> None:
    capture = captures[name]
    assert capture.returncode == 1
    _assert_second_backward(kb, capture, count)


def test_plain_script_frames_run_from_module_to_torch(captures: Captures) -> None:
    capture = captures["plain"]
    (tb,) = read_tracebacks(capture.output)
    assert tb.style is Style.PYTHON
    assert [frame.function for frame in tb.frames[:3]] == ["<module>", "main", "train_step"]
    assert all("site-packages" in frame.file for frame in tb.frames[3:])
    assert tb.start_line == capture.lines_with("Traceback (most recent call last):")[0]
    assert tb.end_line == tb.message_line == len(capture.plain_lines) - 2  # the output ends with "\n"
    assert tb.message.startswith("Trying to backward through the graph a second time")


def test_tqdm_bar_sharing_lines_with_a_log_record_and_a_header(kb: KnowledgeBase, captures: Captures) -> None:
    capture = captures["tqdm"]
    explained = _assert_second_backward(kb, capture, 2)
    header_after_bar = [
        i for i in capture.lines_with("Traceback (most recent call last):") if "\r" in capture.plain_lines[i]
    ]
    assert header_after_bar, "the re-raised traceback should start on the progress bar's line"
    assert header_after_bar[-1] in [tb.start_line for tb in explained]
    (inplace,) = [
        tb for tb in read_tracebacks(capture.output) if tb.message_line in capture.lines_with(INPLACE)
    ]
    assert inplace.user_frame is not None
    assert inplace.user_frame.line == capture.marker_line("inplace error")


@pytest.mark.parametrize(
    ("name", "needle", "marker"), [("inplace", INPLACE, "inplace error"), ("shape", SHAPE, "shape error")]
)
def test_other_errors_are_explained_by_their_own_records(
    kb: KnowledgeBase, captures: Captures, name: str, needle: str, marker: str
) -> None:
    capture = captures[name]
    (match,) = _matches(kb, capture)
    tb = match.traceback
    assert _record_id(match) == RECORD_OF[needle]
    assert tb.message_line == capture.lines_with(needle)[0]
    assert tb.exception_line.startswith(needle)
    assert tb.user_frame is not None
    assert (tb.user_frame.file, tb.user_frame.line) == (str(capture.program), capture.marker_line(marker))


CHAINS = {
    "chained-cause": (Chain.CAUSE, "ValueError", "raised from"),
    "chained-context": (Chain.CONTEXT, "KeyError", "raised while handling"),
}


@pytest.mark.parametrize("name", CHAINS)
def test_chained_exceptions_are_one_group(kb: KnowledgeBase, captures: Captures, name: str) -> None:
    chain, exception, marker = CHAINS[name]
    capture = captures[name]
    first, second = _assert_second_backward(kb, capture, 1) + [
        m.traceback for m in _matches(kb, capture) if m.record is None
    ]  # the chained ValueError / KeyError is the program's own: no record
    assert (first.chain, second.chain) == (None, chain)
    assert first.group == second.group
    assert second.exception == exception
    assert second.user_frame is not None
    assert second.user_frame.line == capture.marker_line(marker)


def test_exception_group_members(kb: KnowledgeBase, captures: Captures) -> None:
    capture = captures["exception-group"]
    _assert_second_backward(kb, capture, 1)
    group, backward, shape = read_tracebacks(capture.output)
    assert (group.exception, group.depth, backward.depth, shape.depth) == ("ExceptionGroup", 1, 2, 2)
    assert group.message == "two failures (2 sub-exceptions)"
    assert group.group == backward.group == shape.group
    assert shape.exception_line == SHAPE
    assert shape.user_frame is not None
    assert shape.user_frame.line == capture.marker_line("shape error")
    assert group.user_frame is not None
    assert group.user_frame.line == capture.marker_line("group raised")


@pytest.mark.parametrize(("name", "streams"), [("torchrun", "rank"), ("torchrun-tee", "default")])
def test_torchrun_ranks(kb: KnowledgeBase, captures: Captures, name: str, streams: str) -> None:
    capture = captures[name]
    assert capture.returncode != 0
    summary = 2 if name == "torchrun-tee" else 0  # @record repeats each child's traceback, indented
    explained = _assert_second_backward(kb, capture, 2 + summary)
    by_rank = sorted(tb.stream for tb in explained if tb.stream)
    if streams == "rank":
        assert by_rank == ["rank0", "rank1"]
    else:
        assert by_rank == ["default0:rank0", "default1:rank1"]
    failed = [m for m in _matches(kb, capture) if m.traceback.exception.endswith("ChildFailedError")]
    assert len(failed) == 1
    assert failed[0].record is None
    assert SECOND_BACKWARD not in failed[0].traceback.message


def test_ipython_session_with_colour(kb: KnowledgeBase, captures: Captures) -> None:
    capture = captures["ipython-session"]
    assert b"\x1b[" in capture.output
    matches = _matches(kb, capture)
    assert [m.traceback.style for m in matches] == [Style.IPYTHON] * 3
    backward, inplace, shape = (m.traceback for m in matches)
    assert [_record_id(m) for m in matches] == [SHIPPED_ID, INPLACE_ID, SHAPE_ID]
    assert backward.message_line == capture.lines_with(SECOND_BACKWARD)[0]
    assert inplace.message_line == capture.lines_with(INPLACE)[0]
    assert shape.exception_line == SHAPE
    session = capture.program.read_text(encoding="utf-8")
    cell = session.split("\n\n")[0].split("\n", 1)[1]  # In [2]: the def; In [1] was the import
    assert backward.user_frame is not None
    assert (backward.user_frame.file, backward.user_frame.cell) == ("Cell In[2]", 2)
    assert backward.user_frame.line == capture.marker_line("second backward", cell)
    assert [(f.file, f.line) for f in (inplace.user_frame, shape.user_frame) if f] == [
        ("Cell In[4]", 1),
        ("Cell In[5]", 1),
    ]


def test_ipython_running_a_script(kb: KnowledgeBase, captures: Captures) -> None:
    capture = captures["ipython-script"]
    (tb,) = _assert_second_backward(kb, capture, 1)
    assert tb.style is Style.IPYTHON
    assert [frame.function for frame in tb.frames[:2]] == ["<module>", "main"]


def test_notebook_executed_by_nbclient(kb: KnowledgeBase, captures: Captures) -> None:
    capture = captures["notebook"]
    cells = json.loads(capture.output)["cells"]
    matches = match_tracebacks(kb, read_notebook(capture.output))
    assert [(m.traceback.cell, _record_id(m)) for m in matches] == [
        (2, SHIPPED_ID),
        (3, SHAPE_ID),
        (4, INPLACE_ID),
    ]
    backward, shape, inplace = (m.traceback for m in matches)
    definition = "".join(cells[1]["source"])
    assert backward.user_frame is not None
    count = cells[1]["execution_count"]
    assert (backward.user_frame.file, backward.user_frame.cell) == (f"Cell In[{count}]", count)
    assert backward.user_frame.line == capture.marker_line("second backward", definition)
    assert shape.exception_line == SHAPE
    assert inplace.exception_line.startswith(INPLACE)
    for tb, index in ((backward, 2), (shape, 3), (inplace, 4)):
        error = next(o for o in cells[index]["outputs"] if o["output_type"] == "error")
        assert (tb.exception, tb.message) == (error["ename"], error["evalue"])


def test_rich_boxes_and_wrapped_messages(kb: KnowledgeBase, captures: Captures) -> None:
    capture = captures["rich"]
    assert "╭" in capture.plain_lines[0]
    # At 60 columns the message's first line ends before "a second time".
    (backward,) = _assert_second_backward(kb, capture, 1, "RuntimeError: Trying to backward through")
    assert backward.style is Style.RICH
    assert "\n" in backward.message, "the console is narrow: rich wraps the message"
    assert [frame.function for frame in backward.frames[:2]] == ["<module>", "train_step"]
    assert any(frame.file.endswith("torch/_tensor.py") for frame in backward.frames)  # a wrapped path
    shape = next(
        tb for tb in read_tracebacks(capture.output) if tb is not backward and tb.style is Style.RICH
    )
    assert shape.exception_line == SHAPE
    assert shape.user_frame is not None
    assert shape.user_frame.line == capture.marker_line("shape error")


@pytest.mark.parametrize("name", ["plain", "torchrun-tee", "rich", "tqdm", "ipython-session"])
def test_reading_in_small_chunks_finds_the_same(captures: Captures, name: str) -> None:
    capture = captures[name]
    data = capture.output
    scanner = TracebackScanner()
    found: list[Traceback] = []
    for at in range(0, len(data), 7):
        found += scanner.feed(data[at : at + 7])
    found += scanner.close()
    assert sorted(found, key=lambda tb: tb.start_line) == read_tracebacks(data)


def test_crlf_capture_reads_the_same(captures: Captures) -> None:
    capture = captures["torchrun-tee"]
    crlf = capture.output.replace(b"\n", b"\r\n")
    assert read_tracebacks(crlf) == read_tracebacks(capture.output)
