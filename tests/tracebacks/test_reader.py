"""The reader on the shapes real captures take: line endings, colour and cursor codes, carriage
returns, Windows paths, per-line prefixes, interleaved processes, cut-off and garbage input."""

from __future__ import annotations

import json
import random
import tracemalloc

import pytest

from errknow_ls.kb import KnowledgeBase
from errknow_ls.tracebacks import (
    Frame,
    NotebookError,
    Style,
    Traceback,
    TracebackScanner,
    is_user_file,
    match_traceback,
    read_notebook,
    read_tracebacks,
)
from errknow_ls.tracebacks.scanner import MAX_LINE_BYTES
from tests.support import SHIPPED_ID

MESSAGE = (
    "Trying to backward through the graph a second time (or directly access saved tensors after they "
    "have already been freed). Saved intermediate values of the graph are freed when you call .backward() "
    "or autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second "
    "time or if you need to access saved tensors after calling backward."
)
TORCH = "/opt/conda/lib/python3.11/site-packages/torch"
PLAIN = f"""\
Traceback (most recent call last):
  File "/home/user/project/train.py", line 40, in <module>
    main()
  File "/home/user/project/train.py", line 33, in main
    loss.backward()
  File "{TORCH}/_tensor.py", line 626, in backward
    torch.autograd.backward(
  File "{TORCH}/autograd/graph.py", line 823, in _engine_run_backward
    return Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass
           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
RuntimeError: {MESSAGE}
"""
USER = Frame("/home/user/project/train.py", 33, "main")


def one(text: str | bytes) -> Traceback:
    found = read_tracebacks(text)
    assert len(found) == 1, found
    return found[0]


def test_plain_traceback() -> None:
    tb = one("epoch 1 loss 0.3\n" + PLAIN + "\ndone\n")
    assert (tb.exception, tb.message, tb.user_frame) == ("RuntimeError", MESSAGE, USER)
    assert (tb.start_line, tb.message_line, tb.end_line) == (1, 11, 11)
    assert [f.function for f in tb.frames] == ["<module>", "main", "backward", "_engine_run_backward"]


def test_crlf_line_endings() -> None:
    assert read_tracebacks(PLAIN.replace("\n", "\r\n")) == read_tracebacks(PLAIN)


def test_colour_and_cursor_codes() -> None:
    coloured = (
        "\x1b[2K\x1b[1A\x1b[35mTraceback (most recent call last):\x1b[0m\n"
        '  File \x1b[35m"/home/user/project/train.py"\x1b[0m, '
        "line \x1b[35m33\x1b[0m, in \x1b[35mmain\x1b[0m\n"
        "    loss.backward()\n"
        "\x1b[1;35mRuntimeError\x1b[0m: \x1b[35mboom\x1b[0m\x1b]8;;file:///x\x1b\\\n"
    )
    tb = one(coloured)
    assert (tb.exception, tb.message, tb.user_frame, tb.message_line) == ("RuntimeError", "boom", USER, 3)


def test_a_header_coloured_word_by_word_among_plain_lines() -> None:
    """Only the header line has escape codes, and they split ``Traceback`` from the rest: found
    whether it arrives in one chunk or in chunks that leave the plain lines free of escapes."""
    header = "\x1b[1;31mTraceback\x1b[0m \x1b[2m(most recent call last)\x1b[0m:\n"
    text = ("step 1 loss 0.3\n" * 5000 + header + PLAIN.split("\n", 1)[1]).encode()
    tb = one(text)
    assert (tb.start_line, tb.message, tb.user_frame) == (5000, MESSAGE, USER)
    for size in (4096, 997, 80_000):
        scanner = TracebackScanner()
        found = [t for at in range(0, len(text), size) for t in scanner.feed(text[at : at + size])]
        assert [*found, *scanner.close()] == [tb]


def test_header_after_a_progress_bar_on_the_same_line() -> None:
    bar = "\repoch 0:  40%|████      | 4/10 [00:01<00:01]\repoch 0:  50%|█████     | 5/10 [00:01<00:01]"
    tb = one("step 1\n" + bar + PLAIN)
    assert (tb.start_line, tb.message_line, tb.user_frame) == (1, 11, USER)


def test_progress_bar_and_log_record_end_a_message() -> None:
    record = "2024-01-01 12:00:00,123 INFO trainer: step 6\n"
    bar = "\repoch 0:  60%|██████    | 6/10 [00:01<00:01]\n"
    for after in (record, bar, "\n", "Traceback (most recent call last):\n"):
        tb = one(PLAIN + after + "more output\n")
        assert tb.message == MESSAGE


def test_message_continuation_lines_are_kept() -> None:
    text = "Traceback (most recent call last):\n  File 'x'\nValueError: first\n  second\nthird\n\nafter\n"
    text = text.replace("'x'", '"/p/x.py", line 1, in f')
    tb = one(text)
    assert tb.message == "first\n  second\nthird"
    assert tb.end_line == 4


