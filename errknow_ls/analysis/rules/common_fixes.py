"""Fixes more than one rule offers: recompute the forward pass, drop a duplicate backward, retain."""

from __future__ import annotations

import ast
import bisect

from errknow_ls.analysis.events import SecondPass
from errknow_ls.analysis.fixes import (
    code_of_statement,
    delete_statement,
    insert_keyword,
    insert_lines_before,
    replace,
)
from errknow_ls.analysis.ownership import upstream_origins
from errknow_ls.analysis.rules.context import RuleContext, Summary, holds, names_loaded
from errknow_ls.analysis.rules.fix_safety import (
    clear_between_removed,
    in_place,
    read_backward_grads,
    recompute,
    recompute_as_retained,
)
from errknow_ls.analysis.source import call_name, called_names
from errknow_ls.core import Applicability, Edit, Fix, Position, Span

STEPPING = frozenset({"step", "manual_step"})


def statements_between(ctx: RuleContext, first: ast.AST, second: ast.AST) -> list[ast.stmt]:
    """Statements of the function strictly after ``first``'s statement and before ``second``'s."""
    start, end = ctx.statement_of(first), ctx.statement_of(second)
    if start is None or end is None:
        return []
    scope = ctx.function_of(end) or ctx.module
    # Only the top-level statements of the scope that overlap the range can hold one: walking the
    # whole scope for every finding made a long script quadratic (800 findings: minutes).
    first_line, last_line = start.lineno, getattr(end, "end_lineno", None) or end.lineno
    body = scope.body
    low = bisect.bisect_left(body, first_line, key=lambda s: getattr(s, "end_lineno", None) or s.lineno)
    overlapping = body[low : bisect.bisect_right(body, last_line, key=lambda s: s.lineno)]
    return [
        s
        for top in overlapping
        for s in ast.walk(top)
        if isinstance(s, ast.stmt)
        and s is not start
        and s is not end
        and _after(s, start)
        and _after(end, s)
        and ctx.function_of(s) is ctx.function_of(end)
    ]


def _after(a: ast.stmt, b: ast.stmt) -> bool:
    return (a.lineno, a.col_offset) > (getattr(b, "end_lineno", b.lineno) or b.lineno, 0)


def steps_between(ctx: RuleContext, event: SecondPass) -> bool:
    """An optimizer steps between the two passes (or a method updates the parameters in place, as
    SAM's ``first_step`` does): the second needs a fresh forward pass."""
    if ctx.function_of(event.free.site) is not ctx.function_of(event.report):
        if yields_before_step(ctx, event.free.site):
            return False  # the generator steps when resumed, after the consumer's backward
        stepping = called_names(ctx.function_of(event.free.site) or ctx.module) & STEPPING
        return event.stepped_between or bool(stepping)
    between = statements_between(ctx, event.free.site, event.report)
    steps = any(called_names(s) & STEPPING for s in between)
    return event.stepped_between or steps or updates_in_place(ctx, between)


def steps_spare_second_pass(ctx: RuleContext, event: SecondPass) -> bool:
    """Every step between the two passes changed only parameters the second pass's graph does not
    read (an actor's optimizer stepped between the actor's loss and the critic's, whose graph never
    reads the actor): what the second pass saved is unchanged. Decided by the parameters' origins
    (``ownership.py``), never their names; False where one is not known, where a call named like a
    step ran as something the analysis does not model, or where code between changes tensors in
    place some other way."""
    if not (ctx.complete and event.stepped_between) or event.stepped_origins is None:
        return False
    same_function = ctx.function_of(event.free.site) is ctx.function_of(event.report)
    if same_function:
        between = statements_between(ctx, event.free.site, event.report)
        if updates_in_place(ctx, between):
            return False
    else:
        between = list((ctx.function_of(event.free.site) or ctx.module).body)
    named_steps = [
        call
        for stmt in between
        for call in ast.walk(stmt)
        if isinstance(call, ast.Call) and call_name(call) in STEPPING
    ]
    if any(call not in ctx.ownership.steps for call in named_steps):
        return False
    read = upstream_origins(ctx.nodes, event.reached)
    if read is None:
        return False
    return not ctx.ownership.linked(read) & ctx.ownership.linked(event.stepped_origins)


