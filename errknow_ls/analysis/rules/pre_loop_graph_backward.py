"""## pre-loop-graph-backward (EK002)

### What it does
Flags a backward inside a loop that reaches graph nodes built once, before the loop: the loss
itself, an intermediate that came from a module or an op on parameters (a custom
`autograd.Function`'s `.apply` too), or a parameter transform computed once in `__init__`
(`self.w2 = self.w * 2`) and used in every training step.

### Why is this bad?
The first iteration's backward frees the saved tensors of that shared part of the graph; the
second iteration raises `RuntimeError: Trying to backward through the graph a second time`.
Adding `retain_graph=True` silences it but keeps training on a stale forward pass and is the
knowledge base's first dead end.

### Example
```python
output = model(inputs)
for step in range(100):
    optimizer.zero_grad()
    loss = criterion(output, targets)
    loss.backward()
    optimizer.step()
```

### Use instead
```python
for step in range(100):
    optimizer.zero_grad()
    output = model(inputs)
    loss = criterion(output, targets)
    loss.backward()
    optimizer.step()
```

### Fix safety
Where the loop already recomputes the stale value, by the very expression that made it, into a name
nothing reads (an attack step's `logits = model(ids)` beside the clean `outputs` built before the
attack loop), the loss reads that name instead: safe, it re-runs nothing and keeps every gradient.
Recomputing the forward pass inside the loop is safe: each iteration then sees the parameters the
optimizer just updated, which is what a training loop means — unless the loop also trains what built
those values through a forward pass of its own (advantages from a critic that the loop's value loss
trains): they are then targets, detaching them comes first, and recomputing them is unsafe. Where
the backward runs in a closure (L-BFGS's `closure()` reading a prediction made before it), the
forward is recomputed inside the closure, safely when it is handed to an optimizer's `step`, which
calls it several times per step. Where the loop takes Hessian-vector products of a gradient built
once with `create_graph=True` and no optimizer steps in it, the product keeps that graph
(`retain_graph=True`, safe): that graph is meant to be reused. Inlining a parameter transform from
`__init__` into its uses is unsafe (it moves code across methods). Where the stale values cannot be
recomputed in the loop and the loss also learns through the loop's own forward pass, they are
targets the loop only reads (a rollout's old log-probabilities, predictions kept in `__init__`):
detaching them where they are stored, or before the loop, is unsafe, since it stops the gradient the
first iteration sent through them — and safe where that changes nothing that trains: no optimizer
of the program owns a parameter their graph reads (a frozen teacher's soft targets, read by a
student's loop whose optimizer is built over the student; decided by which constructor call made
each module, never by its name) and nothing else sees a gradient there (a `.grad` read, a hook,
code the checker does not follow); safe too where the values are a module's output (the rollout's
log-probabilities of the policy the epochs train, a model's predictions on anchor inputs) and the
loop's own forward pass reaches again every parameter an optimizer owns that they read, so the
optimizers update the same tensors. A value the loop takes gradients with respect to (a PINN's
collocation times, the inputs of its `autograd.grad`) is detached into a leaf that still requires
grad.
A value the loop reaches only through what was built from it (labels `Y` that a loader made before
the loop hands out) is detached where it is assigned (`Y = (X @ true_w).detach()`), under the same
rule; recomputing it inside a loop that never reads it would change nothing and is not offered.
No detach is offered where the loop's loss reaches a parameter its optimizer owns only
through the stale values (a reward model read only through the advantages built before the
epochs: detached, it would never learn), nor where the stale value is a term the loss only adds
(a penalty built once in `__init__`: detached, a constant). Such a value, built on the object by a
run of `__init__`'s own statements (`self.reg_loss = torch.zeros(())`, then a method of the class
that adds the penalty over the weights to it), is built again instead: the run becomes a method of
the class, which `__init__` calls and the loop calls before it first reads the value, each step's
loss then reading the penalty of the current weights (unsafe: it runs code of the checked program
for its effect on the object); shown only where nothing else stores the attribute and the
functions the run calls store nothing else. A helper of the checked code that loops
over what a forward computation gives and writes items of a tensor it made itself
(`torch.zeros_like(rewards)`, filled step by step by a discounted-return loop) is a forward
computation, and is recomputed like one. Where the stale values are module outputs that forward hooks
stored (`self.features = output`) and those hooks' handles were removed before the loop, which still
runs the module's forward, the one statement that registered them is re-run right before the loop
(`sfs = [SaveFeatures(cnn[i]) for i in block_ends]`): safe where that statement only builds objects
of plain classes whose constructors only register hooks that store what they are handed, and the
loop calls the module's forward for its hooks alone, its value discarded (fix_safety rule 16);
unsafe otherwise, since it re-runs constructors.
No recompute is offered where the values are built once per iteration of an outer loop and each
iteration of the inner one steps another optimizer in turn (the peers of deep mutual learning,
MADDPG's agents): recomputed there, later iterations would read parameters the earlier ones just
stepped, a sequential update the program, which built the values once for all of them, did not
mean: each turn's backward goes only into the parameters its optimizer steps instead
(`loss.backward(inputs=[p for group in optimizers[i].param_groups for p in group["params"]])`),
which leaves the other peers' graphs to their own turns, as detaching their outputs would; unsafe,
since which parameters each turn reaches is not shown. Where the loop's body only clears,
backwards and steps each optimizer in turn over one loss built before it
(`for opt in (enc_opt, dec_opt): opt.zero_grad(); loss.backward(); opt.step()`), every optimizer is
meant to step on that loss's gradient: the fix clears each, backwards once, then
steps each; safe where the loop names its optimizers one by one, they own apart parameters that
together are every parameter the graph reads, and nothing else sees the gradients (each then steps
on what its turn would hand it over a kept graph), unsafe otherwise.
Where the stale graph is a weight the old `nn.utils.weight_norm` computed when it was applied (a
functional forward reading `layer.weight`), `nn.utils.parametrizations.weight_norm` takes its place
and computes the weight at every read: unsafe, since it renames the layer's parameters
(`weight_g` becomes `parametrizations.weight.original0`) and so the state dicts checkpoints hold.

### References
- [Autograd mechanics](https://pytorch.org/docs/stable/notes/autograd.html)
"""

