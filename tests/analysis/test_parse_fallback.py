"""Code that does not parse is parsed per top-level statement: line numbers stay Python's own."""

from __future__ import annotations

import pytest

from errknow_ls.analysis import check_source

# Line breaks for str.splitlines() but not for Python: inside a line that does not parse.
NOT_PYTHON_BREAKS = ["\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"]


@pytest.mark.parametrize("character", NOT_PYTHON_BREAKS, ids=lambda c: f"U+{ord(c):04X}")
def test_a_broken_line_with_a_unicode_break_keeps_the_findings_on_their_lines(character: str) -> None:
    source = (
        f"import torch\nx = 1{character}y = 2\ndef train():\n    w = torch.ones(2, requires_grad=True)\n"
        "    loss = (w * w).sum()\n    loss.backward()\n    loss.backward()\n"
    )
    findings = check_source(source).findings
    assert [(f.code, f.span.start.line) for f in findings] == [("EK001", 6)]