def updates_in_place(ctx: RuleContext, statements: list[ast.stmt]) -> bool:
    """One of ``statements``, or a function of the checked code it calls, changes a tensor in place
    (torch's convention: a method whose name ends in one underscore, ``p.add_(...)``): SAM's
    ``first_step`` perturbing the weights by the first gradient. Logging a gradient norm does not."""

    def changes_receiver(node: ast.AST) -> bool:
        func = node.func if isinstance(node, ast.Call) else None
        return isinstance(func, ast.Attribute) and in_place(func.attr)

    for stmt in statements:
        for call in ast.walk(stmt):
            bodies = [call, *ctx.called_functions.get(call, set())]
            if any(changes_receiver(node) for body in bodies for node in ast.walk(body)):
                return True
    return False


def yields_before_step(ctx: RuleContext, first: ast.Call) -> bool:
    """A generator backwards, yields, and steps only when resumed: the consumer's code runs between
    the backward and the step (``loss.backward(); yield loss; optimizer.step()``)."""

    return ctx.next_mark(first, _yield_or_step) == "yield"


def _yield_or_step(summary: Summary) -> str | None:
    if summary.yields:
        return "yield"
    return "step" if summary.calls & (STEPPING | {"zero_grad", "backward"}) else None


def ancestors_hold(ctx: RuleContext, stmt: ast.stmt, target: ast.stmt) -> bool:
    """``stmt`` stands in ``target``'s block or in a block around it, so its names reach ``target``."""
    block = ctx.block_of(stmt)
    current: ast.AST | None = target
    while current is not None:
        if isinstance(current, ast.stmt) and block is not None and holds(block, current):
            return True
        current = ctx.parents.get(current)
    return False


def in_ended_loop(ctx: RuleContext, stmt: ast.stmt, target: ast.stmt) -> bool:
    """``stmt`` stands in a loop that ended before ``target`` and stands in ``target``'s block or a
    block around it: what ``stmt`` assigned on the loop's last iteration reaches ``target``."""
    current: ast.AST | None = ctx.parents.get(stmt)
    while isinstance(current, ast.stmt):
        if isinstance(current, ast.For | ast.While) and ancestors_hold(ctx, current, target):
            return (current.end_lineno or current.lineno) < target.lineno
        current = ctx.parents.get(current)
    return False


def reachable_calls(ctx: RuleContext, stmt: ast.stmt) -> set[str]:
    """The names ``stmt`` calls, and those the functions of this module it calls call, transitively."""
    definitions = ctx.definitions()
    seen: set[str] = set()
    pending = called_names(stmt)
    while pending:
        name = pending.pop()
        if name in seen:
            continue
        seen.add(name)
        for func in definitions.get(name, ()):
            pending |= called_names(*func.body)
    return seen


def recompute_before(
    event: SecondPass, ctx: RuleContext, applicability: Applicability, *, as_retained: bool = False
) -> Fix | None:
    """Re-run the statements that built what the second pass reaches, right before it; with
    ``as_retained`` (no step between the passes), safe where fix_safety rule 15 shows the re-run
    computes what the program computed."""
    target = ctx.statement_of(event.report)
    if target is None or not ctx.source.starts_line(target):
        return None
    statements: dict[int, ast.stmt] = {}
    from_ended_loop = False
    for node_id in event.reached:
        stmt = ctx.nodes[node_id].stmt_in(event.frame)
        if stmt is None:
            return None  # built in another call (a constructor, an earlier step): not ours to move
        if stmt is target:
            continue
        if stmt.lineno >= target.lineno:
            return None
        if not ancestors_hold(ctx, stmt, target):
            if not in_ended_loop(ctx, stmt, target):
                return None
            from_ended_loop = True
        statements[stmt.lineno] = stmt
    ordered = [statements[line] for line in sorted(statements)]
    # Re-run after the loop that made it ended (a critic loop's last fakes), it reads what its
    # names hold now (the noise drawn for the generator step), not what they held then: unsafe.
    allowed = recompute(ctx, ordered, Applicability.UNSAFE if from_ended_loop else applicability)
    if (
        allowed is Applicability.UNSAFE
        and as_retained
        and not from_ended_loop
        and recompute_as_retained(ctx, event, ordered, statements_between(ctx, ordered[0], target), target)
    ):
        allowed = Applicability.SAFE
    texts = [code_of_statement(ctx.source, stmt) for stmt in ordered]
    if allowed is None or any(t is None for t in texts):
        return None
    edit = insert_lines_before(ctx.source, target, [t for t in texts if t is not None])
    if edit is None:
        return None
    names = ", ".join(dict.fromkeys(ctx.text(_target(stmt)) for stmt in ordered))
    return Fix(f"Recompute `{names}` before the second backward", allowed, (edit,), workaround=2)


