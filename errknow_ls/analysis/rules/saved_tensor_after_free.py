"""## saved-tensor-after-free (EK006)

### What it does
Flags a read of what a graph node saved for its backward — `t.grad_fn._saved_self`,
`t.grad_fn._saved_result`, `t.grad_fn.saved_tensors` — after a backward that went through that node
without `retain_graph=True`.

### Why is this bad?
A backward frees the tensors its graph saved. Reading one afterwards raises the same
`RuntimeError: Trying to backward through the graph a second time (or directly access saved tensors
after they have already been freed)`, as a second backward would. Code that inspects a graph (a
debugging helper, a test of a custom `Function`) meets it after the training step's backward.

### Example
```python
y = x * w
loss = y.sum()
loss.backward()
print(y.grad_fn._saved_self)
```

### Use instead
```python
y = x * w
saved = y.grad_fn._saved_self  # read before the backward frees it
loss = y.sum()
loss.backward()
```

### Fix safety
Adding `retain_graph=True` to the backward that freed the node keeps the saved tensors alive; the
gradients it computes are the same, but the graph's memory is then held until the graph is dropped,
and a later backward through it no longer fails: unsafe (safe fixes only cut or rebuild graphs; see
`fix_safety.py`). Reading the saved value before the backward is the better change, and is left to
the author.

### References
- [Autograd mechanics: saved tensors](https://pytorch.org/docs/stable/notes/autograd.html#saved-tensors)
"""

from __future__ import annotations

from errknow_ls.analysis.events import Observation, SavedRead
from errknow_ls.analysis.fixes import insert_keyword
from errknow_ls.analysis.rules.context import RuleContext
from errknow_ls.core import Applicability, Finding, Fix, Related

CODE = "EK006"


def claims(event: Observation) -> bool:
    """A read of a node's saved tensors after a backward freed them."""
    return isinstance(event, SavedRead)


def build(event: SavedRead, ctx: RuleContext) -> Finding:
    tensor = ctx.text(event.tensor)
    first = event.free.site
    message = (
        f"`{ctx.text(event.site)}` reads what `{tensor}`'s graph saved, which the backward at "
        f"line {ctx.line_of(first)} already freed"
    )
    fixes = []
    edit = insert_keyword(ctx.source, first, "retain_graph", "True")
    if edit is not None and event.free.module is None:
        fixes.append(
            Fix(
                f"Keep the saved tensors: `retain_graph=True` at line {ctx.line_of(first)}",
                Applicability.UNSAFE,
                (edit,),
                workaround=0,
            )
        )
    related = [Related(ctx.source.span(first), "the backward that freed it")]
    return ctx.finding(CODE, event.site, message, fixes, related, tensor)
