"""## double-backward (EK001)

### What it does
Flags a backward (`t.backward()`, `torch.autograd.backward(t)`, `torch.autograd.grad(t, ...)`,
or a wrapper such as `accelerator.backward(t)`) of a tensor that an earlier backward already
went through, when that earlier backward did not keep the graph (`retain_graph=True`).

### Why is this bad?
A backward frees the tensors its graph saved for the gradient computation. Going through the same
graph again raises `RuntimeError: Trying to backward through the graph a second time`, at run time,
possibly hours into training.

### Example
```python
loss = criterion(model(x), y)
grads = torch.autograd.grad(loss, model.parameters())
loss.backward()
```

### Use instead
```python
loss = criterion(model(x), y)
grads = torch.autograd.grad(loss, model.parameters(), retain_graph=True)
loss.backward()
```

### Fix safety
Adding `retain_graph=True` to the earlier call is safe when that call is `torch.autograd.grad` (it
only reads gradients); after `.backward()` it is unsafe, because the gradients then accumulate
twice, which is rarely what was meant, unless a `zero_grad()` of every parameter the graph reads
runs right before the second backward, after every run of the first, with no step between (a scaled
backward, then `model.zero_grad()` and the plain one, to compare them): the second pass then
replaces what the first left, and keeping the graph is safe. Where `torch.autograd.grad` only
re-asks for gradients a `.backward()` of the same loss just computed (to log their norm), the fix
reads them from `.grad` instead (a copy): safe where the optimizer that owns every parameter the
loss reads cleared `.grad` right before that backward (`optimizer.zero_grad()`, nothing that
backwards in between) and no hook or code the checker does not follow sees those gradients, unsafe
otherwise, since `.grad` then may also hold what was there before that backward. Where the code
right after the second backward reads `.grad`, the second pass is meant, and retaining the graph
comes before removing the second backward. Where a helper backwards a loss on every iteration of its
loop and returns the last one, and the caller hands it to a function that clears `.grad` and
backwards it again to read the gradients (EWC's Fisher from the last training loss), `.grad` still
holds exactly that gradient: the helper's optimizer cleared it right before that backward and
nothing after it adds to it or clears it (a step only reads it). The clear and the second backward
are removed, safe on the same terms as reading `.grad` instead of asking `autograd.grad` again.
Where an optimizer steps between the two backwards, or code between them changes tensors in place
(SAM's `first_step` moving the weights up the gradient), the second backward is meant for the
changed weights: the forward is recomputed before it (safe when it is a pure forward
computation); it is removed only where nothing can be recomputed, and never where it is the only
backward of a loop the first one lies outside of, through which that loop trains what its optimizer
owns (a second training loop reading features its first loop's last step left behind); a sum that
the second pass adds to again (`loss += ...` over several tasks) starts again from its first value
before it is added to (unsafe).

### References
- [torch.Tensor.backward](https://pytorch.org/docs/stable/generated/torch.Tensor.backward.html)
- [Autograd mechanics](https://pytorch.org/docs/stable/notes/autograd.html)
"""

from __future__ import annotations

import ast

from errknow_ls.analysis.events import Observation, SecondPass
from errknow_ls.analysis.fixes import insert_lines_before
from errknow_ls.analysis.rules.common_fixes import (
    cleared_between,
    grads_still_held,
    is_autograd_grad,
    read_grads,
    recompute_before,
    remove_second,
    retain_first,
    statements_between,
    steps_between,
    yields_before_step,
)
from errknow_ls.analysis.rules.context import RuleContext, Summary
from errknow_ls.analysis.rules.fix_safety import cut_starves_training, retain_after_clear
from errknow_ls.core import Applicability, Finding, Fix

CODE = "EK001"


def claims(event: Observation) -> bool:
    """The same tensor, backwarded again (not by the same call on a later iteration of a loop that
    began after its graph was built: that is ``pre-loop-graph-backward``)."""
    if not isinstance(event, SecondPass):
        return False
    return event.same_tensor and not (event.free.site is event.site and event.loop is not None)