def _target(stmt: ast.stmt) -> ast.AST:
    if isinstance(stmt, ast.Assign):
        return stmt.targets[0]
    if isinstance(stmt, ast.AnnAssign):
        return stmt.target
    return stmt


def remove_second(event: SecondPass, ctx: RuleContext) -> Fix | None:
    """Delete a second backward that stands as a statement of its own."""
    stmt = ctx.statement_of(event.report)
    if not isinstance(stmt, ast.Expr) or stmt.value is not event.report:
        return None
    block = ctx.block_of(stmt)
    edit: Edit | None
    if block is not None and len(block) == 1:
        indent = ctx.source.indent_of(stmt.lineno)
        end = stmt.end_lineno or stmt.lineno
        edit = Edit(Span(Position(stmt.lineno - 1, 0), Position(end, 0)), f"{indent}pass\n")
    else:
        edit = delete_statement(ctx.source, stmt)
    if edit is None:
        return None
    return Fix(
        "Remove the second backward (one backward per step)", Applicability.UNSAFE, (edit,), workaround=1
    )


def retain_first(event: SecondPass, ctx: RuleContext, applicability: Applicability) -> Fix | None:
    """``retain_graph=True`` on the earlier backward, where that is the user's own call.

    Not inside a helper both passes share, or that other code calls too (every call would then
    retain: the dead end), and never when an optimizer step sits between (the second pass would
    then meet modified tensors). A method called from one place only (a GAN's ``backward_eg()``,
    followed by ``backward_g_alone()``) is the user's own call.
    """
    first = event.free.site
    function = ctx.function_of(first)
    callers = sum(function in called for called in ctx.called_functions.values())
    shared_helper = function is not ctx.function_of(event.report) and callers != 1
    repeated = first is event.site and event.report is event.site
    if (shared_helper and not yields_before_step(ctx, first)) or (
        repeated and not grads_one_graph_per_item(ctx, first)
    ):
        return None
    if steps_between(ctx, event) and not steps_spare_second_pass(ctx, event):
        return None
    edit = insert_keyword(ctx.source, first, "retain_graph", "True")
    if edit is None:
        return None
    return Fix(
        f"Keep the graph for the second pass: `retain_graph=True` at line {ctx.line_of(first)}",
        applicability,
        (edit,),
        workaround=0,
    )


COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def grads_one_graph_per_item(ctx: RuleContext, call: ast.Call) -> bool:
    """``[torch.autograd.grad(selected, x)[0] for x in inputs]``: one ``grad`` call, inside a
    comprehension, of outputs that read none of its loop names: every item takes a gradient of the
    same graph, which only the last one may free."""
    if not is_autograd_grad(ctx, call) or not call.args:
        return False
    outputs = [call.args[0], *(kw.value for kw in call.keywords if kw.arg == "outputs")]
    read = {n.id for out in outputs for n in ast.walk(out) if isinstance(n, ast.Name)}
    bound: set[str] = set()
    comprehensions = 0
    current: ast.AST | None = ctx.parents.get(call)
    while current is not None and not isinstance(current, ast.stmt):
        if isinstance(current, COMPREHENSIONS):
            comprehensions += 1
            bound |= {
                n.id for gen in current.generators for n in ast.walk(gen.target) if isinstance(n, ast.Name)
            }
        current = ctx.parents.get(current)
    return comprehensions > 0 and not bound & read


def differentiable_grad(event: SecondPass, ctx: RuleContext) -> Fix | None:
    """An earlier ``torch.autograd.grad`` whose gradient feeds a penalty (R1, gradient penalty):
    ``create_graph=True`` keeps the graph and lets the penalty's own gradient flow."""
    first = event.free.site
    if not ctx.text(first.func, "").endswith("autograd.grad") and ctx.text(first.func, "") != "grad":
        return None
    if any(kw.arg in ("create_graph", "retain_graph") for kw in first.keywords):
        return None
    edit = insert_keyword(ctx.source, first, "create_graph", "True")
    if edit is None:
        return None
    return Fix(
        f"Make the gradient at line {ctx.line_of(first)} differentiable: `create_graph=True`",
        Applicability.UNSAFE,
        (edit,),
        workaround=0,
    )


