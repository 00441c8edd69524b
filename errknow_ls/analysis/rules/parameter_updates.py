"""A module's parameters updated in place with grad on: what carries a graph into later forward
passes (a target network's soft update written outside ``torch.no_grad()``), and the fix that runs
the update under ``no_grad``."""

from __future__ import annotations

import ast
from dataclasses import dataclass

from errknow_ls.analysis.events import SecondPass
from errknow_ls.analysis.fixes import wrap_in_block
from errknow_ls.analysis.rules.common_fixes import imports_torch
from errknow_ls.analysis.rules.context import RuleContext
from errknow_ls.analysis.values import NNModule
from errknow_ls.core import Applicability, Fix


@dataclass(frozen=True, slots=True)
class ParameterUpdate:
    """A module the second pass reaches through its parameters, and the update that tied them to a
    graph."""

    module: str
    """How the loop spells the module (``q_target``)."""
    update: ast.stmt
    """The statement that updates the parameters in place (``p_target.copy_(...)``)."""


def parameter_updates(event: SecondPass, ctx: RuleContext) -> list[ParameterUpdate]:
    """The carried modules whose parameters carry a graph, each with its latest in-place update."""
    found = []
    for holder, value in event.carried.items():
        if not isinstance(holder, str) or not isinstance(value, NNModule) or not value.carries:
            continue
        updates = [
            stmt
            for node_id in sorted(value.carries, reverse=True)
            if (stmt := _in_place_update(ctx, ctx.nodes[node_id].site)) is not None
        ]
        if updates:
            found.append(ParameterUpdate(holder, updates[0]))
    return found


def _in_place_update(ctx: RuleContext, site: ast.AST) -> ast.stmt | None:
    """The statement ``t.<op>_(...)`` that ``site`` is the whole of."""
    if not (isinstance(site, ast.Call) and isinstance(site.func, ast.Attribute)):
        return None
    attr = site.func.attr
    if not attr.endswith("_") or attr.endswith("__"):
        return None
    stmt = ctx.statement_of(site)
    return stmt if isinstance(stmt, ast.Expr) and stmt.value is site else None


def update_without_grad(ctx: RuleContext, updates: list[ParameterUpdate]) -> Fix | None:
    """Run the update under ``torch.no_grad()``: the loop over the parameters when that loop does
    nothing else, else the statement itself. Unsafe: the gradient the loss sent through the
    update into the parameters it reads (the online network's) stops, which changes what they
    learn from."""
    if len(updates) != 1 or not imports_torch(ctx):
        return None
    update = updates[0]
    stmt: ast.stmt = update.update
    loop = ctx.parents.get(stmt)
    if isinstance(loop, ast.For) and not loop.orelse and all(_is_in_place_call(s) for s in loop.body):
        stmt = loop
    edit = wrap_in_block(ctx.source, stmt, "with torch.no_grad():")
    if edit is None:
        return None
    return Fix(
        f"Update `{update.module}`'s parameters under `torch.no_grad()`",
        Applicability.UNSAFE,
        (edit,),
        workaround=3,
    )


def _is_in_place_call(stmt: ast.stmt) -> bool:
    return (
        isinstance(stmt, ast.Expr)
        and isinstance(stmt.value, ast.Call)
        and isinstance(stmt.value.func, ast.Attribute)
        and stmt.value.func.attr.endswith("_")
        and not stmt.value.func.attr.endswith("__")
    )
