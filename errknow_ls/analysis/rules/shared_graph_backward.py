"""## shared-graph-backward (EK004)

### What it does
Flags the second of two backwards whose losses share part of their graph (not only parameters):
multi-task or auxiliary losses on a shared trunk, actor and critic losses on a shared body, or a
GAN whose discriminator loss uses the generator's output without `.detach()` before the
generator step backwards through it again. That includes the last iteration of a loop and a loss
after it: a graph made and freed on the loop's last iteration (the critic loop's last fakes) that a
loss after the loop reaches again is shared by those two losses, not carried into an iteration.

### Why is this bad?
The first backward frees the saved tensors of the shared part; the second raises
`RuntimeError: Trying to backward through the graph a second time`.

### Example
```python
features = encoder(x)
loss_cls = criterion(classifier(features), labels)
loss_rec = mse(decoder(features), x)
loss_cls.backward()
loss_rec.backward()
```

### Use instead
```python
features = encoder(x)
loss_cls = criterion(classifier(features), labels)
loss_rec = mse(decoder(features), x)
(loss_cls + loss_rec).backward()
```

### Fix safety
Summing the losses (or what was backwarded, such as `scaler.scale(loss)` or `alpha * ce`) into
one backward is
safe where each learns through a part of its own (two heads on a trunk), neither does, or the one
without a part of its own learns only through what the other's own part is computed from (a VAE's
KL term, or a penalty on the code a decoder reads): the gradients are the same as those of two
backwards. Where one learns only through a value the other combines with its own part's output
(a critic's values weighting an actor's log-probabilities), that value may be a baseline the
program means to detach: the sum is unsafe. Detaching the shared tensor in the
first loss is safe in a GAN's discriminator step (an optimizer step sits between the two
backwards, built over other modules than the one that made the tensor) and unsafe elsewhere,
since it stops the first loss's gradient at the shared part. Where the optimizer stepped between
the two backwards is built over the module that made the shared tensor (a generator updated
first), it is detached in the second loss instead, safely when that loss's optimizer is shown not
to own the module (`optim_d = Adam(net_d.parameters())`); recomputing it would hand the second
loss another batch and is unsafe. The order of the fixes follows the same evidence, never a
variable's name.
Where two optimizers each step after their own loss and both losses were built by one forward pass
(an actor-critic on a shared body), summing the losses, backwarding once and then stepping each
optimizer comes first; it is unsafe, and so are recomputing the second loss after the first step
and detaching the shared part in the first loss (that optimizer may own it). The sum is not offered
where the second optimizer clears, between the two backwards, gradients the first loss sends to
its parameters (a GAN's discriminator loss reaching the generator through the fakes, then
`opt_g.zero_grad()`): summed, they would reach its step too, and may cancel. A value made in a loop
that has ended (the critic loop's last fakes) is recomputed before the second backward from what
its names hold then (unsafe: the noise drawn for the generator step). Where the program itself
already recomputed the shared value after the first backward, by the very expression that made it,
into a name nothing reads (`gen_imgs = generator(torch.randn(n, d))` beside the critic loop's
`fake_imgs`), the second loss reads that name instead, safely: nothing is re-run and every gradient
is kept; this comes first.
Where the second loss reads the shared part through a value it computed before the first backward
(`advantage = reward - value`, backwarded for the critic and then weighting the policy's surrogate),
that value is detached where the second loss reads it after the first backward. A detach in the
second loss is safe too where the gradient it stops is never applied: after every run of the
second backward, each step that changes a parameter the cut part reads (the critic's) comes after
an optimizer's `zero_grad()` that cleared it (the critic's own clear before its next step), and
nothing else reads that gradient.
Where the second loss's optimizer owns the module whose output the second loss reads from the freed
graph (a value model regressed on an imagined rollout's states, `values = value(states)`, after the
actor's backward through the returns), that module is run again in the second loss on its input
detached (`value(states.detach())`), and every other value of the freed graph it reads is detached
there (`returns.detach()`): the value model is fitted on the rollout as inputs and targets. Unsafe:
the gradient the second loss would send through its targets is gone; not offered where a step
between the two backwards changed that module.
`retain_graph=True` on the first backward is offered only where nothing stepped between
the two backwards or every step between changed only parameters the second loss's graph does not
read (an actor's optimizer stepped before the critic's loss, whose graph never reads the actor;
decided by which constructor call made each module, never by its name): otherwise the step
modifies tensors the second backward needs. It is safe where the two are different losses whose
sum would be safe, the first pass is a `.backward()` and no code the checker does not follow was
handed what the second graph reads: the kept graph sends exactly the gradients the program wrote
(a TD3 actor's loss before the critic's, a quantiser's codebook loss before the main loss);
unsafe otherwise.

### References
- [DCGAN example, `fake.detach()`](https://github.com/pytorch/examples/blob/main/dcgan/main.py)
- [Autograd mechanics](https://pytorch.org/docs/stable/notes/autograd.html)
"""

