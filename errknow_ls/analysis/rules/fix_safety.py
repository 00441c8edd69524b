"""What a *safe* fix is, in one place; every rule asks here before it marks a fix safe.

``check --fix`` applies safe fixes without asking, so a safe fix must never change what trains.
A fix is safe only when all of these hold:

1. **It only changes where the graph is cut or rebuilt.** It may detach a value, store a value
   detached, sum losses into one backward, or re-run (recompute) a statement. Nothing else.
2. **What it re-runs is a pure forward computation, as the analysis resolved it**: an assignment
   whose every call the interpreter followed as a torch op, a tensor method (not an in-place one,
   whose name ends in ``_``) or a module's forward (:attr:`RuleContext.forward_calls`). Never a
   constructor of a module, an optimizer, a parameter, a scheduler or a data loader, never a call
   the analysis does not follow (``net_cls(width)``, a helper of another package), never a backward,
   a step or an append. A statement that is not shown to be forward-only is not re-run at all: the
   fix is not offered, not even as unsafe, since re-running a constructor inside the loop would
   leave the optimizer with parameters that no longer produce the loss.
3. **It never removes a ``retain_graph=True`` that a later backward could need**: only where the
   interpreter proved that no later backward reaches the retained graph, and no code it does not
   follow was handed it. Where a later backward does, removal is display-only; where unknown code
   may, nothing is reported.
4. **It keeps which tensors the optimizer updates**: it creates no parameter and rebuilds no module
   (2), and it detaches only values carried or stored between steps, never a tensor the current
   step's loss must send its gradient through.
5. **A detach respects the value's shape**: a tensor gets ``.detach()``; a list, tuple or dict of
   tensors gets every item detached in its own shape (:func:`detach_expression`); a value whose
   shape the analysis does not know gets no detach.

Anything else is unsafe (``--unsafe-fixes``) or display-only.
"""

from __future__ import annotations

import ast

from errknow_ls.analysis.events import RetainSite
from errknow_ls.analysis.rules.context import RuleContext
from errknow_ls.analysis.values import Opaque, Seq, Tensor, Value, tensors_in
from errknow_ls.core import Applicability

ASSIGNMENTS = (ast.Assign, ast.AnnAssign)
NOT_FORWARD = (ast.Lambda, ast.Yield, ast.YieldFrom, ast.Await, ast.NamedExpr)


def forward_only(ctx: RuleContext, stmt: ast.stmt) -> bool:
    """``stmt`` assigns the result of a pure forward computation to names or attributes (rule 2)."""
    if not isinstance(stmt, ASSIGNMENTS) or stmt.value is None:
        return False
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
    if not all(_plain_target(t) for t in targets):
        return False
    for node in ast.walk(stmt.value):
        if isinstance(node, NOT_FORWARD):
            return False
        if isinstance(node, ast.Call):
            if node not in ctx.forward_calls:
                return False
            if isinstance(node.func, ast.Attribute) and _in_place(node.func.attr):
                return False
    return True


def _plain_target(target: ast.expr) -> bool:
    if isinstance(target, ast.Tuple | ast.List):
        return all(_plain_target(t) for t in target.elts)
    if isinstance(target, ast.Starred):
        return _plain_target(target.value)
    return isinstance(target, ast.Name) or (
        isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
    )


def _in_place(attr: str) -> bool:
    """torch's convention: a tensor method whose name ends in one underscore changes its receiver."""
    return attr.endswith("_") and not attr.endswith("__")


def recompute(ctx: RuleContext, statements: list[ast.stmt], wanted: Applicability) -> Applicability | None:
    """How a fix that re-runs ``statements`` may be applied: ``wanted`` when every one of them is a
    pure forward computation, else not at all (rule 2)."""
    return wanted if statements and all(forward_only(ctx, s) for s in statements) else None


def retain_removal(site: RetainSite) -> Applicability | None:
    """Removing a ``retain_graph=True`` (rule 3)."""
    if site.unseen:
        return None
    return Applicability.DISPLAY_ONLY if site.reached_later else Applicability.SAFE


def detach_expression(text: str, value: Value, *, atomic: bool = True) -> str | None:
    """``text`` with every tensor of ``value`` detached, in ``value``'s own shape (rule 5): a tensor,
    a tuple, list or dict of them (nested), or None where the shape is not known."""
    if isinstance(value, Tensor):
        return f"{text}.detach()" if atomic else f"({text}).detach()"
    if not isinstance(value, Seq):
        return None
    if value.kind == "dict":
        inner = detach_expression("v", value.item)
        return f"{{k: {inner} for k, v in {_wrapped(text, atomic)}.items()}}" if inner else None
    if value.kind not in ("list", "tuple"):
        return None
    items = list(value.items or ())
    if items and any(_shape_of(i) != _shape_of(items[0]) for i in items):
        if value.kind != "tuple":
            return None
        # A fixed tuple of differently shaped parts (``(output, (h, c))``, ``(step, loss)``): each
        # part on its own; a part that holds no tensor (a number) stays as it is.
        parts = [_part(f"{_wrapped(text, atomic)}[{n}]", item) for n, item in enumerate(items)]
        if any(p is None for p in parts) or not any(tensors_in(i) for i in items):
            return None
        return f"({', '.join(p for p in parts if p)},)"
    item = items[0] if items else value.item
    inner = detach_expression("t", item) if not isinstance(item, Seq) else detach_expression("s", item)
    if inner is None:
        return None
    name = "s" if isinstance(item, Seq) else "t"
    each = f"{inner} for {name} in {_wrapped(text, atomic)}"
    return f"[{each}]" if value.kind == "list" else f"tuple({each})"


def _part(text: str, value: Value) -> str | None:
    if not isinstance(value, Tensor | Seq):
        return text if not isinstance(value, Opaque) else None
    return detach_expression(text, value)


def _wrapped(text: str, atomic: bool) -> str:
    return text if atomic else f"({text})"


def _shape_of(value: Value) -> str:
    if isinstance(value, Tensor):
        return "tensor"
    if isinstance(value, Seq):
        inner = ",".join(_shape_of(i) for i in value.items or (value.item,))
        return f"{value.kind}[{inner}]"
    return "other"
