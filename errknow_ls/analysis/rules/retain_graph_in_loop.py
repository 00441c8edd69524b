"""## retain-graph-in-loop (EK005)

### What it does
Flags `retain_graph=True` on a backward that runs on every iteration of a loop while its graph is
rebuilt on every iteration, and that no later backward in the same iteration goes through again.

### Why is this bad?
This is the knowledge base's first dead end for the second-backward error: it silences the error
but keeps every iteration's saved tensors alive as long as anything refers to the graph, and where
a tensor is carried between iterations the graph, and memory, grow until the run dies of OOM.

### Example
```python
for inputs, targets in loader:
    loss = criterion(model(inputs), targets)
    loss.backward(retain_graph=True)
    optimizer.step()
```

### Use instead
```python
for inputs, targets in loader:
    loss = criterion(model(inputs), targets)
    loss.backward()
    optimizer.step()
```

### Fix safety
Removing `retain_graph=True` is safe when no later backward reaches the retained graph. Where a
later iteration does (the graph is carried across iterations), removing it alone would raise; the
fix is then display-only: detach the carried state first.

### References
- [torch.Tensor.backward, `retain_graph`](https://pytorch.org/docs/stable/generated/torch.Tensor.backward.html)
"""

from __future__ import annotations

import ast

from errknow_ls.analysis.events import RetainSite
from errknow_ls.analysis.fixes import remove_keyword
from errknow_ls.analysis.rules.context import RuleContext
from errknow_ls.analysis.rules.fix_safety import retain_removal
from errknow_ls.core import Finding, Fix

CODE = "EK005"


def build(site: RetainSite, ctx: RuleContext) -> Finding:
    call = site.site
    tensor = ctx.text(call.func.value) if isinstance(call.func, ast.Attribute) else "tensor"
    if site.reached_later:
        # What the retain keeps, a later iteration backwards again: a graph carried across them.
        message = (
            f"`retain_graph=True` on `{tensor}`'s backward on every iteration, and a later iteration "
            "backwards through the graph it keeps: that graph and its saved tensors are carried from "
            "one iteration to the next"
        )
        title = "Remove `retain_graph=True` once nothing carries this graph into the next iteration"
    else:
        message = (
            f"`retain_graph=True` on `{tensor}`'s backward on every iteration while the graph is "
            "rebuilt every iteration: its saved tensors stay alive"
        )
        title = "Remove `retain_graph=True`: nothing backwards through this graph again"
    fixes = []
    edit = remove_keyword(ctx.source, call, "retain_graph")
    applicability = retain_removal(site)
    if edit is not None and applicability is not None:
        fixes.append(Fix(title, applicability, (edit,)))
    return ctx.finding(CODE, call, message, fixes, [], tensor)