GRAD_RESETS = frozenset({"zero_grad", "backward", "grad", "manual_backward", "step"})
MANY_TENSORS = frozenset({"list", "tuple", "parameters"})


def read_grads(event: SecondPass, ctx: RuleContext) -> Fix | None:
    """``loss.backward()`` then ``torch.autograd.grad(loss, params)`` to log the gradient: the
    backward already left it in ``.grad``, so read it there (a copy, as ``grad`` would return)."""
    second, first = event.site, event.free.site
    if event.report is not second or not is_autograd_grad(ctx, second) or is_autograd_grad(ctx, first):
        return None
    if len(second.args) != 2 or second.keywords or _grads_reset_before(ctx, event):
        return None
    same_root = event.free.root is not None and event.free.root in event.roots
    same_graph = bool(event.reached) and event.free.reached == event.reached
    if not (same_root or same_graph):
        return None  # the backward went through something else (`scaler.scale(loss)`): other values
    inputs = second.args[1]
    text = ctx.text(inputs)
    parent = ctx.parents.get(second)
    first_item = (
        isinstance(parent, ast.Subscript)
        and isinstance(parent.slice, ast.Constant)
        and parent.slice.value == 0
    )
    many = isinstance(inputs, ast.List | ast.Tuple | ast.ListComp | ast.GeneratorExp) or (
        isinstance(inputs, ast.Call) and call_name(inputs) in MANY_TENSORS
    )
    if many:
        edit = replace(ctx.source, second, _grads_of_many(ctx, inputs))
    elif first_item and isinstance(inputs, ast.Attribute) and isinstance(parent, ast.Subscript):
        edit = replace(ctx.source, parent, f"{text}.grad.clone()")
    else:
        return None
    return Fix(
        f"Read the gradient the backward at line {ctx.line_of(first)} left in `.grad`",
        read_backward_grads(ctx, event, _cleared_right_before(ctx, first)),
        (edit,),
        workaround=2,
    )


ACCUMULATES = frozenset({"backward", "manual_backward", "zero_grad"})
"""Calls that change what ``.grad`` holds: a backward adds to it, ``zero_grad`` clears it."""

BACKWARDS = frozenset({"backward", "manual_backward", "grad"})
"""Calls that go back through a graph."""


def backward_after(ctx: RuleContext, node: ast.AST, loop: ast.AST | None) -> bool:
    """A statement of ``loop``'s body after the one that holds ``node`` backwards (or takes a
    gradient), itself or through a function of the checked code it calls; True where ``node`` is
    not in that body."""
    body = getattr(loop, "body", None)
    if not isinstance(body, list):
        return True
    current: ast.AST | None = node
    while current is not None and not any(current is stmt for stmt in body):
        current = ctx.parents.get(current)
    if not isinstance(current, ast.stmt):
        return True
    return any(reachable_calls(ctx, stmt) & BACKWARDS for stmt in body[body.index(current) + 1 :])