from __future__ import annotations

import ast
import dataclasses

from errknow_ls.analysis.events import Observation, SecondPass
from errknow_ls.analysis.fixes import delete_statement, insert_lines_before, replace
from errknow_ls.analysis.rules.common_fixes import (
    differentiable_grad,
    read_recomputed,
    recompute_before,
    retain_first,
    statements_feeding,
    steps_between,
    steps_spare_second_pass,
    updates_in_place,
)
from errknow_ls.analysis.rules.context import RuleContext, names_loaded
from errknow_ls.analysis.rules.fix_safety import (
    clears_first_gradient,
    detach_in_first,
    detach_in_second,
    detach_unapplied,
    forward_only,
    optimizer_trains,
    owned_by,
    retain_for_second_loss,
    sum_losses,
)
from errknow_ls.analysis.source import called_names
from errknow_ls.core import Applicability, Edit, Finding, Fix

CODE = "EK004"


def claims(event: Observation) -> bool:
    """Another tensor whose graph shares the freed part, neither carried across iterations nor built
    before a loop whose iterations each backward it."""
    if not isinstance(event, SecondPass):
        return False
    if event.same_tensor or event.carried_over:
        return False
    return event.loop is None or event.loop_walks_tensors


BLOCKING_CALLS = frozenset({"step", "zero_grad", "backward", "grad", "clip_grad_norm_", "clip_grad_value_"})