from __future__ import annotations

import ast
import itertools
import symtable

from errknow_ls.analysis.events import Observation, SecondPass
from errknow_ls.analysis.fixes import (
    body_anchor,
    code_of_statement,
    delete_statement,
    insert_keyword,
    insert_lines_before,
    replace,
)
from errknow_ls.analysis.names import builtin_unshadowed, imported_once
from errknow_ls.analysis.rules.common_fixes import (
    ancestors_hold,
    is_autograd_grad,
    parametrized_weight_norm,
    read_recomputed,
)
from errknow_ls.analysis.rules.context import RuleContext, is_self_attribute, names_loaded, upward_exposed
from errknow_ls.analysis.rules.fix_safety import (
    backward_once_steps_each,
    built_for_turns,
    built_once_untrained,
    cut_starves_training,
    detach_built_once,
    detach_expression,
    hooks_registered_again,
    inline_derived,
    only_added,
    own_nodes,
    recompute,
    recompute_in_loop,
    retain_reused_gradient,
)
from errknow_ls.analysis.rules.init_rebuild import rebuild_from_init
from errknow_ls.analysis.state import Place
from errknow_ls.analysis.values import Tensor, Value
from errknow_ls.core import Applicability, Edit, Finding, Fix, Position, Span

CODE = "EK002"


def claims(event: Observation) -> bool:
    """A graph built before the loop that is still running, freed by one iteration's backward and
    reached again by a later one's (not through names the loop carries, and not a loop over
    tensors, where each iteration may backward another one)."""
    if not isinstance(event, SecondPass):
        return False
    if event.same_tensor:
        return event.free.site is event.site and event.loop is not None
    return not event.carried_over and event.loop is not None and not event.loop_walks_tensors


def build(event: SecondPass, ctx: RuleContext) -> Finding:
    tensor = ctx.text(event.receiver)
    stale = _stale_nodes(event, ctx)
    # Where the freed part was built (not a node made before the loop that the backward merely
    # goes through: an item a loop's own iterator made ahead of it).
    shown = [n for n in stale if n in event.conflict] or stale
    first = min(shown, key=lambda n: ctx.line_of(ctx.nodes[n].site)) if shown else None
    where = f" at line {ctx.line_of(ctx.nodes[first].site)}" if first is not None else ""
    message = (
        f"`{tensor}` reaches a graph built once, before the loop{where}: the first iteration's "
        "backward freed it, so the next one raises"
    )
    recomputed = (
        _retain_reused_gradient(event, ctx, stale)
        or _recompute_in_closure(event, ctx, stale)
        or _recompute(event, ctx, stale)
    )
    detached = _detach_stale(event, ctx, stale)
    candidates: tuple[Fix | None, ...]
    if recomputed is not None and recomputed.applicability is Applicability.UNSAFE:
        # The loop trains what built the stale values through its own forward pass: they are
        # targets it reads, and detaching them comes first.
        candidates = (detached, recomputed, _inline_init(event, ctx, stale))
    else:
        candidates = (recomputed, _inline_init(event, ctx, stale), detached)
    loop_line = event.loop.node.lineno if event.loop is not None and event.loop.node is not None else None
    own = read_recomputed(event, ctx, _made_before(event, ctx, stale), after=loop_line)
    if own is not None:
        # The program already recomputes the stale value in the loop, into a name nothing reads:
        # reading it is what the loss was written for, and comes before every other fix.
        candidates = (own, *candidates)
    # A weight the old weight norm computed once: the layer that computes it at every read first.
    fixes = [
        fix
        for fix in (
            parametrized_weight_norm(ctx, event),
            _backward_once_then_step_each(event, ctx),
            *candidates,
            _backward_into_stepped(event, ctx, stale),
            _register_hooks_again(event, ctx, stale),
            rebuild_from_init(event, ctx, stale),
        )
        if fix
    ]
    related = [ctx.related(event.free.site, "the graph is freed here on the first iteration")]
    if first is not None:
        related.append(ctx.related(ctx.nodes[first].site, "built here, once, outside the loop"))
    return ctx.finding(CODE, event.report, message, fixes, related, tensor)