def build(event: SecondPass, ctx: RuleContext) -> Finding:
    tensor = ctx.text(event.receiver)
    first = event.free.site
    message = (
        f"`{tensor}` is backwarded a second time: the backward at line {ctx.line_of(first)} "
        "already freed its graph"
    )
    reads_only = ctx.text(first.func, "").endswith("grad")
    if reads_only:
        candidates = [retain_first(event, ctx, Applicability.SAFE)]
    elif steps_between(ctx, event):
        candidates = [
            read_grads(event, ctx),
            grads_still_held(event, ctx),
            recompute_before(event, ctx, Applicability.SAFE),
            _restart_sum(event, ctx),
        ]
        if not any(candidates) and not _only_backward_of_its_loop(event, ctx):
            candidates = [remove_second(event, ctx)]  # the forward ran elsewhere: nothing to re-run
    else:
        # A gradient asked of the same loss by `autograd.grad` adds nothing to `.grad`: the loss
        # recomputed right before it gives what a kept graph would (fix_safety rule 15).
        recomputed = recompute_before(
            event, ctx, Applicability.UNSAFE, as_retained=is_autograd_grad(ctx, event.site)
        )
        if recomputed is not None and recomputed.applicability is Applicability.SAFE:
            candidates = [read_grads(event, ctx), recomputed, retain_first(event, ctx, Applicability.UNSAFE)]
        else:
            removal = [remove_second(event, ctx), recomputed]
            retain = [retain_first(event, ctx, retain_after_clear(ctx, event))]
            # The second pass was meant: its gradients are read right after it, or it is the
            # consumer's own backward of what a training-step generator already backwarded and yielded.
            wanted = _second_grads_read(event, ctx) or yields_before_step(ctx, first)
            cleared = [cleared_between(event, ctx)]
            ordered = retain + removal if wanted else removal + retain
            candidates = [read_grads(event, ctx), *cleared, *ordered]
    fixes = [fix for fix in candidates if fix is not None]
    related = [ctx.related(first, f"`{event.free.label}`'s graph is freed here")]
    return ctx.finding(CODE, event.report, message, fixes, related, tensor)


def _only_backward_of_its_loop(event: SecondPass, ctx: RuleContext) -> bool:
    """The second backward stands in a loop the first one lies outside of (a second training loop
    reading values the first loop's last step made), and it is this loop's only path to parameters
    an optimizer owns (fix_safety rule 10): removed, every step of that loop would train nothing."""
    first = event.free.site
    current = ctx.parents.get(ctx.statement_of(event.report))
    while current is not None and not isinstance(
        current, ast.FunctionDef | ast.AsyncFunctionDef | ast.Module
    ):
        if isinstance(current, ast.For | ast.While | ast.AsyncFor) and not any(
            n is first for n in ast.walk(current)
        ):
            return cut_starves_training(ctx, event.site, event.reached, event.reached, current)
        current = ctx.parents.get(current)
    return False


def _second_grads_read(event: SecondPass, ctx: RuleContext) -> bool:
    """Statements after the second backward, in its block, read ``.grad`` before any step."""
    return ctx.next_mark(event.report, _grad_or_step) == "grad"


def _grad_or_step(summary: Summary) -> str | None:
    if summary.reads_grad:
        return "grad"
    return "step" if summary.calls & {"step", "zero_grad"} else None


def _restart_sum(event: SecondPass, ctx: RuleContext) -> Fix | None:
    """``loss = 0``, ``loss += ...`` and a backward, then, after a step, ``loss += ...`` again and a
    second backward (SAM's second pass over several task losses): the second sum still holds the
    first one's terms, whose graph the first backward freed. It starts again from its first value
    before it is summed again (unsafe: the second backward then no longer includes the first
    pass's terms, which is what a second pass over new weights means)."""
    receiver = event.receiver
    if not isinstance(receiver, ast.Name):
        return None
    name = receiver.id
    between = statements_between(ctx, event.free.site, event.report)
    added = [s for s in between if _adds_to(s, name)]
    first_stmt = ctx.statement_of(event.free.site)
    scope = ctx.function_of(event.report) or ctx.module
    if not added or first_stmt is None:
        return None
    starts = [
        s
        for s in ast.walk(scope)
        if isinstance(s, ast.Assign)
        and [ctx.text(t) for t in s.targets] == [name]
        and isinstance(s.value, ast.Constant)
        and s.lineno < first_stmt.lineno
    ]
    if not starts:
        return None
    start = max(starts, key=lambda s: s.lineno)
    # The outermost statement, between the two passes, that holds the first addition.
    anchor: ast.stmt = added[0]
    while (parent := ctx.parents.get(anchor)) is not None and any(parent is s for s in between):
        assert isinstance(parent, ast.stmt)
        anchor = parent
    edit = insert_lines_before(ctx.source, anchor, [ctx.text(start)])
    if edit is None:
        return None
    return Fix(
        f"Start `{name}` again from `{ctx.text(start.value)}` before it is summed again",
        Applicability.UNSAFE,
        (edit,),
        workaround=2,
    )


def _adds_to(stmt: ast.stmt, name: str) -> bool:
    """``name += ...`` or ``name = name + ...``."""
    if isinstance(stmt, ast.AugAssign):
        return isinstance(stmt.target, ast.Name) and stmt.target.id == name
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
        target, value = stmt.targets[0], stmt.value
        return (
            isinstance(target, ast.Name)
            and target.id == name
            and isinstance(value, ast.BinOp)
            and isinstance(value.left, ast.Name)
            and value.left.id == name
        )
    return False