def build(event: SecondPass, ctx: RuleContext) -> Finding:
    tensor = ctx.text(event.receiver)
    first = event.free.site
    shared = _shared_variable(event, ctx)
    through = f" through `{shared[0]}`" if shared else ""
    message = (
        f"`{tensor}` shares a graph{through} with `{event.free.label}`, whose backward at line "
        f"{ctx.line_of(first)} already freed it"
    )
    stepped = steps_between(ctx, event)
    step_each = _sum_then_step_each(event, ctx) if stepped else None
    first_trains, second_trains = _optimizers_train_shared(event, ctx, shared)
    # Two optimizers, each stepping after its own loss's backward, both losses computed from one
    # forward pass: recomputing the second after the first optimizer stepped changes what the
    # second learns from; summing them and stepping each after one backward is what they mean.
    # Where the optimizer stepped between the passes trains what made the shared value and the
    # second's does not (a generator updated first, then the discriminator on the same batch), a
    # recompute would hand the second loss another batch than the program's.
    fresh_input = first_trains is True and second_trains is False
    recompute = recompute_before(
        event,
        ctx,
        Applicability.SAFE if stepped and step_each is None and not fresh_input else Applicability.UNSAFE,
        as_retained=not stepped,
    )
    detach = _detach(event, ctx, shared, first_trains, second_trains)
    if step_each is not None and detach is not None:
        # Both losses were built before the first optimizer stepped, which may own the shared part:
        # cut out of the first loss, that part would stop learning from it.
        detach = dataclasses.replace(detach, applicability=Applicability.UNSAFE)
    # A safe detach comes first where the optimizers show that the loss it is cut from does not
    # train what made the shared value (it reads it as an input); otherwise a recompute, which
    # keeps every gradient, comes first.
    shown_input = first_trains is False or fresh_input
    safe_detach = detach is not None and detach.applicability is Applicability.SAFE
    ordered = [detach, recompute] if safe_detach and shown_input else [recompute, detach]
    spared = not stepped or steps_spare_second_pass(ctx, event)
    retain = retain_first(event, ctx, retain_for_second_loss(ctx, event, steps_spared=spared))
    grad = differentiable_grad(event, ctx)
    # A first pass that takes gradients for a penalty (R1, forces) is meant to be differentiated:
    # keeping its graph differentiable comes before keeping it as it is.
    kept = [grad, retain] if grad is not None else [retain]
    refit = _refit_on_detached_inputs(event, ctx, shared)
    if refit is not None:
        # The second optimizer's own module is run again on the shared values as inputs: the
        # second loss keeps learning through its own part, with no other fix left to hold.
        ordered = [*ordered, refit]
    own = read_recomputed(event, ctx, shared)
    if own is not None:
        # The program already recomputed the shared value for the second loss: reading it is
        # what the second loss was written for, and comes before every other fix.
        ordered = [own, *ordered]
    summed = [step_each, _sum(event, ctx), _sum_loop(event, ctx)]
    if detach is not None and not stepped and sum_losses(ctx, event) is Applicability.UNSAFE:
        # One loss learns only through what the other uses as a baseline or target: detaching it
        # in the other comes before summing.
        ordered = [detach, recompute]
        candidates = [*ordered, *summed, *kept]
    else:
        candidates = [*summed, *ordered, *kept]
    fixes = [f for f in candidates if f is not None]
    related = [ctx.related(first, f"`{event.free.label}`'s backward frees the shared graph here")]
    if shared:
        built = (
            "`parametrize.cached()` gives back here the tensor the first loss was built from"
            if shared[1] in ctx.cached_reads
            else "the shared part of the graph is built here"
        )
        related.append(ctx.related(shared[1], built))
    return ctx.finding(CODE, event.report, message, fixes, related, tensor)


def _plain_backward(ctx: RuleContext, call: ast.Call) -> ast.Expr | None:
    stmt = ctx.statement_of(call)
    plain = (
        isinstance(call.func, ast.Attribute)
        and call.func.attr == "backward"
        and not call.args
        and not call.keywords
        and _plain_operand(call.func.value)
    )
    return stmt if plain and isinstance(stmt, ast.Expr) and stmt.value is call else None


def _plain_operand(expr: ast.expr) -> bool:
    """``loss``, ``self.loss``, a wrapper of one such as ``scaler.scale(loss)``, or a weighted one
    (``alpha * ce``, ``(1 - alpha) * mse``: a product or quotient of such operands and numbers),
    or a sum of those (``lambda_c * l_c + lambda_z * l_z``): what a sum keeps as it is."""
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Mult | ast.Div):
        return all(_plain_operand(side) or _weight(side) for side in (expr.left, expr.right))
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add):
        return _plain_operand(expr.left) and _plain_operand(expr.right)
    if isinstance(expr, ast.Call):
        simple = all(isinstance(a, ast.Name | ast.Attribute | ast.Constant) for a in expr.args)
        return simple and not expr.keywords and isinstance(expr.func, ast.Name | ast.Attribute)
    return isinstance(expr, ast.Name | ast.Attribute)


def _weight(expr: ast.expr) -> bool:
    """A number, a name, or sums, differences and products of them (``1 - alpha``)."""
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add | ast.Sub | ast.Mult | ast.Div):
        return _weight(expr.left) and _weight(expr.right)
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.USub):
        return _weight(expr.operand)
    return isinstance(expr, ast.Constant | ast.Name | ast.Attribute)


def _between(ctx: RuleContext, first: ast.stmt, second: ast.stmt) -> list[ast.stmt] | None:
    block = ctx.block_of(first)
    if block is None or not any(s is second for s in block):
        return None
    start = next(i for i, s in enumerate(block) if s is first)
    end = next(i for i, s in enumerate(block) if s is second)
    return block[start + 1 : end] if start < end else None