def grads_still_held(event: SecondPass, ctx: RuleContext) -> Fix | None:
    """A helper backwards a tensor on every iteration of its loop and returns the last one
    (``return loss``); the caller hands it to a function that clears ``.grad`` and backwards it again
    to read the gradients (EWC's Fisher from the last training loss). ``.grad`` still holds exactly
    that gradient: the helper's optimizer cleared it right before the backward, and nothing after it
    adds to it or clears it (a step only reads it). The clear and the second backward are removed;
    the reads that follow read what the first backward left. Safe as reading ``.grad`` instead of
    asking again is (:func:`read_backward_grads`)."""
    second, first = event.site, event.free.site
    helper, reader = ctx.function_of(first), ctx.function_of(second)
    if helper is None or reader is None or helper is reader:
        return None
    if reader not in ctx.called_functions.get(event.report, set()):
        return None  # reached through other code of its caller's, which may touch `.grad` first
    stmt = ctx.statement_of(second)
    block = ctx.block_of(stmt) if stmt is not None else None
    if stmt is None or block is None or block is not reader.body or not _bare_backward(stmt, second):
        return None
    index = block.index(stmt)
    clear = block[index - 1] if index > 0 else None
    if not (clear is not None and _bare_call(clear, "zero_grad")):
        return None
    if any(reachable_calls(ctx, s) & GRAD_RESETS for s in block[: index - 1]):
        return None
    cleared = _cleared_right_before(ctx, first)
    if cleared is None or _grads_reset_before(ctx, event) or not _last_backward_returned(ctx, helper, first):
        return None
    edits = [delete_statement(ctx.source, clear), delete_statement(ctx.source, stmt)]
    if any(edit is None for edit in edits) or len(block) == 2:
        return None
    return Fix(
        f"Remove `{ctx.text(clear)}` and the second backward: `.grad` holds what line "
        f"{ctx.line_of(first)} left",
        read_backward_grads(ctx, event, cleared),
        tuple(edit for edit in edits if edit is not None),
        workaround=2,
    )


def cleared_between(event: SecondPass, ctx: RuleContext) -> Fix | None:
    """``loss.backward()``, then, in the same block, ``optimizer.zero_grad()`` and ``loss.backward()``
    again (a notebook cell that prints the gradients, clears them and backwards once more to step):
    the clear throws away the first backward's gradient and the second computes it again over the
    same graph. Where ``.grad`` held nothing before the first backward, it already holds what the
    second would leave: the clear and the second backward are removed, safe on the terms of
    :func:`fix_safety.clear_between_removed`; not offered otherwise."""
    second, first = event.site, event.free.site
    stmt, first_stmt = ctx.statement_of(second), ctx.statement_of(first)
    if event.report is not second or stmt is None or first_stmt is None or event.stepped_between:
        return None
    if not (_bare_backward(stmt, second) and _bare_backward(first_stmt, first)):
        return None
    same_root = event.free.root is not None and event.free.root in event.roots
    if not (same_root or (bool(event.reached) and event.free.reached == event.reached)):
        return None
    block = ctx.block_of(stmt)
    if block is None or not any(s is first_stmt for s in block):
        return None
    start, index = block.index(first_stmt), block.index(stmt)
    clear = block[index - 1]
    if index - 1 <= start or not _bare_call(clear, "zero_grad"):
        return None
    if any(_touches_grad(ctx, s) for s in block[start + 1 : index - 1]):
        return None  # something between adds to `.grad`, clears it or steps
    assert isinstance(clear, ast.Expr) and isinstance(clear.value, ast.Call)
    assert isinstance(clear.value.func, ast.Attribute)
    untouched = _nothing_before(ctx, first_stmt)
    applicability = clear_between_removed(
        ctx, event, _cleared_right_before(ctx, first), ctx.text(clear.value.func.value), untouched=untouched
    )
    edits = [delete_statement(ctx.source, clear), delete_statement(ctx.source, stmt)]
    if applicability is None or any(edit is None for edit in edits):
        return None
    return Fix(
        f"Remove `{ctx.text(clear)}` and the second backward: `.grad` holds what line "
        f"{ctx.line_of(first)} left",
        applicability,
        tuple(edit for edit in edits if edit is not None),
        workaround=2,
    )


def _touches_grad(ctx: RuleContext, stmt: ast.stmt) -> bool:
    """``stmt`` (or a function of this module it calls) backwards, steps or clears ``.grad``, or
    stores into or deletes an attribute ``grad`` (``p.grad = None``)."""
    return bool(reachable_calls(ctx, stmt) & GRAD_RESETS) or any(
        isinstance(n, ast.Attribute) and n.attr == "grad" and isinstance(n.ctx, ast.Store | ast.Del)
        for n in ast.walk(stmt)
    )


def _nothing_before(ctx: RuleContext, stmt: ast.stmt) -> bool:
    """``stmt`` is a statement of the module's own body (run once, in order), and no statement of
    that body before it, nor a function of this module such a statement calls, backwards, steps,
    clears ``.grad`` or stores into it: ``.grad`` is what the parameters were made with."""
    body = ctx.module.body
    if not any(s is stmt for s in body):
        return False
    earlier = body[: body.index(stmt)]
    return not any(_touches_grad(ctx, s) for s in earlier)


