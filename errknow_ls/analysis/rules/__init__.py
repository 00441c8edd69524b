"""The rules, one per file; each turns the interpreter's events of its kind into findings."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from types import ModuleType

from errknow_ls.analysis.events import SecondPass
from errknow_ls.analysis.rules import (
    carried_graph_backward,
    double_backward,
    pre_loop_graph_backward,
    retain_graph_in_loop,
    shared_graph_backward,
    zh,
)
from errknow_ls.analysis.rules.context import RuleContext
from errknow_ls.core import Finding

RULE_MODULES: tuple[ModuleType, ...] = (
    double_backward,
    pre_loop_graph_backward,
    carried_graph_backward,
    shared_graph_backward,
    retain_graph_in_loop,
)
SECOND_PASS_BUILDERS: dict[str, Callable[[SecondPass, RuleContext], Finding]] = {
    double_backward.CODE: double_backward.build,
    pre_loop_graph_backward.CODE: pre_loop_graph_backward.build,
    carried_graph_backward.CODE: carried_graph_backward.build,
    shared_graph_backward.CODE: shared_graph_backward.build,
}


def documentation(code: str, lang: str = "en") -> str:
    """The rule's own docs (its module docstring, or its Chinese in ``zh``), as hover and
    ``--explain`` show them."""
    if lang == "zh" and code in zh.DOCUMENTATION:
        return zh.DOCUMENTATION[code]
    for module in RULE_MODULES:
        if code == module.CODE:
            return (module.__doc__ or "").strip()
    return ""


_WHY = re.compile(r"^### (?:Why is this bad\?|为什么有问题？)\n(.*?)(?=^### |\Z)", re.M | re.S)  # noqa: RUF001


def why(code: str, lang: str = "en") -> str:
    """Why the rule's pattern raises: its documentation's *Why is this bad?* section, which explains
    this pattern (the record's root cause speaks of the error in general)."""
    found = _WHY.search(documentation(code, lang))
    if not found:
        return ""
    lines = [line.strip() for line in found[1].strip().splitlines()]
    return ("" if lang == "zh" else " ").join(lines)  # Chinese wraps lines without a space


def documentation_without_why(code: str, lang: str = "en") -> str:
    """The documentation below a hover that has already said why."""
    return _WHY.sub("", documentation(code, lang)).strip()


def localized(finding: Finding, lang: str) -> Finding:
    """The finding as a person reading ``lang`` sees it: message, related places and fix titles."""
    if lang != "zh":
        return finding
    say = zh.MESSAGES.translate
    return dataclasses.replace(
        finding,
        message=say(finding.message),
        related=tuple(dataclasses.replace(r, message=say(r.message)) for r in finding.related),
        fixes=tuple(dataclasses.replace(f, title=say(f.title)) for f in finding.fixes),
    )