def _sum(event: SecondPass, ctx: RuleContext) -> Fix | None:
    """``a.backward(); ...; b.backward()`` -> ``...; (a + b).backward()``."""
    first_stmt = _plain_backward(ctx, event.free.site)
    second_stmt = _plain_backward(ctx, event.site)
    if first_stmt is None or second_stmt is None or event.report is not event.site:
        return None
    between = _between(ctx, first_stmt, second_stmt)
    if between is None or called_names(*between) & BLOCKING_CALLS:
        return None
    if event.stepped_between or updates_in_place(ctx, between):
        return None  # what runs between changes tensors in place (SAM's first_step, by the gradient)
    first_expr = event.free.site.func.value  # type: ignore[attr-defined]
    reassigned = {
        n.id for s in between for n in ast.walk(s) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
    }
    if {n.id for n in names_loaded(first_expr)} & reassigned:
        return None
    second_expr = event.site.func.value  # type: ignore[attr-defined]
    delete = delete_statement(ctx.source, first_stmt)
    if delete is None:
        return None
    total = f"({ctx.text(first_expr)} + {ctx.text(second_expr)})"
    return Fix(
        f"Sum the losses and backward once: `{total}.backward()`",
        sum_losses(ctx, event),
        (delete, _replaced_by_sum(ctx, second_expr, total)),
        workaround=1,
    )


def _replaced_by_sum(ctx: RuleContext, second: ast.expr, total: str) -> Edit:
    """``second`` replaced by the parenthesised ``total``; a weighted loss (``(w * loss)``) is
    already in parentheses in the source, which stay: the sum goes inside them."""
    return replace(ctx.source, second, total[1:-1] if isinstance(second, ast.BinOp) else total)


def _sum_then_step_each(event: SecondPass, ctx: RuleContext) -> Fix | None:
    """``a.backward(); opt_a.step(); opt_b.zero_grad(); b.backward(); opt_b.step()`` with two
    different optimizers -> ``opt_b.zero_grad(); (a + b).backward(); opt_a.step(); opt_b.step()``:
    one backward, then each optimizer steps its own parameters (unsafe: the shared part now also
    gets the second loss's gradient). Not offered where the second optimizer clears, between the two
    backwards, gradients the first loss sends to its parameters (:func:`clears_first_gradient`)."""
    first_stmt = _plain_backward(ctx, event.free.site)
    second_stmt = _plain_backward(ctx, event.site)
    if first_stmt is None or second_stmt is None or event.report is not event.site:
        return None
    between = _between(ctx, first_stmt, second_stmt)
    block = ctx.block_of(second_stmt)
    if between is None or block is None:
        return None
    steps = [s for s in between if _optimizer_call(s, "step")]
    if len(steps) != 1 or any(s is not steps[0] and not _optimizer_call(s, "zero_grad") for s in between):
        return None  # only the first optimizer's step and zero_grad calls stand between
    after = block[block.index(second_stmt) + 1 :]
    later = next((s for s in after if _optimizer_call(s, "step")), None)
    first_opt, second_opt = _receiver(ctx, steps[0]), _receiver(ctx, later)
    if later is None or first_opt is None or second_opt is None or first_opt == second_opt:
        return None
    if clears_first_gradient(ctx, event, second_opt, between):
        return None
    first_expr = event.free.site.func.value  # type: ignore[attr-defined]
    second_expr = event.site.func.value  # type: ignore[attr-defined]
    total = f"({ctx.text(first_expr)} + {ctx.text(second_expr)})"
    edits = [
        delete_statement(ctx.source, first_stmt),
        delete_statement(ctx.source, steps[0]),
        _replaced_by_sum(ctx, second_expr, total),
        insert_lines_before(ctx.source, after[0], [f"{first_opt}.step()"]),
    ]
    if any(e is None for e in edits):
        return None
    return Fix(
        f"Sum the losses, backward once, then step `{first_opt}` and `{second_opt}`",
        Applicability.UNSAFE,
        tuple(e for e in edits if e is not None),
        workaround=1,
    )


