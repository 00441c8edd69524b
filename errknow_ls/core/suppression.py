"""The suppression comment, read (by the checker) and written (by "disable for this line").

``# errknow: ignore[EK001, double-backward]`` silences the codes or rule names it lists on its
line, ``# errknow: ignore`` (or ``ignore[]``) every finding there; flake8's ``# noqa: EK001`` and
bare ``# noqa`` are read the same way. Case does not matter.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_COMMENT = re.compile(
    r"#\s*(?:errknow:\s*ignore(?:\[(?P<codes>[^\]]*)\])?|noqa(?::\s*(?P<noqa>[A-Z]+[0-9]+(?:[\s,]+[A-Z]+[0-9]+)*))?)",
    re.IGNORECASE,
)
_SEPARATORS = re.compile(r"[\s,]+")


def suppressed(line: str, code: str, name: str) -> bool:
    """A comment on ``line`` silences the finding with this code and rule name."""
    if "#" not in line:
        return False
    for match in _COMMENT.finditer(line):
        listed = match.group("codes") or match.group("noqa")
        if not listed:
            return True
        codes = {c for c in _SEPARATORS.split(listed) if c}
        if code in codes or name in codes:
            return True
    return False


@dataclass(frozen=True, slots=True)
class LineEdit:
    """Replace ``line[start:end]`` (code points) with ``content``."""

    start: int
    end: int
    content: str


def add_code(line: str, code: str) -> LineEdit:
    """The edit that adds ``code`` to the line's ``# errknow: ignore[...]``, or appends one."""
    for match in _COMMENT.finditer(line):
        if match.group("codes") is not None:
            listed = match.group("codes").strip()
            content = f"{listed}, {code}" if listed else code
            return LineEdit(match.start("codes"), match.end("codes"), content)
    return LineEdit(len(line), len(line), f"  # errknow: ignore[{code}]")