def _backward_once_then_step_each(event: SecondPass, ctx: RuleContext) -> Fix | None:
    """``for opt in (enc_opt, dec_opt): opt.zero_grad(); loss.backward(); opt.step()`` over a loss
    built once before the loop: each iteration backwards the same graph, so each optimizer is meant
    to step on that one loss's gradient, at the forward pass the program ran once. One backward gives
    it to every optimizer: clear each, backward once, then step each (safe on the terms of
    fix_safety.backward_once_steps_each, else unsafe; recomputing the loss per optimizer would step
    the later ones on parameters the earlier ones changed, which is not offered, fix_safety rule
    11)."""
    node = event.loop.node if event.loop is not None else None
    if not (
        event.same_tensor
        and isinstance(node, ast.For)
        and not node.orelse
        and isinstance(node.target, ast.Name)
        and node.end_lineno is not None
        and ctx.source.starts_line(node)
        and len(node.body) == 3
    ):
        return None
    iterated = node.iter
    names = [iterated] if isinstance(iterated, ast.Name) else getattr(iterated, "elts", None)
    if not isinstance(iterated, ast.Name | ast.Tuple | ast.List) or not all(
        isinstance(n, ast.Name) for n in names or [None]
    ):
        return None  # evaluated twice after the fix: only names, which evaluate to the same objects
    clear, backward, step = node.body
    target = node.target.id
    if not (
        _method_of(clear, target, "zero_grad", keywords=True)
        and _method_of(step, target, "step")
        and isinstance(backward, ast.Expr)
        and backward.value is event.site
        and not (event.site.args or event.site.keywords)
    ):
        return None
    if node.end_lineno >= len(ctx.source.lines) and not ctx.source.text.endswith(("\n", "\r")):
        return None
    indent = ctx.source.indent_of(node.lineno)
    inner = ctx.source.indent_of(clear.lineno)
    header = f"{indent}for {target} in {ctx.text(iterated)}:\n"
    text = (
        f"{header}{inner}{ctx.text(clear)}\n{indent}{ctx.text(event.site)}\n{header}{inner}{ctx.text(step)}\n"
    )
    span = Span(Position(node.lineno - 1, 0), Position(node.end_lineno, 0))
    shown = ctx.text(event.site.func.value) if isinstance(event.site.func, ast.Attribute) else "the loss"
    listed = (
        [n.id for n in names or [] if isinstance(n, ast.Name)] if not isinstance(iterated, ast.Name) else []
    )
    return Fix(
        f"Backward `{shown}` once, then step each optimizer of the loop",
        backward_once_steps_each(ctx, event, listed) if listed else Applicability.UNSAFE,
        (Edit(span, text),),
        workaround=1,
    )


def _learned_through(ctx: RuleContext, conflict: frozenset[int]) -> bool:
    """The freed graph the second pass goes through runs through modules with parameters, each of
    whose origins is known (an op between them, a parameterless activation, learns nothing)."""
    learning = [ctx.nodes[n] for n in conflict if ctx.nodes[n].learns]
    return bool(learning) and all(node.origins for node in learning)


def _backward_into_stepped(event: SecondPass, ctx: RuleContext, stale: list[int]) -> Fix | None:
    """Each iteration of an inner loop steps another optimizer over values built once per iteration
    of the outer one (``outputs = [peer(x) for peer in peers]``, then ``for i in range(2): ...;
    loss.backward(); optimizers[i].step()``: fix_safety rule 11), and each backward also runs back
    into the other peers' graphs, which the next iteration needs: each turn's backward goes only to
    the parameters its optimizer steps (``loss.backward(inputs=...)``), which torch runs without
    touching the other peers' graphs, as the report's detach of the other peers' outputs does.
    Unsafe: which parameters each turn reaches is not shown (the modules a comprehension made
    share one origin, and the gradients the other peers no longer receive are not shown unread)."""
    loop = event.loop
    node = loop.node if loop is not None else None
    site = event.site
    if (
        node is None
        or event.free.site is not site
        or not isinstance(site, ast.Call)
        or not isinstance(site.func, ast.Attribute)
        or site.func.attr != "backward"
        or site.args
        or any(kw.arg in ("inputs", None) for kw in site.keywords)
        or not _learned_through(ctx, event.conflict)
    ):
        return None
    built = [s for n in stale if loop is not None and (s := ctx.nodes[n].stmt_in(loop.frame)) is not None]
    stepped = _optimizer_stepped_after(ctx, site)
    if not built or not built_for_turns(ctx, built, node) or stepped is None:
        return None
    params = f'[p for group in {ctx.text(stepped)}.param_groups for p in group["params"]]'
    edit = insert_keyword(ctx.source, site, "inputs", params)
    if edit is None:
        return None
    return Fix(
        f"Backward `{ctx.text(site.func.value)}` only into the parameters `{ctx.text(stepped)}` steps",
        Applicability.UNSAFE,
        (edit,),
        workaround=3,
    )