def _optimizer_call(stmt: ast.stmt, method: str) -> bool:
    """``stmt`` is only ``<something>.<method>()``."""
    return (
        isinstance(stmt, ast.Expr)
        and isinstance(stmt.value, ast.Call)
        and isinstance(stmt.value.func, ast.Attribute)
        and stmt.value.func.attr == method
        and not stmt.value.args
        and not stmt.value.keywords
    )


def _receiver(ctx: RuleContext, stmt: ast.stmt | None) -> str | None:
    if not isinstance(stmt, ast.Expr) or not isinstance(stmt.value, ast.Call):
        return None
    func = stmt.value.func
    return ctx.text(func.value) if isinstance(func, ast.Attribute) else None


def _sum_loop(event: SecondPass, ctx: RuleContext) -> Fix | None:
    """``for loss in losses: loss.backward()`` -> ``sum(loss for loss in losses).backward()``."""
    call = event.site
    stmt = ctx.statement_of(call) if event.report is call else None
    plain = (
        isinstance(call.func, ast.Attribute)
        and call.func.attr == "backward"
        and not (call.args or call.keywords)
    )
    if not plain or not isinstance(stmt, ast.Expr) or stmt.value is not call:
        return None
    loop = ctx.parents.get(stmt)
    if not isinstance(loop, ast.For) or loop.body != [stmt] or loop.orelse or stmt is None:
        return None
    if not ctx.source.starts_line(loop):
        return None
    assert isinstance(call.func, ast.Attribute)
    total = (
        f"sum({ctx.text(call.func.value)} for {ctx.text(loop.target)} in {ctx.text(loop.iter)}).backward()"
    )
    return Fix(
        "Sum the losses and backward once",
        sum_losses(ctx, event),
        (replace(ctx.source, loop, total),),
        workaround=1,
    )


def _shared_variable(event: SecondPass, ctx: RuleContext) -> tuple[str, ast.AST] | None:
    """The newest variable assignment that made a freed node both passes reach (``fake =
    netG(noise)``), else one that made a node above them both reach (``values =
    torch.stack(values)`` over a critic's outputs, which saves nothing itself)."""
    return (
        _cached_read(event, ctx)
        or _assigned(event, ctx, event.conflict)
        or _assigned(event, ctx, (event.reached & event.free.reached) - event.conflict)
    )


def _cached_read(event: SecondPass, ctx: RuleContext) -> tuple[str, ast.AST] | None:
    """A read of a parametrized tensor (``model.coupling.weight``) that ``parametrize.cached()``
    answered with the tensor the first pass backwarded, between the two passes."""
    first, second = ctx.line_of(event.free.site), ctx.line_of(event.report)
    function = ctx.function_of(event.report)
    for read, nodes in ctx.cached_reads.items():
        if (
            nodes & event.conflict
            and first < ctx.line_of(read) <= second
            and ctx.function_of(read) is function
        ):
            return ctx.text(read), read
    return None


def _assigned(event: SecondPass, ctx: RuleContext, nodes: frozenset[int]) -> tuple[str, ast.AST] | None:
    for node_id in sorted(nodes, reverse=True):
        node = ctx.nodes[node_id]
        stmt = node.stmt_in(event.frame) or node.stmt  # the statement of the backward's own frame
        if not isinstance(stmt, ast.Assign) or len(stmt.targets) != 1:
            continue
        target = stmt.targets[0]
        if ctx.function_of(stmt) is not ctx.function_of(event.free.site):
            continue
        if isinstance(target, ast.Name):
            return target.id, stmt
        if isinstance(target, ast.Tuple):  # ``action, log_pi = actor(obs)``: the item both losses read
            made = _item_made(target, stmt.value, node.site)
            if made is not None:
                return made, stmt
            both = _read_by_both(event, ctx, [e.id for e in target.elts if isinstance(e, ast.Name)])
            if len(both) == 1:
                return both[0], stmt
    return None


def _item_made(target: ast.Tuple, value: ast.expr, site: ast.expr) -> str | None:
    """``returns, values = torch.tensor(returns), torch.stack(values)``: the name that receives the
    item whose expression made the shared node (``values``), when each item is assigned its own."""
    if not isinstance(value, ast.Tuple) or len(value.elts) != len(target.elts):
        return None
    for name, item in zip(target.elts, value.elts, strict=True):
        if isinstance(name, ast.Name) and any(n is site for n in ast.walk(item)):
            return name.id
    return None