def _bare_backward(stmt: ast.stmt, call: ast.Call) -> bool:
    """``stmt`` is ``<tensor>.backward()`` alone, with no argument."""
    return (
        isinstance(stmt, ast.Expr)
        and stmt.value is call
        and isinstance(call.func, ast.Attribute)
        and call.func.attr == "backward"
        and not (call.args or call.keywords)
    )


def _bare_call(stmt: ast.stmt, method: str) -> bool:
    """``stmt`` is ``<receiver>.<method>()`` alone."""
    call = stmt.value if isinstance(stmt, ast.Expr) else None
    return (
        isinstance(call, ast.Call)
        and isinstance(call.func, ast.Attribute)
        and call.func.attr == method
        and not (call.args or call.keywords)
    )


def _last_backward_returned(
    ctx: RuleContext, helper: ast.FunctionDef | ast.AsyncFunctionDef, first: ast.Call
) -> bool:
    """``first`` (``loss.backward()``) stands alone in ``helper``'s body or in the body of one loop of
    it, and runs on every iteration on the ``loss`` that iteration bound (no break, no continue);
    after it nothing in ``helper`` adds to ``.grad`` or clears it, and ``helper`` ends by returning
    ``loss``: the tensor it returns is the last one its backward went through."""
    stmt = ctx.statement_of(first)
    receiver = first.func.value if isinstance(first.func, ast.Attribute) else None
    if stmt is None or not isinstance(receiver, ast.Name) or first.args or first.keywords:
        return False
    name = receiver.id
    block = ctx.block_of(stmt)
    last = helper.body[-1]
    if block is None or not (isinstance(last, ast.Return) and isinstance(last.value, ast.Name)):
        return False
    if last.value.id != name:
        return False
    after = block[block.index(stmt) + 1 :]
    if block is not helper.body:
        loop = ctx.parents.get(stmt)
        if not isinstance(loop, ast.For | ast.While) or loop.orelse or ctx.block_of(loop) is not helper.body:
            return False
        if any(isinstance(n, ast.Break | ast.Continue) for n in ast.walk(loop)):
            return False
        bound = [
            s
            for s in block[: block.index(stmt)]
            if isinstance(s, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in s.targets)
        ]
        if not bound:
            return False  # the loss an iteration backwards was bound by an earlier one
        after += helper.body[helper.body.index(loop) + 1 : -1]
    return not any(reachable_calls(ctx, s) & ACCUMULATES for s in after)


def _cleared_right_before(ctx: RuleContext, backward: ast.Call) -> str | None:
    """The optimizer (as spelled) whose ``zero_grad()`` is, in the block of ``backward``, the last
    statement before it that changes ``.grad`` (through the functions of this module it calls too)."""
    stmt = ctx.statement_of(backward)
    block = ctx.block_of(stmt) if stmt is not None else None
    if stmt is None or block is None:
        return None
    for earlier in reversed(block[: block.index(stmt)]):
        touched = reachable_calls(ctx, earlier) & ACCUMULATES
        if not touched:
            continue
        call = earlier.value if isinstance(earlier, ast.Expr) else None
        if (
            touched == {"zero_grad"}
            and isinstance(call, ast.Call)
            and isinstance(call.func, ast.Attribute)
            and call.func.attr == "zero_grad"
        ):
            return ctx.text(call.func.value)
        return None
    return None


def _grads_of_many(ctx: RuleContext, inputs: ast.expr) -> str:
    """``tuple(p.grad.clone() for p in ...)``, reusing a comprehension's own loop."""
    text = ctx.text(inputs)
    if isinstance(inputs, ast.ListComp) and isinstance(inputs.elt, ast.Name):
        inner = text[1:-1].strip()
        if inner.startswith(f"{inputs.elt.id} for "):
            return f"tuple({inputs.elt.id}.grad.clone(){inner[len(inputs.elt.id) :]})"
    if isinstance(inputs, ast.Call) and call_name(inputs) == "list" and len(inputs.args) == 1:
        text = ctx.text(inputs.args[0])
    return f"tuple(p.grad.clone() for p in {text})"


def is_autograd_grad(ctx: RuleContext, call: ast.Call) -> bool:
    func = ctx.text(call.func, "")
    return func.endswith("autograd.grad") or func == "grad"