def _optimizer_stepped_after(ctx: RuleContext, site: ast.Call) -> ast.expr | None:
    """``optimizers[i]`` where ``loss.backward()`` is a statement followed, in its own block, by
    ``optimizers[i].step()``, with nothing between that assigns a name it reads: written again in
    the backward, it is the same object. It calls nothing (evaluated once more, it has no effect)."""
    stmt = ctx.statement_of(site)
    block = ctx.block_of(stmt) if stmt is not None else None
    if stmt is None or block is None or not (isinstance(stmt, ast.Expr) and stmt.value is site):
        return None
    assigned: set[str] = set()
    for later in block[block.index(stmt) + 1 :]:
        call = later.value if isinstance(later, ast.Expr) else None
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "step":
            receiver = call.func.value
            read = {n.id for n in ast.walk(receiver) if isinstance(n, ast.Name)}
            plain = not any(isinstance(n, ast.Call | ast.NamedExpr | ast.Await) for n in ast.walk(receiver))
            return receiver if plain and not read & assigned else None
        assigned |= {
            n.id for n in ast.walk(later) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
        }
    return None


def _register_hooks_again(event: SecondPass, ctx: RuleContext, stale: list[int]) -> Fix | None:
    """The stale values are module outputs forward hooks were handed (a ``SaveFeatures`` object's
    ``self.features = output``) whose handles were removed before the loop (``sf.close()`` after an
    earlier loop), while the loop still runs a module's forward and reads what they stored: the
    hooks no longer refresh it, so the loop reads the earlier loop's last activations. Re-run,
    right before the loop, the one statement of the loop's function that registered them
    (``sfs = [SaveFeatures(cnn[i]) for i in block_ends]``), as fastai's fix of the style-transfer
    notebook did: safe on the terms of fix_safety rule 16, else unsafe (rule 2: it re-runs
    constructors)."""
    loop = event.loop
    node = loop.node if loop is not None else None
    if loop is None or node is None:
        return None
    hooks = [hook for hook in event.removed_hooks if hook.handed & set(stale)]
    made = {id(stmt): stmt for hook in hooks for serial, stmt in hook.stmts if serial == loop.frame}
    if len(made) != 1 or not any(call in ctx.module_calls for call in ast.walk(node)):
        return None
    (stmt,) = made.values()
    if stmt.lineno >= node.lineno or not ancestors_hold(ctx, stmt, node) or _rebound_between(ctx, stmt, node):
        return None
    text = code_of_statement(ctx.source, stmt)
    edit = insert_lines_before(ctx.source, node, [text]) if text is not None else None
    if edit is None:
        return None
    return Fix(
        f"Register the forward hooks of line {stmt.lineno} again before the loop",
        hooks_registered_again(ctx, stmt, node),
        (edit,),
        workaround=2,
    )


def _rebound_between(ctx: RuleContext, stmt: ast.stmt, loop: ast.stmt) -> bool:
    """A name ``stmt`` reads (not one it binds itself) is assigned by a statement of its block
    between it and the statement that holds ``loop``: re-run before the loop, it would read another
    value."""
    block = ctx.block_of(stmt)
    if block is None:
        return True
    own = {n.id for n in ast.walk(stmt) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    read = {n.id for n in ast.walk(stmt) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)} - own
    start = block.index(stmt) + 1
    end = next((i for i, s in enumerate(block) if any(n is loop for n in ast.walk(s))), len(block))
    assigned = {
        n.id
        for later in block[start:end]
        for n in ast.walk(later)
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store | ast.Del)
    }
    return bool(read & assigned)


def _method_of(stmt: ast.stmt, receiver: str, method: str, *, keywords: bool = False) -> bool:
    """``stmt`` is ``<receiver>.<method>()`` (with keyword arguments only where ``keywords``)."""
    call = stmt.value if isinstance(stmt, ast.Expr) else None
    return (
        isinstance(call, ast.Call)
        and isinstance(call.func, ast.Attribute)
        and call.func.attr == method
        and isinstance(call.func.value, ast.Name)
        and call.func.value.id == receiver
        and not call.args
        and (keywords or not call.keywords)
    )


def _made_before(event: SecondPass, ctx: RuleContext, stale: list[int]) -> tuple[str, ast.AST] | None:
    """The one statement before the loop, in the loop's own frame, that made the stale graph, when it
    assigns a single name (``outputs = model(input_ids)``): that name and the statement."""
    loop = event.loop
    if loop is None or not stale:
        return None
    made = {id(s): s for n in stale if (s := ctx.nodes[n].stmt_in(loop.frame)) is not None}
    if len(made) != 1:
        return None
    (stmt,) = made.values()
    if not (
        isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)
    ):
        return None
    return stmt.targets[0].id, stmt