def _read_by_both(event: SecondPass, ctx: RuleContext, names: list[str]) -> list[str]:
    """Those of ``names`` that statements making each loss's own part of the graph read."""

    def readers(nodes: frozenset[int]) -> set[str]:
        stmts = {
            s for n in nodes if (s := ctx.nodes[n].stmt_in(event.frame) or ctx.nodes[n].stmt) is not None
        }
        return {n.id for s in stmts for n in names_loaded(s)}

    first = readers(event.free.reached - event.reached)
    second = readers(event.reached - event.free.reached)
    return [name for name in names if name in first and name in second]


def _optimizers_train_shared(
    event: SecondPass, ctx: RuleContext, shared: tuple[str, ast.AST] | None
) -> tuple[bool | None, bool | None]:
    """Whether the optimizer that steps between the two passes, and the one that steps after the
    second, were built over the module that made the shared value (None where not shown)."""
    first_stmt, second_stmt = ctx.statement_of(event.free.site), ctx.statement_of(event.site)
    if shared is None or first_stmt is None or second_stmt is None:
        return None, None
    between = _between(ctx, first_stmt, second_stmt) or []
    block = ctx.block_of(second_stmt) or []
    after = block[block.index(second_stmt) + 1 :] if second_stmt in block else []
    first_opt = _receiver(ctx, next((s for s in between if _optimizer_call(s, "step")), None))
    second_opt = _receiver(ctx, next((s for s in after if _optimizer_call(s, "step")), None))
    scope = ctx.function_of(first_stmt) or ctx.module
    made = shared[1]
    return optimizer_trains(ctx, first_opt, made, scope), optimizer_trains(ctx, second_opt, made, scope)


def _detach(
    event: SecondPass,
    ctx: RuleContext,
    shared: tuple[str, ast.AST] | None,
    first_trains: bool | None,
    second_trains: bool | None,
) -> Fix | None:
    """Use ``fake.detach()`` in the statements between ``fake = ...`` and the first backward."""
    if shared is None:
        return None
    name, made = shared
    first_line = ctx.line_of(event.free.site)
    made_end = int(getattr(made, "end_lineno", 0))
    func = ctx.function_of(event.free.site)
    scope = func if func is not None else ctx.module
    feeding = statements_feeding(event, ctx, event.free.reached - event.reached)
    edits: list[Edit] = []
    for use in names_loaded(scope):
        if use.id != name or not made_end < use.lineno < first_line or _is_detached(ctx, use):
            continue
        if id(ctx.statement_of(use)) in feeding:
            edits.append(replace(ctx.source, use, f"{name}.detach()"))
    second_stmt = ctx.statement_of(event.site)
    first_stmt = ctx.statement_of(event.free.site)
    steps = False
    if first_stmt is not None and second_stmt is not None:
        between = _between(ctx, first_stmt, second_stmt)
        steps = between is not None and "step" in called_names(*between)
    applicability = detach_in_first(ctx, event, steps_between=steps, trains_shared=first_trains)
    if applicability is None:
        for candidate in [shared, *_read_again_after_first(event, ctx, scope, name)]:
            trains = (
                second_trains if candidate is shared else _optimizers_train_shared(event, ctx, candidate)[1]
            )
            later = detach_in_second(ctx, event, steps_between=steps, trains_shared=trains)
            if later is not Applicability.SAFE and detach_unapplied(ctx, event, candidate[1]):
                later = Applicability.SAFE  # what the cut stops is cleared before any step
            fix = _detach_in_second(event, ctx, candidate[0], scope, later)
            if fix is not None:
                return fix
        return None
    if not edits:
        return None
    return Fix(
        f"Detach `{name}` in the first loss (`{name}.detach()`)",
        applicability,
        tuple(edits),
        workaround=3,
    )


