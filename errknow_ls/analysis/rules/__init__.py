"""The rules, one per file; each turns the interpreter's events of its kind into findings."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType

from errknow_ls.analysis.events import SecondPass
from errknow_ls.analysis.rules import (
    carried_graph_backward,
    double_backward,
    pre_loop_graph_backward,
    retain_graph_in_loop,
    shared_graph_backward,
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


def documentation(code: str) -> str:
    """The rule's own docs (its module docstring), as hover and ``--explain`` show them."""
    for module in RULE_MODULES:
        if code == module.CODE:
            return (module.__doc__ or "").strip()
    return ""
