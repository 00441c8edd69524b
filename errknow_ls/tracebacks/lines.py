"""One physical line of captured output, cleaned: colour and cursor codes, carriage-return overwrites
and per-line prefixes removed, the process it came from and whether it starts a log record noted.

A cleaned line keeps its index, so everything found on it maps back to the original input.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

HEADER_TEXT = "(most recent call last)"
"""In every traceback header (Python, IPython, rich), and never split by colour codes."""

_ANSI = re.compile(
    r"""\x1b(?:
        \[[0-?]*[ -/]*[@-~]                 # CSI: colours, cursor moves, erase line
      | \][^\x07\x1b]*(?:\x07|\x1b\\)?      # OSC: titles, hyperlinks
      | [PX^_][^\x1b]*\x1b\\                # DCS, SOS, PM, APC strings
      | [@-Z\\-_]                           # two-character escapes
    )""",
    re.VERBOSE,
)
MAX_PREFIXES = 8
"""Launcher prefixes kept in a line's stream name (a wrapped launcher adds one per level, not thousands)."""
_OTHER_CONTROLS = str.maketrans("", "", "\x00\x07\x08\x0b\x0c\x0e\x0f")

# Prefixes that launchers and log collectors put on every line.
_RANK = r"\[(?:rank|default)\d+\]:\s?"  # torchrun: [rank0]: , [default1]:
_SRUN = r"\d{1,5}: "  # srun --label: "0: "
_STAMP = r"\[?\d{4}-\d\d-\d\d[T _]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?\]?\s?"  # ISO, logging, CI
_PREFIX = re.compile(rf"(?:(?P<rank>{_RANK})|(?P<srun>{_SRUN})|(?P<stamp>{_STAMP}))")
_LEVEL = r"(?:DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL|FATAL|NOTICE|TRACE|SUCCESS)"
_RECORD_AFTER_STAMP = re.compile(rf"^[^\n]{{0,60}}?\b{_LEVEL}\b")
_RECORD_PLAIN = re.compile(
    rf"""^(?:{_LEVEL}:[\w.<>-]*:                                # logging's default: ERROR:root:...
        | [IWEF]\d{{4}}\ \d\d:\d\d:\d\d\.\d+\s+\d+\s+\S+:\d+\]  # glog / c10 / torch.distributed
        | \[{_LEVEL}\] | {_LEVEL}\s*\| | {_LEVEL}\s+-\s         # [ERROR] ..., ERROR | ..., ERROR - ...
    )""",
    re.VERBOSE,
)


@dataclass(frozen=True, slots=True)
class Line:
    index: int
    text: str
    stream: str = ""
    record: bool = False
    """The line starts a log record (a timestamp and a level, a glog header): it ends any message."""
    progress: bool = False
    """The line was overwritten by carriage returns (a progress bar): it ends any message."""

    @property
    def blank(self) -> bool:
        return not self.text.strip()


def strip_ansi(text: str) -> str:
    if "\x1b" in text:
        text = _ANSI.sub("", text)
    return text.translate(_OTHER_CONTROLS)


def _strip_prefixes(text: str, streams: list[str]) -> tuple[str, bool]:
    """``text`` without its leading rank and timestamp prefixes; rank names go to ``streams``."""
    stamped = False
    at = 0  # matched in place: slicing after every prefix made a line of prefixes quadratic
    while True:
        found = _PREFIX.match(text, at)
        if found is None or found.end() == at:
            return text[at:], stamped
        if found.group("rank"):
            if len(streams) < MAX_PREFIXES:
                streams.append(found.group("rank").strip()[1:-2])
        elif found.group("srun"):
            if len(streams) < MAX_PREFIXES:
                streams.append(f"task{found.group('srun')[:-2]}")
        else:
            stamped = True
        at = found.end()


def _visible_segment(text: str) -> str:
    """What a terminal shows of a line that carriage returns overwrote: the segment holding a
    traceback header if there is one (a header printed after a progress bar counts), else the last."""
    segments = text.split("\r")
    for segment in reversed(segments):
        if HEADER_TEXT in segment:
            return segment
    for segment in reversed(segments):
        if segment.strip():
            return segment
    return ""


def clean_line(index: int, raw: str) -> Line:
    """Clean one physical line (without its ``\\n``)."""
    text = strip_ansi(raw)
    if text.endswith("\r"):
        text = text.rstrip("\r")
    streams: list[str] = []
    text, stamped = _strip_prefixes(text, streams)
    progress = "\r" in text
    if progress:
        text, more_stamped = _strip_prefixes(_visible_segment(text), streams)
        stamped = stamped or more_stamped
    record = bool(
        (stamped and _RECORD_AFTER_STAMP.match(text))
        or ((text[:1].isupper() or text[:1] == "[") and _RECORD_PLAIN.match(text))
    )
    return Line(index, text.rstrip(), ":".join(streams), record, progress)