def _read_again_after_first(
    event: SecondPass, ctx: RuleContext, scope: ast.AST, shared_name: str
) -> list[tuple[str, ast.AST]]:
    """Other variables both passes go through (``advantage = reward - value`` over the critic's
    ``value``), newest first, that the function does not assign again between the two backwards: a
    read of one after the first backward is a read of the value both graphs share."""
    first_line, report_line = ctx.line_of(event.free.site), ctx.line_of(event.report)
    stored_between = {
        n.id
        for n in ast.walk(scope)
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and first_line < n.lineno <= report_line
    }
    found: dict[str, ast.AST] = {}
    for node_id in sorted(event.reached & event.free.reached, reverse=True):
        stmt = ctx.nodes[node_id].stmt_in(event.frame) or ctx.nodes[node_id].stmt
        if not isinstance(stmt, ast.Assign) or len(stmt.targets) != 1:
            continue
        if (ctx.function_of(stmt) or ctx.module) is not scope:
            continue
        target = stmt.targets[0]
        if (
            isinstance(target, ast.Name)
            and target.id not in (shared_name, *stored_between)
            and stmt.lineno < first_line
        ):
            found.setdefault(target.id, stmt)
    return list(found.items())


def _detach_in_second(
    event: SecondPass, ctx: RuleContext, name: str, scope: ast.AST, applicability: Applicability
) -> Fix | None:
    """The first loss learns only through ``name`` (a critic's own loss on its ``baseline``), or its
    optimizer trains what made ``name`` (a generator updated first): the second uses it as a
    baseline, a target or an input, so it is detached there (:func:`detach_in_second`)."""
    first_line, report_line = ctx.line_of(event.free.site), ctx.line_of(event.report)
    feeding = statements_feeding(event, ctx, event.reached - event.free.reached)
    edits = [
        replace(ctx.source, use, f"{name}.detach()")
        for use in names_loaded(scope)
        if use.id == name
        and first_line < use.lineno <= report_line
        and not _is_detached(ctx, use)
        and id(ctx.statement_of(use)) in feeding
    ]
    if not edits:
        return None
    return Fix(
        f"Detach `{name}` where the second loss uses it (`{name}.detach()`)",
        applicability,
        tuple(edits),
        workaround=3,
    )


def _is_detached(ctx: RuleContext, use: ast.Name) -> bool:
    parent = ctx.parents.get(use)
    return isinstance(parent, ast.Attribute) and parent.attr in ("detach", "data", "item")


def _refit_on_detached_inputs(
    event: SecondPass, ctx: RuleContext, shared: tuple[str, ast.AST] | None
) -> Fix | None:
    """The second loss reads, after the first backward, values of the freed graph (a value model's
    ``values`` and the ``returns`` an actor's loss was built from): where one of them is the output
    of a module the second loss's optimizer owns (``values = value(states).squeeze(-1)``), computed
    by a pure forward statement (rule 2) whose module no step between changed, the second loss
    computes it again there from that module's inputs detached (``value(states.detach())``), and
    reads every other such value detached (``returns.detach()``): the value model is fitted on the
    shared values as inputs and targets. Unsafe: the gradient the second loss would send through
    the shared part (into its targets) is gone."""
    first_stmt, second_stmt = ctx.statement_of(event.free.site), ctx.statement_of(event.site)
    if shared is None or first_stmt is None or second_stmt is None or event.report is not event.site:
        return None
    scope = ctx.function_of(event.free.site) or ctx.module
    block = ctx.block_of(second_stmt) or []
    after = block[block.index(second_stmt) + 1 :] if second_stmt in block else []
    between = _between(ctx, first_stmt, second_stmt)
    second_opt = _receiver(ctx, next((s for s in after if _optimizer_call(s, "step")), None))
    if between is None or second_opt is None:
        return None
    owned = owned_by(ctx, second_opt, scope)
    stepped = [_receiver(ctx, s) for s in between if _optimizer_call(s, "step")]
    candidates = [shared, *_read_again_after_first(event, ctx, scope, shared[0])]
    read = _read_by_second(event, ctx, scope, candidates)
    if owned is None or not read or any(opt is None for opt in stepped):
        return None
    refits = {
        name: refit
        for name, made in read
        if (refit := _own_module_output(ctx, made, owned, [o for o in stepped if o is not None], scope))
    }
    texts = {name: refits.get(name, f"{name}.detach()") for name, _ in read}
    if not refits or _changed_between(ctx, [made for _, made in read], between):
        return None
    feeding = statements_feeding(event, ctx, event.reached - event.free.reached)
    first_line, report_line = ctx.line_of(event.free.site), ctx.line_of(event.report)
    edits = [
        replace(ctx.source, use, texts[use.id])
        for use in names_loaded(scope)
        if use.id in texts
        and first_line < use.lineno <= report_line
        and id(ctx.statement_of(use)) in feeding
        and not _is_detached(ctx, use)
    ]
    if not edits:
        return None
    detached_names = [f"`{name}`" for name in texts if name not in refits]
    title = f"Compute {', '.join(f'`{n}`' for n in refits)} again from detached inputs in the second loss"
    title += f" and detach {', '.join(detached_names)} there" if detached_names else ""
    return Fix(title, Applicability.UNSAFE, tuple(edits), workaround=3)