def test_a_runaway_message_is_cut() -> None:
    tb = one(PLAIN + "".join(f"output line {i}\n" for i in range(10_000)))
    assert len(tb.message.splitlines()) == 50


def test_windows_paths_in_every_style() -> None:
    python = (
        "Traceback (most recent call last):\n"
        '  File "C:\\Users\\me\\project\\train.py", line 33, in main\n'
        "    loss.backward()\n"
        '  File "C:\\Users\\me\\venv\\Lib\\site-packages\\torch\\_tensor.py", line 626, in backward\n'
        "    torch.autograd.backward(\n"
        f"RuntimeError: {MESSAGE}\n"
    )
    ipython = (
        "RuntimeError                              Traceback (most recent call last)\n"
        "File C:\\Users\\me\\project\\train.py:33, in main()\n"
        "---> 33 loss.backward()\n\n"
        "File C:\\Users\\me\\venv\\Lib\\site-packages\\torch\\_tensor.py:626, in Tensor.backward(self)\n"
        "--> 626 torch.autograd.backward(\n\n"
        f"RuntimeError: {MESSAGE}\n"
    )
    rich = (
        "╭──────── Traceback (most recent call last) ────────╮\n"
        "│ C:\\Users\\me\\project\\train.py:33 in main          │\n"
        "│                                                   │\n"
        "│ ❱ 33 │   loss.backward()                          │\n"
        "╰───────────────────────────────────────────────────╯\n"
        f"RuntimeError: {MESSAGE}\n"
    )
    for text, style in ((python, Style.PYTHON), (ipython, Style.IPYTHON), (rich, Style.RICH)):
        tb = one(text)
        assert tb.style is style
        assert tb.user_frame == Frame("C:\\Users\\me\\project\\train.py", 33, "main")


@pytest.mark.parametrize(
    ("prefix", "stream"),
    [
        ("[rank0]: ", "rank0"),
        ("[default1]:[rank1]: ", "default1:rank1"),
        ("0: ", "task0"),
        ("2024-01-01T12:00:00.1234567Z ", ""),
        ("[2024-01-01 12:00:00,123] ", ""),
    ],
)
def test_line_prefixes(prefix: str, stream: str) -> None:
    text = "".join(prefix + line + "\n" for line in PLAIN.splitlines())
    tb = one(text)
    assert (tb.stream, tb.message, tb.user_frame, tb.message_line) == (stream, MESSAGE, USER, 10)


def test_interleaved_processes_are_read_apart() -> None:
    lines = PLAIN.splitlines()
    other = PLAIN.replace("line 33", "line 34").splitlines()
    mixed = []
    for mine, theirs in zip(lines, other, strict=True):
        mixed += [f"[rank0]: {mine}", "launcher: waiting", f"[rank1]: {theirs}"]
    found = read_tracebacks("\n".join(mixed) + "\n")
    assert [(tb.stream, tb.user_frame.line if tb.user_frame else None) for tb in found] == [
        ("rank0", 33),
        ("rank1", 34),
    ]
    assert all(tb.message == MESSAGE and len(tb.frames) == 4 for tb in found)


def test_logging_exception_after_a_record_line() -> None:
    text = "2024-01-01 12:00:00,123 ERROR trainer: step 5 failed\n" + PLAIN
    tb = one(text)
    assert (tb.start_line, tb.message) == (1, MESSAGE)


def test_traceback_cut_off_at_the_end_of_input() -> None:
    lines = PLAIN.splitlines(keepends=True)
    assert read_tracebacks("".join(lines[:-1])) == []  # frames, but no message line: nothing to say
    tb = one("".join(lines)[:-1])  # the last line without its newline still counts
    assert tb.message == MESSAGE


def test_pending_shows_an_unfinished_traceback_without_ending_it() -> None:
    scanner = TracebackScanner()
    assert scanner.feed(PLAIN) == []  # its message might go on
    (pending,) = scanner.pending()
    assert pending.message == MESSAGE
    (done,) = scanner.feed("\nnext run\n")
    assert done == pending
    assert scanner.close() == []


def test_garbage_never_raises() -> None:
    rng = random.Random(5)
    noise = bytes(rng.randrange(256) for _ in range(200_000))
    header = b"Traceback (most recent call last):\n"
    assert read_tracebacks(noise) == []
    assert read_tracebacks(noise[:1000] + header + noise[1000:]) == []
    assert read_tracebacks(header * 1000) == []
    assert read_tracebacks("│ ╭ (most recent call last) ╰\n" * 50) == []
    assert read_tracebacks("") == []


def test_bounded_memory_for_a_line_that_never_ends() -> None:
    bar = b"\repoch 0:  50%|#####     | 5/10 [00:01<00:01]" * 1000
    scanner = TracebackScanner()
    tracemalloc.start()
    try:
        for _ in range(200):  # about 9 MB without a newline
            scanner.feed(bar)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 4 * MAX_LINE_BYTES
    (tb,) = scanner.feed(PLAIN.encode() + b"\n") + scanner.close()
    assert (tb.start_line, tb.user_frame) == (0, USER)