def _stale_nodes(event: SecondPass, ctx: RuleContext) -> list[int]:
    key = event.loop.key if event.loop else None
    return [n for n in event.reached if all(k != key for k, _ in ctx.nodes[n].loops)]


def _recompute(event: SecondPass, ctx: RuleContext, stale: list[int]) -> Fix | None:
    """Re-run, at the top of each iteration, the statements that built the stale graph: moved there
    when nothing outside the loop reads what they assign, else copied."""
    loop = event.loop
    if loop is None or loop.node is None or not stale:
        return None
    statements: dict[int, ast.stmt] = {}
    for node_id in stale:
        stmt = ctx.nodes[node_id].stmt_in(loop.frame)
        if stmt is None or stmt.lineno >= loop.node.lineno or not ancestors_hold(ctx, stmt, loop.node):
            return None
        statements[stmt.lineno] = stmt
    ordered = [statements[line] for line in sorted(statements)]
    body = list(getattr(loop.node, "body", []))
    anchor = body_anchor(body)
    use = _first_use(body, ordered)
    if use is None and not _read_by_callees(ctx, body, ordered):
        return None  # the loop reads them only through what was built from them (a loader): moot
    above = body[body.index(anchor) : body.index(use)] if anchor in body and use in body else []
    applicability = recompute_in_loop(ctx, ordered, loop, Applicability.SAFE, above)
    if applicability is Applicability.UNSAFE and use is not None and above:
        anchor = use  # right where it is first read, after what the loop does before it
    texts = [code_of_statement(ctx.source, stmt) for stmt in ordered]
    if applicability is None or anchor is None or any(t is None for t in texts):
        return None
    edit = insert_lines_before(ctx.source, anchor, [t for t in texts if t is not None])
    if edit is None:
        return None
    deletions = _deletions(ctx, ordered, loop.node)
    names = ", ".join(dict.fromkeys(ctx.text(_target(stmt)) for stmt in ordered))
    verb = "Compute" if deletions else "Recompute"
    return Fix(
        f"{verb} `{names}` inside the loop, on every iteration",
        applicability,
        (*deletions, edit),
        workaround=2,
    )


def _read_by_callees(ctx: RuleContext, body: list[ast.stmt], statements: list[ast.stmt]) -> bool:
    """A function of the checked code that the loop's body calls (or one it calls, and so on) reads
    a name that ``statements`` assign."""
    assigned = {
        n.id for stmt in statements for t in _targets(stmt) for n in ast.walk(t) if isinstance(n, ast.Name)
    }
    pending = [node for stmt in body for node in ast.walk(stmt) if isinstance(node, ast.Call)]
    seen: set[int] = set()
    while pending:
        for func in ctx.called_functions.get(pending.pop(), set()):
            if id(func) in seen:
                continue
            seen.add(id(func))
            if any(n.id in assigned for n in names_loaded(func)):
                return True
            pending.extend(node for node in ast.walk(func) if isinstance(node, ast.Call))
    return False


def _first_use(body: list[ast.stmt], statements: list[ast.stmt]) -> ast.stmt | None:
    """The first statement of the loop's body that reads what ``statements`` assign."""
    assigned = {
        n.id for stmt in statements for t in _targets(stmt) for n in ast.walk(t) if isinstance(n, ast.Name)
    }
    return next(
        (
            stmt
            for stmt in body
            if any(
                isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id in assigned
                for n in ast.walk(stmt)
            )
        ),
        None,
    )


def _retain_reused_gradient(event: SecondPass, ctx: RuleContext, stale: list[int]) -> Fix | None:
    """A Hessian-vector product (power iteration, conjugate gradient) in a loop differentiates a
    gradient taken once before it with ``create_graph=True``: that graph is meant to be reused, so
    the product keeps it (``retain_graph=True``), as the create_graph gradient intends."""
    site = event.site
    if not isinstance(site, ast.Call) or not is_autograd_grad(ctx, site):
        return None
    if any(kw.arg in ("retain_graph", "create_graph") for kw in site.keywords):
        return None
    made = {id(stmt): stmt for n in stale for _, stmt in ctx.nodes[n].stmts}
    first = next(
        (
            call
            for stmt in made.values()
            for call in ast.walk(stmt)
            if isinstance(call, ast.Call)
            and is_autograd_grad(ctx, call)
            and any(
                kw.arg == "create_graph" and isinstance(kw.value, ast.Constant) and kw.value.value is True
                for kw in call.keywords
            )
        ),
        None,
    )
    applicability = retain_reused_gradient(ctx, event)
    edit = insert_keyword(ctx.source, site, "retain_graph", "True")
    if first is None or applicability is None or edit is None:
        return None
    return Fix(
        f"Reuse the graph of the gradient at line {ctx.line_of(first)} on every product: `retain_graph=True`",
        applicability,
        (edit,),
        workaround=0,
    )