def _read_by_second(
    event: SecondPass, ctx: RuleContext, scope: ast.AST, candidates: list[tuple[str, ast.AST]]
) -> list[tuple[str, ast.AST]]:
    """Those of ``candidates`` (names of the shared graph and their assignments) that a statement
    making the second loss's own part reads after the first backward."""
    feeding = statements_feeding(event, ctx, event.reached - event.free.reached)
    first_line, report_line = ctx.line_of(event.free.site), ctx.line_of(event.report)
    loaded = {
        use.id
        for use in names_loaded(scope)
        if first_line < use.lineno <= report_line and id(ctx.statement_of(use)) in feeding
    }
    return [(name, made) for name, made in dict(candidates).items() if name in loaded]


def _own_module_output(
    ctx: RuleContext, made: ast.AST, owned: frozenset[int], stepped: list[str], scope: ast.AST
) -> str | None:
    """``made`` (``values = value(states).squeeze(-1)``) computes, by a pure forward statement, the
    output of a module whose parameters the optimizer owning ``owned`` owns and no optimizer in
    ``stepped`` trains, from one tensor argument: its value expression with that argument detached
    where its graph reaches parameters (``value(states.detach()).squeeze(-1)``)."""
    if not isinstance(made, ast.Assign) or not forward_only(ctx, made):
        return None
    made_here = [
        node
        for node in ctx.nodes
        if isinstance(node.site, ast.Call)
        and any(node.site is n for n in ast.walk(made.value))
        and node.learns
        and node.origins is not None
        and ctx.ownership.linked(node.origins) & owned
    ]
    sites = {id(node.site): node.site for node in made_here}
    call = next(iter(sites.values())) if len(sites) == 1 else None
    if not isinstance(call, ast.Call) or len(call.args) != 1 or call.keywords:
        return None  # not one call of the module, on one argument
    module = ctx.ownership.linked(frozenset().union(*(node.origins or frozenset() for node in made_here)))
    for opt in stepped:
        changed = owned_by(ctx, opt, scope)
        if changed is None or changed & module:
            return None  # a step between changed the module the statement would run again
    argument = call.args[0]
    if not isinstance(argument, ast.Name | ast.Attribute):
        return None
    whole, span = ctx.source.span(made.value), ctx.source.span(argument)
    text = ctx.source.segment(made.value)
    if not text or whole.start.line != whole.end.line:
        return None  # written over several lines: not copied into another expression
    if not any(node.below for node in made_here):
        return text  # its input has no graph: the module's own call is what is computed again
    start = whole.start
    offset = span.start.character - start.character
    length = span.end.character - span.start.character
    return f"{text[:offset]}{text[offset : offset + length]}.detach(){text[offset + length :]}"


def _changed_between(ctx: RuleContext, made: list[ast.AST], between: list[ast.stmt]) -> bool:
    """A statement between the two backwards stores a name one of the ``made`` statements reads."""
    read = {n.id for stmt in made for n in names_loaded(stmt)}
    return any(
        isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and n.id in read
        for stmt in between
        for n in ast.walk(stmt)
    )