def test_old_ipython_frames_take_their_line_from_the_arrow() -> None:
    text = (
        "---------------------------------------------------------------------------\n"
        "RuntimeError                              Traceback (most recent call last)\n"
        "<ipython-input-3-6b1f3a2c9d4e> in <module>\n"
        "      1 model = Net()\n"
        "----> 2 train(model)\n\n"
        "~/project/train.py in train(model)\n"
        "     32     loss.backward()\n"
        "---> 33     loss.backward()\n\n"
        f"{TORCH}/tensor.py in backward(self, gradient, retain_graph, create_graph)\n"
        "--> 221         torch.autograd.backward(self, gradient, retain_graph, create_graph)\n\n"
        f"RuntimeError: {MESSAGE}\n"
    )
    tb = one(text)
    assert tb.frames[:2] == (
        Frame("<ipython-input-3-6b1f3a2c9d4e>", 2, "<module>", 3),
        Frame("~/project/train.py", 33, "train"),
    )
    assert tb.user_frame == tb.frames[1]


def test_rich_location_wrapped_at_a_space() -> None:
    text = (
        "╭─────── Traceback (most recent call last) ───────╮\n"
        "│ /home/user/project/train.py:33 in               │\n"
        "│ train_one_epoch_with_accumulation               │\n"
        "│                                                 │\n"
        "│ ❱ 33 │   loss.backward()                        │\n"
        "╰─────────────────────────────────────────────────╯\n"
        "RuntimeError: Trying to backward through the graph\n"
        "a second time (or directly access saved tensors\n"
        "after they have already been freed).\n"
    )
    tb = one(text)
    assert tb.user_frame == Frame("/home/user/project/train.py", 33, "train_one_epoch_with_accumulation")
    kb = KnowledgeBase.load()
    match = match_traceback(kb, tb)
    assert match.record is not None
    assert match.record.id == SHIPPED_ID


def test_chained_markers_only_join_nearby_tracebacks() -> None:
    second = PLAIN.replace("RuntimeError: " + MESSAGE, "ValueError: wrapped")
    chained = PLAIN + "\nThe above exception was the direct cause of the following exception:\n\n" + second
    first, then = read_tracebacks(chained)
    assert (first.group, then.group, then.chain) == (0, 0, "cause")
    apart = PLAIN + "".join(f"log {i}\n" for i in range(20)) + second
    first, then = read_tracebacks(apart)
    assert (first.group, then.group, then.chain) == (0, 1, None)


@pytest.mark.parametrize(
    ("path", "user"),
    [
        ("/home/user/project/train.py", True),
        ("C:\\Users\\me\\project\\train.py", True),
        ("Cell In[3]", True),
        ("<ipython-input-3-6b1f3a2c9d4e>", True),
        ("~/project/train.py", True),
        (f"{TORCH}/_tensor.py", False),
        ("/usr/lib/python3/dist-packages/numpy/core.py", False),
        ("/usr/lib/python3.11/threading.py", False),
        ("/root/.pyenv/versions/3.11.7/lib/python3.11/runpy.py", False),
        ("C:\\Python311\\Lib\\runpy.py", False),
        ("<frozen runpy>", False),
        ("<string>", False),
        ("<stdin>", False),
        ("threading.py", False),
        ("train.py", True),
    ],
)
def test_user_files(path: str, user: bool) -> None:
    assert is_user_file(path) is user


def test_no_user_frame_when_every_frame_is_a_library() -> None:
    text = PLAIN.replace("/home/user/project/train.py", f"{TORCH}/nn/modules/module.py")
    assert one(text).user_frame is None


def test_exception_without_message() -> None:
    text = 'Traceback (most recent call last):\n  File "/p/x.py", line 3, in <module>\n    f()\n'
    text += "KeyboardInterrupt\n"
    tb = one(text)
    assert (tb.exception, tb.message, tb.exception_line) == ("KeyboardInterrupt", "", "KeyboardInterrupt")


EVALUE = "invalid syntax (1234.py, line 1)"


def test_notebook_problems() -> None:
    with pytest.raises(NotebookError):
        read_notebook("{not json")
    with pytest.raises(NotebookError):
        read_notebook('{"nbformat": 3, "worksheets": []}')
    syntax = {
        "cells": [
            {"cell_type": "code", "outputs": []},
            {
                "cell_type": "code",
                "outputs": [
                    {
                        "output_type": "error",
                        "ename": "SyntaxError",
                        "evalue": EVALUE,
                        "traceback": [
                            "  \x1b[36mCell In[2], line 1\x1b[39m",
                            "    x = (",
                            "SyntaxError: invalid",
                        ],
                    }
                ],
            },
        ]
    }
    (tb,) = read_notebook(json.dumps(syntax))
    assert (tb.cell, tb.exception, tb.message, tb.frames) == (1, "SyntaxError", EVALUE, ())
