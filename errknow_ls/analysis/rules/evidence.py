"""The evidence for each kind of fix: the programs of the suite it fixed (``tests/analysis/fixes``:
each input, fixed with ``check --fix --unsafe-fixes``, gives its golden output, which trains like its
hand-written reference). A fix's kind is its title's template in ``zh.MESSAGES``; the table is
generated from the golden pairs (``python -m tests.analysis.fix_evidence``) and kept current by
``tests/analysis/test_fixes_golden.py``."""

from __future__ import annotations

from errknow_ls.analysis.rules import zh
from errknow_ls.analysis.rules.fix_evidence import PROVEN


def kind_of(title: str) -> str | None:
    """The template a fix's title (in English or Chinese) is made from."""
    return zh.MESSAGES.template_of(title)


def proven_by(title: str) -> int:
    """How many programs of the suite a fix of this kind turned into ones that train right."""
    kind = kind_of(title)
    return len(PROVEN.get(kind, ())) if kind is not None else 0
