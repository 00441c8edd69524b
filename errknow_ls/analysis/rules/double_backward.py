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
Adding `retain_graph=True` to the earlier call is safe when that call is `torch.autograd.grad`
(it only reads gradients); after `.backward()` it is unsafe, because the gradients then
accumulate twice, which is rarely what was meant. Where `torch.autograd.grad` only re-asks for
gradients a `.backward()` of the same loss just computed (to log their norm), the fix reads them
from `.grad` instead (a copy): unsafe, since `.grad` also holds whatever was there before that
backward. Where the code right after the second backward reads `.grad`, the second pass is meant,
and retaining the graph comes before removing the second backward. Where an optimizer steps
between the two backwards, or code between them changes tensors in place (SAM's `first_step`
moving the weights up the gradient), the second backward is meant for the changed weights: the
forward is recomputed before it (safe when it is a pure forward computation), never removed.

### References
- [torch.Tensor.backward](https://pytorch.org/docs/stable/generated/torch.Tensor.backward.html)
- [Autograd mechanics](https://pytorch.org/docs/stable/notes/autograd.html)
"""

from __future__ import annotations

import ast

from errknow_ls.analysis.events import Observation, SecondPass
from errknow_ls.analysis.rules.common_fixes import (
    read_grads,
    recompute_before,
    remove_second,
    retain_first,
    steps_between,
    yields_before_step,
)
from errknow_ls.analysis.rules.context import RuleContext
from errknow_ls.core import Applicability, Finding

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
        candidates = [read_grads(event, ctx), recompute_before(event, ctx, Applicability.SAFE)]
        if not any(candidates):
            candidates = [remove_second(event, ctx)]  # the forward ran elsewhere: nothing to re-run
    else:
        removal = [remove_second(event, ctx), recompute_before(event, ctx, Applicability.UNSAFE)]
        retain = [retain_first(event, ctx, Applicability.UNSAFE)]
        # The second pass was meant: its gradients are read right after it, or it is the consumer's
        # own backward of what a training-step generator already backwarded and yielded.
        wanted = _second_grads_read(event, ctx) or yields_before_step(ctx, first)
        candidates = [read_grads(event, ctx), *(retain + removal if wanted else removal + retain)]
    fixes = [fix for fix in candidates if fix is not None]
    related = [ctx.related(first, f"`{event.free.label}`'s graph is freed here")]
    return ctx.finding(CODE, event.report, message, fixes, related, tensor)


def _second_grads_read(event: SecondPass, ctx: RuleContext) -> bool:
    """Statements after the second backward, in its block, read ``.grad`` before any step."""

    def mark(later: ast.stmt) -> str | None:
        summary = ctx.summary(later)
        if summary.reads_grad:
            return "grad"
        return "step" if summary.calls & {"step", "zero_grad"} else None

    return ctx.next_mark(event.report, mark) == "grad"