def _recompute_in_closure(event: SecondPass, ctx: RuleContext, stale: list[int]) -> Fix | None:
    """The backward runs in a function nested where the stale values were built (L-BFGS's
    ``closure()`` reading a ``prediction`` computed before it): re-run their statements at the top
    of that function, so every call builds its own graph at the current parameters. L-BFGS calls the
    closure several times within one step, so recomputing in the loop around the step would not do."""
    backward = ctx.statement_of(event.site)
    closure = ctx.function_of(backward) if backward is not None else None
    outer = ctx.function_of(closure) if closure is not None else None
    if closure is None or not stale:
        return None
    statements: dict[int, ast.stmt] = {}
    for node_id in stale:
        made = [stmt for _, stmt in ctx.nodes[node_id].stmts if ctx.function_of(stmt) is outer]
        stmt = made[-1] if made else None
        if stmt is None or stmt.lineno >= closure.lineno or not ancestors_hold(ctx, stmt, closure):
            return None
        statements[stmt.lineno] = stmt
    ordered = [statements[line] for line in sorted(statements)]
    scope = outer if outer is not None else ctx.module
    handed_to_step = any(
        isinstance(call, ast.Call)
        and isinstance(call.func, ast.Attribute)
        and call.func.attr == "step"
        and any(isinstance(arg, ast.Name) and arg.id == closure.name for arg in call.args)
        for call in ast.walk(scope)
    )
    # An optimizer's ``step(closure)`` calls it to re-evaluate the loss at the parameters it tries:
    # recomputing inside is what the protocol asks for. Any other caller: not shown.
    applicability = recompute(ctx, ordered, Applicability.SAFE if handed_to_step else Applicability.UNSAFE)
    texts = [code_of_statement(ctx.source, stmt) for stmt in ordered]
    anchor = body_anchor(closure.body)
    if applicability is None or anchor is None or any(t is None for t in texts):
        return None
    edit = insert_lines_before(ctx.source, anchor, [t for t in texts if t is not None])
    if edit is None:
        return None
    deletions = _deletions(ctx, ordered, closure)
    names = ", ".join(dict.fromkeys(ctx.text(_target(stmt)) for stmt in ordered))
    verb = "Compute" if deletions else "Recompute"
    return Fix(
        f"{verb} `{names}` inside `{closure.name}()`, on every call",
        applicability,
        (*deletions, edit),
        workaround=2,
    )


def _deletions(ctx: RuleContext, moved: list[ast.stmt], loop: ast.stmt) -> list[Edit]:
    """Edits deleting the originals of ``moved`` when nothing but the loop (and they) reads the names
    they assign; none when anything else does (the fix then copies)."""
    assigned = {n.id for stmt in moved for n in ast.walk(_target(stmt)) if isinstance(n, ast.Name)}
    if not assigned or any(not isinstance(t, ast.Name) for stmt in moved for t in _targets(stmt)):
        return []
    scope = ctx.function_of(loop) or ctx.module
    inside = {id(n) for n in ast.walk(loop)} | {id(n) for stmt in moved for n in ast.walk(stmt)}
    if any(n.id in assigned for n in names_loaded(scope) if id(n) not in inside):
        return []
    edits = [delete_statement(ctx.source, stmt) for stmt in moved]
    if not all(edits):
        return []
    first, last = moved[0].lineno, moved[-1].end_lineno or moved[-1].lineno
    contiguous = all((a.end_lineno or a.lineno) + 1 == b.lineno for a, b in itertools.pairwise(moved))
    lines = ctx.source.lines
    if (
        contiguous
        and first > 1
        and last < len(lines)
        and not lines[first - 2].strip()
        and not lines[last].strip()
    ):
        # A paragraph of its own: its blank line goes with it, not two blank lines left behind.
        edits.append(Edit(Span(Position(last, 0), Position(last + 1, 0)), ""))
    return [e for e in edits if e is not None]


def _targets(stmt: ast.stmt) -> list[ast.expr]:
    if isinstance(stmt, ast.Assign):
        return list(stmt.targets)
    if isinstance(stmt, ast.AnnAssign):
        return [stmt.target]
    return []


def _target(stmt: ast.stmt) -> ast.AST:
    if isinstance(stmt, ast.Assign):
        return stmt.targets[0]
    if isinstance(stmt, ast.AnnAssign):
        return stmt.target
    return stmt