def _grads_reset_before(ctx: RuleContext, event: SecondPass) -> bool:
    """Something between the two passes zeroes, steps or adds to ``.grad`` (or we cannot tell)."""
    report_stmt = ctx.statement_of(event.report)
    if report_stmt is None:
        return True
    if ctx.function_of(event.free.site) is ctx.function_of(event.report):
        between = statements_between(ctx, event.free.site, event.report)
        enclosing = enclosing_statements(ctx, report_stmt)
        return any(called_names(s) & GRAD_RESETS for s in between if s not in enclosing)
    earlier = _earlier_in_blocks(ctx, report_stmt)
    helper = ctx.function_of(event.free.site)
    if helper is None:
        return True
    leads = [i for i, s in enumerate(earlier) if helper.name in reachable_calls(ctx, s)]
    if not leads:
        return True
    return any(called_names(s) & GRAD_RESETS for s in earlier[leads[-1] + 1 :])


def _earlier_in_blocks(ctx: RuleContext, stmt: ast.stmt) -> list[ast.stmt]:
    """Statements before ``stmt`` in its block and in the blocks around it, up to its loop or function."""
    found: list[ast.stmt] = []
    current: ast.stmt | None = stmt
    while current is not None:
        block = ctx.block_of(current)
        if block is not None:
            found.extend(s for s in block if s.lineno < current.lineno)
        parent = ctx.parents.get(current)
        if not isinstance(parent, ast.stmt) or isinstance(
            parent, ast.For | ast.While | ast.AsyncFor | ast.FunctionDef | ast.AsyncFunctionDef
        ):
            break
        current = parent
    return found


def enclosing_statements(ctx: RuleContext, stmt: ast.stmt) -> list[ast.stmt]:
    """The statements ``stmt`` sits in, innermost first."""
    found: list[ast.stmt] = []
    current = ctx.parents.get(stmt)
    while isinstance(current, ast.stmt):
        found.append(current)
        current = ctx.parents.get(current)
    return found


def detached(ctx: RuleContext, expr: ast.expr) -> str:
    """``expr.detach()``, parenthesised where the expression needs it."""
    text = ctx.text(expr)
    atomic = isinstance(expr, ast.Name | ast.Attribute | ast.Call | ast.Subscript)
    return f"{text}.detach()" if atomic else f"({text}).detach()"


def parametrized_weight_norm(ctx: RuleContext, event: SecondPass) -> Fix | None:
    """Where the freed graph is a weight the old ``nn.utils.weight_norm`` computed (when applied,
    or before a forward pass of the layer), ``nn.utils.parametrizations.weight_norm`` in its place:
    it computes the weight from the layer's parameters at every read. Unsafe: the parameters are
    renamed (``weight_g`` becomes ``parametrizations.weight.original0``), so state dicts and the
    checkpoints they load change."""
    applied = [ctx.weight_norm_nodes[n] for n in sorted(event.conflict) if n in ctx.weight_norm_nodes]
    edits: dict[int, Edit] = {}
    for call, qualname in applied:
        if qualname != TORCH_WEIGHT_NORM or not isinstance(call.func, ast.Attribute):
            return None  # spelled another way (a name imported alone): no spelling of the new one
        spelled = f"{ctx.text(call.func.value)}.parametrizations.weight_norm"
        edits[id(call)] = replace(ctx.source, call.func, spelled)
    if not edits:
        return None
    return Fix(
        "Use `parametrizations.weight_norm`, which computes the weight at every read",
        Applicability.UNSAFE,
        tuple(edits.values()),
        workaround=2,
    )


TORCH_WEIGHT_NORM = "torch.nn.utils.weight_norm"
"""The old weight norm as ``torch.nn.utils`` holds it: that module holds ``parametrizations`` too."""


def imports_torch(ctx: RuleContext) -> bool:
    """The module has ``import torch``: a fix may write ``torch.<name>``."""
    return any(
        isinstance(stmt, ast.Import) and any(a.name == "torch" and a.asname is None for a in stmt.names)
        for stmt in ctx.module.body
    )


