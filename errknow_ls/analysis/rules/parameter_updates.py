"""What makes a module's parameters carry a graph into later forward passes, and the fixes: an
update in place with grad on (a target network's soft update written outside ``torch.no_grad()``:
run it under ``no_grad``), and a parametrized tensor kept by a ``parametrize.cached()`` context
around the loop (enter the context on every iteration instead)."""

from __future__ import annotations

import ast
from dataclasses import dataclass

from errknow_ls.analysis.events import SecondPass
from errknow_ls.analysis.fixes import wrap_in_block
from errknow_ls.analysis.rules.common_fixes import backward_after, enclosing_statements, imports_torch
from errknow_ls.analysis.rules.context import RuleContext
from errknow_ls.analysis.rules.fix_safety import update_between_steps
from errknow_ls.analysis.state import Holder
from errknow_ls.analysis.values import NNModule, Value
from errknow_ls.core import Applicability, Edit, Fix, Position, Span


@dataclass(frozen=True, slots=True)
class ParameterUpdate:
    """A module the second pass reaches through its parameters, and the update that tied them to a
    graph."""

    module: str
    """How the loop spells the module (``q_target``)."""
    update: ast.stmt
    """The statement that updates the parameters in place (``p_target.copy_(...)``)."""
    carried: NNModule
    """The module as the second pass reaches it."""
    entering: Value | None
    """The module as it entered the loop (None: not known)."""


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
            found.append(ParameterUpdate(holder, updates[0], value, event.entry.get(holder)))
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


def update_without_grad(ctx: RuleContext, event: SecondPass, updates: list[ParameterUpdate]) -> Fix | None:
    """Run the update under ``torch.no_grad()``: the loop over the parameters when that loop does
    nothing else, else the statement itself. Safe only as a cut between training steps
    (:func:`update_between_steps`); unsafe otherwise: the gradient the loss sends through the
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
        update_between_steps(
            ctx,
            event,
            stmt,
            update.carried,
            update.entering,
            last=not backward_after(ctx, stmt, event.loop.node if event.loop is not None else None),
        ),
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


@dataclass(frozen=True, slots=True)
class CachedWeight:
    """A parametrized tensor that a ``parametrize.cached()`` context around the loop keeps from one
    iteration to the next."""

    holder: Holder
    tensor: str
    """The tensor's name (``weight``)."""
    context: ast.With
    """The outermost ``with parametrize.cached():`` around the loop."""


def cached_weights(event: SecondPass, ctx: RuleContext) -> list[CachedWeight]:
    """The carried modules whose parametrized tensor a cached context around the loop keeps."""
    loop = event.loop.node if event.loop is not None else None
    outer = enclosing_statements(ctx, loop) if isinstance(loop, ast.stmt) else []
    context = next(
        (w for w in reversed(outer) if isinstance(w, ast.With) and w in ctx.cached_contexts),
        None,
    )
    if context is None:
        return []
    return [
        CachedWeight(holder, value.parametrization[0], context)
        for holder, value in event.carried.items()
        if isinstance(value, NNModule) and value.parametrization is not None and value.carries
    ]


def cache_each_iteration(ctx: RuleContext, cached: list[CachedWeight], loop: ast.stmt | None) -> Fix | None:
    """``with parametrize.cached(): for ...: body`` -> ``for ...: with parametrize.cached(): body``:
    each iteration computes the parametrized tensors once for itself. Safe: only where the graph
    is rebuilt changes (once per iteration, not once per run); the time steps of one iteration
    still share one tensor, and nothing else runs again."""
    if not cached or not isinstance(loop, ast.For | ast.While) or loop.orelse:
        return None
    context = cached[0].context
    if context.body != [loop] or len(context.items) != 1 or not ctx.source.starts_line(context):
        return None
    edit = _swap_headers(ctx, context, loop)
    if edit is None:
        return None
    return Fix(
        "Enter `parametrize.cached()` on every iteration, around the loop's body",
        Applicability.SAFE,
        (edit,),
        workaround=2,
    )


def _swap_headers(ctx: RuleContext, context: ast.With, loop: ast.For | ast.While) -> Edit | None:
    source = ctx.source
    first_body = loop.body[0].lineno
    if loop.end_lineno is None or context.end_lineno != loop.end_lineno or first_body <= loop.lineno:
        return None
    if loop.lineno != context.lineno + 1 or not source.starts_line(loop.body[0]):
        return None  # the header of each on a line of its own, the body below
    outer = source.indent_of(context.lineno)
    step = len(source.indent_of(loop.lineno)) - len(outer)
    if step <= 0:
        return None
    loop_header = [source.line(n)[step:] for n in range(loop.lineno, first_body)]
    with_header = source.indent_of(loop.lineno) + source.line(context.lineno).strip()
    body = [source.line(n) for n in range(first_body, loop.end_lineno + 1)]
    text = "".join(f"{row}\n" for row in [*loop_header, with_header, *body])
    end = Position(loop.end_lineno, 0)
    if loop.end_lineno >= len(source.lines) and not source.text.endswith(("\n", "\r")):
        return None
    return Edit(Span(Position(context.lineno - 1, 0), end), text)