def _inline_init(event: SecondPass, ctx: RuleContext, stale: list[int]) -> Fix | None:
    """``self.w2 = self.w * 2`` in ``__init__`` (or a method it calls): use ``(self.w * 2)`` where
    ``self.w2`` is read, so every forward computes it from the current parameters."""
    edits: list[Edit] = []
    titles = []
    inlined: dict[int, Applicability] = {}
    covered = True
    for node_id in stale:
        stmt = ctx.nodes[node_id].stmt
        func = ctx.function_of(stmt) if stmt is not None else None
        cls = ctx.parents.get(func) if func is not None else None
        if func is None or not isinstance(cls, ast.ClassDef) or not isinstance(stmt, ast.Assign):
            covered = False
            continue  # not stored by a method of a class (``__init__``, or what it calls)
        if id(stmt) in inlined:
            continue
        target = stmt.targets[0]
        if not (
            is_self_attribute(target)
            and isinstance(func, ast.FunctionDef | ast.AsyncFunctionDef)
            and _movable(ctx, stmt, func)
        ):
            return None
        assert isinstance(target, ast.Attribute)
        inlined[id(stmt)] = inline_derived(ctx, stmt, cls)
        expression = f"({ctx.text(stmt.value)})"
        for use in ast.walk(cls) if cls is not None else ():
            if is_self_attribute(use, target.attr) and isinstance(use.ctx, ast.Load):  # type: ignore[attr-defined]
                edits.append(replace(ctx.source, use, expression))
        titles.append(f"self.{target.attr}")
    if not edits:
        return None
    # Safe only where it rebuilds every stale value, each one proven (fix_safety rule 8).
    safe = covered and all(a is Applicability.SAFE for a in inlined.values())
    return Fix(
        f"Compute `{', '.join(dict.fromkeys(titles))}` where it is used, on every call",
        Applicability.SAFE if safe else Applicability.UNSAFE,
        tuple(edits),
        workaround=2,
    )


def _detach_stale(event: SecondPass, ctx: RuleContext, stale: list[int]) -> Fix | None:
    """Values built once and only read by the loop (a rollout's old log-probs, a teacher's targets
    computed in ``__init__``), while the loss learns through a fresh forward pass: detach them
    where they are stored, or before the loop."""
    loop = event.loop
    if loop is None or not stale or not _learns_in_loop(event, ctx):
        return None
    shapes = {place.attribute: v for place, v in event.entry.items() if isinstance(place, Place)}
    stored = _detach_where_stored(ctx, stale, shapes)
    exposed = upward_exposed(list(getattr(loop.node, "body", [])))
    names = sorted(name for name in event.entry if isinstance(name, str) and name in exposed)
    differentiated = _differentiated_by(ctx, loop.node) if loop.node is not None else set()
    values = {n: event.entry[n] for n in names}
    before = _detach_before_loop(ctx, loop.node, values, differentiated) if names else None
    edits = [*stored, *([before] if before is not None else [])]
    assigned = {} if edits else _detach_where_assigned(ctx, event, stale)
    if not edits and not assigned:
        return None
    detached = [
        *(shapes.values() if stored else ()),
        *(values.values() if before is not None else ()),
        *(event.entry[n] for n in assigned),
    ]
    if cut_starves_training(ctx, event.site, event.reached, own_nodes(detached), loop.node):
        return None  # the loop's loss learns the parameters behind them through them alone
    restored = [v for n, v in values.items() if before is not None and n in differentiated]
    if not built_once_untrained(ctx, detached, restored) and only_added(
        ctx, event.reached, own_nodes(detached)
    ):
        return None  # a term of the loss (a penalty built once): detached, a constant that trains nothing
    applicability = detach_built_once(ctx, detached, restored, event.reached, event.free.tick)
    shown = sorted({f"`self.{a}`" for a in shapes} if stored else set()) + (
        [f"`{n}`" for n in names] if before is not None else []
    )
    shown += [f"`{n}`" for n in assigned]
    edits += assigned.values()
    return Fix(
        f"Detach {', '.join(shown)}, built once and only read by the loop (it learns through its own "
        "forward pass)",
        applicability,
        tuple(edits),
        workaround=3,
    )


def _detach_where_stored(ctx: RuleContext, stale: list[int], shapes: dict[str, Value]) -> list[Edit]:
    """``self.targets = f(...)`` -> ``self.targets = f(...).detach()`` where a stale node was stored."""
    edits: dict[int, Edit] = {}
    for node_id in stale:
        stmt = _storing_statement(ctx, node_id, shapes)
        if not isinstance(stmt, ast.Assign) or len(stmt.targets) != 1:
            continue
        target = stmt.targets[0]
        if isinstance(target, ast.Attribute) and is_self_attribute(target) and target.attr in shapes:
            atomic = isinstance(stmt.value, ast.Name | ast.Attribute | ast.Call | ast.Subscript)
            expression = detach_expression(ctx.text(stmt.value), shapes[target.attr], atomic=atomic)
            if expression is not None:
                edits[id(stmt)] = replace(ctx.source, stmt.value, expression)
    return list(edits.values())


def _storing_statement(ctx: RuleContext, node_id: int, shapes: dict[str, Value]) -> ast.stmt | None:
    """The statement that stores the value a stale node made into one of ``shapes``' attributes: the
    node's own (``self.targets = f(...)``), else the innermost statement on the call stack that
    made it that does (``self.mask_e = self.embedding(ids)``, where the node was made inside the
    embedding's ``forward``)."""
    node = ctx.nodes[node_id]
    for stmt in (node.stmt, *(s for _, s in reversed(node.stmts))):
        if (
            isinstance(stmt, ast.Assign)
            and len(stmt.targets) == 1
            and is_self_attribute(stmt.targets[0])
            and getattr(stmt.targets[0], "attr", None) in shapes
        ):
            return stmt
    return node.stmt