def read_recomputed(
    event: SecondPass, ctx: RuleContext, shared: tuple[str, ast.AST] | None, after: int | None = None
) -> Fix | None:
    """Between the first backward and the second loss, the program assigns a name nothing reads the
    very expression that made the shared value (``gen_imgs = generator(torch.randn(n, d))`` after
    the critic's ``fake_imgs = generator(torch.randn(n, d))``): the second loss reads that name in
    place of the stale one. It re-runs nothing and keeps every gradient: the value is rebuilt by the
    program's own statement, after the first backward (fix_safety rule 12). ``after``: the line
    after which that statement runs between the two backwards, where it is not the first
    backward's (the header of a loop whose every iteration backwards again: PGD's attack steps
    computing ``logits = model(ids)`` and a loss from the clean ``outputs``)."""
    if shared is None:
        return None
    name, made = shared
    second = ctx.statement_of(event.site)
    if not (isinstance(made, ast.Assign) and isinstance(made.value, ast.expr) and second is not None):
        return None
    scope = ctx.function_of(second) or ctx.module
    if (ctx.function_of(made) or ctx.module) is not scope:
        return None
    first_line, report_line = after or ctx.line_of(event.free.site), ctx.line_of(event.report)
    loaded = {n.id for n in names_loaded(scope)}
    declared = {
        n for node in ast.walk(scope) if isinstance(node, ast.Global | ast.Nonlocal) for n in node.names
    }
    stores = [
        n for n in ast.walk(scope) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store | ast.Del)
    ]
    if any(n.id == name and first_line < n.lineno <= report_line for n in stores):
        return None  # the stale name is assigned again on the way: which value it holds is moot
    shape = ast.dump(made.value)
    for stmt in ast.walk(scope):
        if not (
            isinstance(stmt, ast.Assign)
            and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name)
            and first_line < stmt.lineno < report_line
            and ast.dump(stmt.value) == shape
        ):
            continue
        fresh = stmt.targets[0].id
        if fresh == name or fresh in loaded or fresh in declared or not ancestors_hold(ctx, stmt, second):
            continue
        feeding = statements_feeding(event, ctx, event.reached - event.free.reached)
        uses = [
            use
            for use in names_loaded(scope)
            if use.id == name
            and int(getattr(stmt, "end_lineno", stmt.lineno)) < use.lineno <= report_line
            and id(ctx.statement_of(use)) in feeding
        ]
        if uses and not _stored_again(ctx, [n for n in stores if n.id == fresh], stmt, uses):
            edits = [replace(ctx.source, use, fresh) for use in uses]
            return Fix(
                f"Use `{fresh}` in the second loss: it recomputes `{name}` and is read nowhere else",
                Applicability.SAFE,
                tuple(edits),
                workaround=2,
            )
    return None


def _stored_again(ctx: RuleContext, stores: list[ast.Name], stmt: ast.Assign, uses: list[ast.Name]) -> bool:
    """A store of the fresh name other than ``stmt``'s may come between ``stmt`` and a use it would
    then read: one after ``stmt`` up to the last use, except in an assignment that holds a use
    (``logits, loss = loss_of(outputs)``: its targets are stored after its value is computed)."""
    end = int(getattr(stmt, "end_lineno", stmt.lineno))
    holding = {id(ctx.statement_of(use)) for use in uses}
    last = max(use.lineno for use in uses)
    for store in stores:
        if store is stmt.targets[0] or not end < store.lineno <= last:
            continue
        held_by = ctx.statement_of(store)
        if not (isinstance(held_by, ast.Assign) and id(held_by) in holding):
            return True
    return False


def statements_feeding(event: SecondPass, ctx: RuleContext, own: frozenset[int]) -> set[int]:
    """The statements (by id) of the backward's own frame that made ``own``: a call of the
    project's module (``discriminator(fake)``) made its nodes inside ``forward``, run from here."""
    return {id(s) for n in own if (s := ctx.nodes[n].stmt_in(event.frame) or ctx.nodes[n].stmt) is not None}


def unused_name(ctx: RuleContext, wanted: str) -> str:
    """``wanted``, or it with underscores after it, whichever the module binds and reads nowhere:
    the name a fix's new variable can take without shadowing one of the program's."""
    taken = {n.id for n in ast.walk(ctx.module) if isinstance(n, ast.Name)}
    taken |= {a.arg for a in ast.walk(ctx.module) if isinstance(a, ast.arg)}
    name = wanted
    while name in taken:
        name += "_"
    return name
