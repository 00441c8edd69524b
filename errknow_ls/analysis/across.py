"""A backward in another module of the project, reached through a call in the checked text, told in
the checked text's terms, so that its rule words it, relates it and fixes it as it would a backward
written here.

The call here stands for the backward it runs (``step(loss)`` for ``def step(loss):
loss.backward()``), and the argument the backward's tensor is bound to stands for that tensor. This
holds only where everything else the rule reads lies here too: the loop, the statements that built
the graph, what the loop carries. Anywhere else the finding says where the backward is and offers
no fix. A fix that would edit the call itself (it stands for a backward it is not) is dropped.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from dataclasses import replace

from errknow_ls.analysis.events import SecondPass
from errknow_ls.analysis.rules.context import RuleContext
from errknow_ls.analysis.state import Entry
from errknow_ls.analysis.values import nodes_of
from errknow_ls.core import Finding, Fix, Span


class Here:
    """Which syntax nodes are the checked text's (the others are another module's)."""

    def __init__(self, module: ast.Module) -> None:
        self._module = module
        self._ids: set[int] | None = None

    def holds(self, nodes: Iterable[ast.AST | None]) -> bool:
        if self._ids is None:
            self._ids = {id(node) for node in ast.walk(self._module)}
        return all(node is None or id(node) in self._ids for node in nodes)


def localized(event: SecondPass, ctx: RuleContext, here: Here) -> tuple[SecondPass, list[ast.Call]] | None:
    """``event`` with the calls here in place of the backwards they run, and those calls; None
    where the rule would read anything of the other module."""
    stands_in: list[ast.Call] = []
    site, receiver, report, frame = event.site, event.receiver, event.report, event.frame
    if event.module is not None:
        if event.entered is None:
            return None
        site, receiver = event.entered.call, event.entered.receiver
        stands_in.append(site)
        if not here.holds([report]):
            report, frame = site, event.entered.frame
    free = event.free
    if free.module is not None:
        if free.entered is None:
            return None
        if event.entered is not None and event.entered.run == free.entered.run:
            return None  # one run of the call backwards twice: the bug lies whole in the other module
        free = replace(
            free, site=free.entered.call, label=_label(free.entered, ctx), module=None, entered=None
        )
        stands_in.append(free.site)
    told = replace(
        event,
        site=site,
        report=report,
        receiver=receiver,
        frame=frame,
        free=free,
        module=None,
        local=None,
        entered=None,
    )
    return (told, stands_in) if here.holds(_read_by_rules(told, ctx)) else None


def _label(entered: Entry, ctx: RuleContext) -> str:
    return ctx.text(entered.receiver) if entered.receiver is not None else "tensor"


def _read_by_rules(event: SecondPass, ctx: RuleContext) -> list[ast.AST | None]:
    """Every syntax node a rule may read from ``event``: its sites, its loop, and the statements
    that made each graph node it reaches or carries."""
    found: list[ast.AST | None] = [event.site, event.report, event.receiver, event.free.site]
    if event.loop is not None:
        found += [event.loop.node, event.loop.method, event.loop.func]
    graph = set(event.reached | event.conflict)
    for value in (*event.carried.values(), *event.entry.values()):
        graph |= nodes_of(value)
    for node_id in graph:
        node = ctx.nodes[node_id]
        found += [node.site, node.stmt, *(stmt for _, stmt in node.stmts)]
    return found


def told_here(finding: Finding, stands_in: list[ast.Call], ctx: RuleContext) -> Finding:
    """``finding`` without the fixes that would edit a call standing in for a backward (adding
    ``retain_graph`` to it, replacing it by a sum's backward): inserting a statement before it or
    after it is fine."""
    calls = [ctx.source.span(call) for call in stands_in]
    kept = tuple(f for f in finding.fixes if not any(_inside(f, span) for span in calls))
    return replace(finding, fixes=kept)


def _inside(fix: Fix, call: Span) -> bool:
    for edit in fix.edits:
        start, end = edit.span.start, edit.span.end
        if start == end:
            if call.start < start < call.end:
                return True
        elif start < call.end and call.start < end:
            return True
    return False