def _detach_where_assigned(ctx: RuleContext, event: SecondPass, stale: list[int]) -> dict[str, Edit]:
    """``Y = X @ true_w + true_b`` before the loop, where the value the loop reaches was made (a
    loader built from ``Y`` hands out its rows): ``Y = (X @ true_w + true_b).detach()`` there, by
    name, for each name that held, when the loop began, a tensor made by that very statement."""
    loop = event.loop
    if loop is None or loop.node is None:
        return {}
    edits: dict[str, Edit] = {}
    for name, value in event.entry.items():
        if not isinstance(name, str) or not isinstance(value, Tensor) or value.root not in stale:
            continue
        made = ctx.nodes[value.root]
        stmt = made.stmt_in(loop.frame) or (made.stmt if made.frame == loop.frame else None)
        if (
            not isinstance(stmt, ast.Assign)
            or [ctx.text(t) for t in stmt.targets] != [name]
            or not isinstance(stmt.targets[0], ast.Name)
            or stmt.lineno >= loop.node.lineno
            or not ancestors_hold(ctx, stmt, loop.node)
        ):
            continue
        atomic = isinstance(stmt.value, ast.Name | ast.Attribute | ast.Call | ast.Subscript)
        expression = detach_expression(ctx.text(stmt.value), value, atomic=atomic)
        if expression is not None:
            edits[name] = replace(ctx.source, stmt.value, expression)
    return edits


def _detach_before_loop(
    ctx: RuleContext, loop: ast.stmt | None, values: dict[str, Value], differentiated: set[str]
) -> Edit | None:
    """``old_log_probs = old_log_probs.detach()`` above the loop, for each of ``values``."""
    if loop is None:
        return None
    lines = [_detach_line(name, value, name in differentiated) for name, value in values.items()]
    if not lines or not all(lines):
        return None
    return insert_lines_before(ctx.source, loop, [line for line in lines if line])


def _learns_in_loop(event: SecondPass, ctx: RuleContext) -> bool:
    key = event.loop.key if event.loop else None
    return any(ctx.nodes[n].learns and any(k == key for k, _ in ctx.nodes[n].loops) for n in event.reached)


def _detach_line(name: str, value: Value, differentiated: bool = False) -> str | None:
    """``name = name.detach()``; a tensor the loop takes gradients with respect to (a PINN's
    collocation times, handed to ``autograd.grad`` as its inputs) stays one that requires grad."""
    if differentiated and isinstance(value, Tensor):
        return f"{name} = {name}.detach().requires_grad_()"
    expression = detach_expression(name, value)
    return f"{name} = {expression}" if expression is not None else None


def _differentiated_by(ctx: RuleContext, loop: ast.stmt) -> set[str]:
    """The names ``torch.autograd.grad`` calls in ``loop`` take gradients with respect to."""
    found: set[str] = set()
    for call in ast.walk(loop):
        if not isinstance(call, ast.Call) or not is_autograd_grad(ctx, call):
            continue
        inputs = [kw.value for kw in call.keywords if kw.arg == "inputs"] + call.args[1:2]
        found |= {n.id for arg in inputs for n in ast.walk(arg) if isinstance(n, ast.Name)}
    return found


def _movable(ctx: RuleContext, stmt: ast.Assign, method: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """``stmt``'s value reads the same objects wherever a method of its class computes it: it
    reads no name but the method's ``self`` (its first parameter), names that only one import of
    the module's top level binds, builtins the module leaves alone, and names bound inside the
    expression itself (a comprehension's variable); it binds no name of the method (``:=``)."""
    expr = stmt.value
    parameters = [*method.args.posonlyargs, *method.args.args]
    if not parameters or parameters[0].arg != "self":
        return False
    free = _free_names(expr)
    if free is None or any(isinstance(node, ast.NamedExpr) for node in ast.walk(expr)):
        return False
    imported = imported_once(ctx.module)
    return all(name == "self" or name in imported or builtin_unshadowed(name, ctx.module) for name in free)


def _free_names(expr: ast.expr) -> set[str] | None:
    """The names ``expr`` reads from the scope it runs in: not those its own comprehensions and
    lambdas bind around the read (``x`` in ``x + sum(x for x in xs)`` is read free once), as
    Python's compiler resolves them (``symtable``); None where it is no expression on its own
    (``await``, ``yield``)."""
    try:
        pending = [symtable.symtable(ast.unparse(expr), "<expression>", "eval")]
    except (SyntaxError, ValueError, RecursionError):
        return None
    free: set[str] = set()
    while pending:
        table = pending.pop()
        free |= {s.get_name() for s in table.get_symbols() if s.is_referenced() and s.is_global()}
        pending += table.get_children()
    return free
