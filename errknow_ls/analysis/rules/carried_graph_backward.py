"""## carried-graph-backward (EK003)

### What it does
Flags a backward that reaches graph nodes made in an earlier iteration of a loop (or an earlier
call of a training-step method) and carried into this one: an RNN hidden state fed back without
`.detach()` (tuples `(h, c)` too), a running total `total = total + loss`, outputs or losses kept
in a list (by the loop, or by a forward hook), state kept on `self` between steps. State an
object keeps on itself between calls of its method is reported at the backward in that method.

### Why is this bad?
The earlier iteration's backward freed that part of the graph. This iteration's backward goes
back through it and raises `RuntimeError: Trying to backward through the graph a second time`.
With `retain_graph=True` it runs, but the graph and its memory grow with every step.

### Example
```python
hidden = model.init_hidden(batch_size)
for inputs, targets in batches:
    output, hidden = model(inputs, hidden)
    loss = criterion(output, targets)
    loss.backward()
```

### Use instead
```python
hidden = model.init_hidden(batch_size)
for inputs, targets in batches:
    hidden = hidden.detach()
    output, hidden = model(inputs, hidden)
    loss = criterion(output, targets)
    loss.backward()
```

### Fix safety
Detaching a carried tensor (or tuple of tensors) at the top of each iteration (or call of a
training-step method) is safe where it is computed from itself, directly or through a name the
step computed from it (`out, h = rnn(x, self.state)` then `self.state = h`): it is truncated
backpropagation through time, the standard idiom; where the backward runs on some
iterations only (every k time steps) the state is detached right after it instead. Storing state
detached where an object's own method stores it (`self.center = ...`, a memory bank's
`self.bank[idx] = z`) is safe too, except what a step stores and reads back in the same step (a KV
cache's slots) and a memo filled once (`if key not in self._memo:`), which is emptied at the start
of each iteration instead (unsafe), and a state updated from itself again within one step (a
spiking neuron's membrane over a forward's time steps); a store repeated by an inner loop that does
not read the state (a replay memory's priorities written item by item after the step's backward) is
still a cut between steps. A value an object's method computes and keeps on itself (a
Cholesky factor cached in eval mode) whose graph reads no parameter an optimizer owns, and whose
gradients nothing else sees, is stored detached where it is stored, safely: the value is the same
and so is what trains (the ownership is decided by the modules' identities, never their names).
A state updated through a local name (`centers = m *
self.centers + ...; self.centers = centers`) is stored detached too, unsafely: the step may read the
attribute again after storing it, which the graph does not tell from a read of the local. A value an
object caches and serves only while a key kept beside it is set (`if self._key is not None and
...: return self._cached`), every read of the key guarded the same way, is computed again on every
iteration by storing `None` into the key at its start (unsafe: the cache no longer serves). A replay
buffer (read through `random.sample`, or by an index) stores detached values: safely where what it
stores is a module's output and the failing backward, cut there, still reaches through the step's own
forward pass every parameter an optimizer owns that it reached before (a DDPG actor's actions, the
actor run again for its own loss), unsafely otherwise; an object's state set before
the loop by a method call is set again by re-running that call at the start of each iteration
(unsafe).
A memo (a cache emptied at the start of each iteration, a cached value stored back to the `None` it
started from, or its key set to `None`) is emptied safely where every method that stores into it
only computes, with no random draw and no call for an effect, and stores values that never read
what it held: the next read computes again what the memo stands for, at the step's own parameters,
which is what the program computes without the cache.
Where every iteration re-runs the same sequence (`for epoch in range(epochs)` stepping a state over
the same inputs), resetting the state at the top of each iteration (re-running its initial
assignment, or storing back the `None` an object's state started from) is safe and comes first;
detaching it there, or storing detached a state updated within one step, is unsafe.
Where a loop nested in another clears, backwards and steps on every iteration over a loss that
reaches the previous iteration's graph (a trajectory's transitions, each error built from the
previous state's forward pass), and what it carries entered it without a graph, the iterations'
losses are summed and backwarded once after the loop, then the optimizer steps (unsafe: it steps
once per run of the loop; offered last). A reset to `None` of a state the backward runs only under
`if <state> is not None:` is not offered: the backward would never run again.
State that objects of one class of the checked code keep in one attribute (a spiking neuron's
membrane potential), set to a number by the class's `__init__` and entering the loop with it, is
stored back to that number at the start of each iteration, into every object of the class: those
the loop reaches by name (`encoder.mem`, `body[0].neuron.mem` in a container whose modules are
known) and those inside the library containers it runs whose modules are not known (walked with
`.modules()`), so each batch of sequences starts from rest (unsafe: a stream read in chunks would
mean the state to flow on).
A value recomputed only on some iterations (`if step % k == 0: latent = encoder(depth)`) and read
on every one is computed on every iteration instead (unsafe: the iterations between then read fresh
values).
Detaching the items of a carried list is unsafe: later backwards no longer reach the earlier
items' graphs. A history appended after the backward and read by later iterations (earlier losses
for loss weighting) keeps detached copies: safe where every iteration is a training step, no
backward follows the appends in it, the history entered the loop without a graph, the loss still
reaches every parameter an optimizer owns through the step's own forward pass, and nothing else
sees a gradient in what it held (the copies
hold the same values; the cut falls between steps), unsafe otherwise. A list filled for one
step's loss and never emptied (an episode's log-probabilities, activations from forward hooks) is
emptied at the start of each iteration (unsafe). Where such a list grows by each step's tensors
and its items enter the loss only as terms of a sum (a fixed weight times `sum(a.abs().mean() for a
in records)`), its items are detached at the start of each iteration instead, safely: the earlier
items are then constants, and the step sends the gradients it would send with the list emptied (a
mean over the stacked items, or a number computed from the list, weighs the step's own by the
earlier ones: not offered).
Where the state entering the loop carries a graph (a decoder stepped from the encoder's final
state, with a backward per token), it is detached right after each backward (unsafe), so that the
first backward still reaches what made it. No cut is offered where the failing backward reaches a
parameter an optimizer it trains owns only through what would be detached (a replay memory of
log-probabilities, stored with the actor's graph and sampled later: the actor would never learn
again), nor is a replay memory (sampled, or walked with a backward per item) emptied or reset.
Those values are computed again where they are read instead (unsafe: a stored step's value then
follows the parameters): the memory keeps a function that computes the stored value from the inputs
it was computed from, bound as they are when it is stored (`lambda state=state, action=action:
agent(encode(state))[0].log_prob(action)`, the forward statements that made a value with a graph it
reads computed again in it), and each read the graph shows calls it (`t[0]()`, `[compute() for
compute in log_probs]`); not offered where what it reads is not kept by pure forward computations
(an observation or an action drawn inside the expression) or a read has another shape.
A frozen target network whose parameters a soft update writes outside `no_grad`
(`p_target.copy_(tau * p + (1 - tau) * p_target)`) carries that update's graph into every later
forward pass: the update runs under `torch.no_grad()` instead. Safe where it is a cut between
training steps: the update follows the step's last backward in a loop where an optimizer steps, the
target entered the loop without such a graph, no optimizer owns its parameters, the loss still
reaches every parameter an optimizer owns through the step's own forward pass, and nothing else
sees the update's gradients (truncated backpropagation through time, for a target network);
unsafe otherwise (the online network no longer learns through the targets).
Where an object's method computes a state from its previous value by a
run of pure forward statements (a power iteration's `v = F.normalize(w.t() @ self.u)` then
`self.u = F.normalize(w @ v)`), that run goes under `torch.no_grad()`, so the state carries no graph
from step to step (unsafe: what the step reads of those values afterwards, `sigma = self.u @ w @ v`,
is a constant to the gradient). A `parametrize.cached()` context around the whole loop keeps the
tensor its first iteration computed: the context is entered on every iteration instead, around the
loop's body (safe: the tensor is computed once per iteration from the current parameters, and
nothing else runs again).
Where the carried graph is a weight the old `nn.utils.weight_norm` computed before the previous
iteration's forward pass of the layer (read before this iteration runs the layer),
`nn.utils.parametrizations.weight_norm` takes its place and computes the weight at every read:
unsafe, since it renames the layer's parameters and so the state dicts checkpoints hold.

### References
- [pytorch/examples word_language_model `repackage_hidden`](https://github.com/pytorch/examples/blob/main/word_language_model/main.py)
- [Autograd mechanics](https://pytorch.org/docs/stable/notes/autograd.html)
"""

from __future__ import annotations

import ast
import dataclasses

from errknow_ls.analysis.events import Observation, SecondPass
from errknow_ls.analysis.fixes import (
    body_anchor,
    code_of_statement,
    delete_statement,
    insert_lines_after,
    insert_lines_before,
    replace,
    wrap_in_block,
)
from errknow_ls.analysis.names import builtin_unshadowed, imported_module
from errknow_ls.analysis.rules.common_fixes import (
    backward_after,
    detached,
    imports_torch,
    parametrized_weight_norm,
    unused_name,
)
from errknow_ls.analysis.rules.context import (
    RuleContext,
    index_in,
    is_self_attribute,
    names_loaded,
    upward_exposed,
)
from errknow_ls.analysis.rules.fix_safety import (
    chain_of_names,
    chained_within_step,
    cut_starves_training,
    cut_where_read_holds,
    cuts_own_step,
    detach_carried,
    detach_expression,
    detach_history,
    detach_keeps_owned,
    detach_stored,
    detach_terms_of_sums,
    detach_untrained_store,
    forward_expression,
    forward_only,
    own_nodes,
    read_only_before_store,
    recompute,
    refill_memo,
    reset_state,
    same_sites,
    stored_once,
    updated_within_step,
)
from errknow_ls.analysis.rules.parameter_updates import (
    cache_each_iteration,
    cached_weights,
    parameter_updates,
    update_without_grad,
)
from errknow_ls.analysis.state import Holder, Place
from errknow_ls.analysis.values import UNKNOWN, Const, Seq, Tensor, Value, element, join, maybe_of, nodes_of
from errknow_ls.core import Applicability, Edit, Finding, Fix

CODE = "EK003"


def claims(event: Observation) -> bool:
    """A graph made in an earlier iteration (or call of a training step), carried into this one."""
    if not isinstance(event, SecondPass):
        return False
    return not event.same_tensor and event.carried_over


def build(event: SecondPass, ctx: RuleContext) -> Finding:
    tensor = ctx.text(event.receiver)
    body = _loop_body(event)
    exposed = upward_exposed(body)
    holders = _listed(event.carried)
    names = [_spelling(holder, event) for holder in holders]
    carried = [
        (holder, name) for holder, name in zip(holders, names, strict=True) if name and name in exposed
    ]
    recurrent = [(holder, name) for holder, name in carried if name in _recurrences(body)]
    carried = recurrent or carried
    attrs = sorted({place.attribute for place in event.carried if isinstance(place, Place)})
    cutting = _still_attached(event, ctx, carried)
    shown = ", ".join(f"`{name}`" for _, name in cutting) or ", ".join(f"`.{a}`" for a in attrs) or "a value"
    what = "the previous call" if event.loop and event.loop.method else "the previous iteration"
    message = f"`{tensor}` reaches the graph of {what} through {shown}; {what}'s backward already freed it"
    freed_here = f"the graph of {what} is freed here"
    ended = _ended_loop(event, ctx)
    if ended is not None and shown == "a value":
        message = (
            f"`{tensor}` reaches a graph made inside the loop at line {ended}, which has ended; "
            "a backward in that loop already freed it"
        )
        freed_here = "the graph is freed here, inside that loop"
    updates = parameter_updates(event, ctx)
    cached = cached_weights(event, ctx)
    if cached:
        message = (
            f"`{tensor}` reaches the graph of {what} through the `{cached[0].tensor}` that "
            f"`parametrize.cached()` (line {ctx.line_of(cached[0].context)}) computed once and keeps "
            f"for every iteration; {what}'s backward already freed it"
        )
    if updates:
        update = updates[0]
        message = (
            f"`{tensor}` reaches the graph of an earlier iteration through the parameters of "
            f"`{update.module}`, which the update in place at line {ctx.line_of(update.update)} ties to "
            f"a graph; {what}'s backward already freed it"
        )
    # Every cut the analysis can build, best first: where the first does not remove the finding
    # (the carried graph also comes in another way), ``--fix`` tries the next.
    cuts = [
        fix
        for fix in (
            parametrized_weight_norm(ctx, event),
            cache_each_iteration(ctx, cached, event.loop.node if event.loop is not None else None),
            update_without_grad(ctx, event, updates),
            _detach_untrained_store(event, ctx, attrs),
            _refresh_every_iteration(event, ctx, carried),
            _detach_appended(event, ctx),
            _detach(event, ctx, cutting),
            _detach_stored(event, ctx, attrs),
            _detach_terms_each_iteration(event, ctx),
            _clear_each_iteration(event, ctx),
            _clear_cache(event, ctx),
            _keep_no_inversion(event, ctx),
            _expire_cache_key(event, ctx),
            _rerun_initialising_call(event, ctx),
            _recurrence_without_grad(event, ctx, attrs),
        )
        if fix is not None
    ]
    reset = _reset(event, ctx, carried) or _reset_every_instance(event, ctx)
    candidates: list[Fix | None]
    if reset is not None and reset.applicability is Applicability.SAFE:
        # Every iteration re-runs the same sequence: it starts from the initial state, and a cut
        # that carries the last state on is not what the loop means.
        candidates = [reset, *(dataclasses.replace(cut, applicability=Applicability.UNSAFE) for cut in cuts)]
    else:
        candidates = [*cuts[:1], reset, *cuts[1:]]
    # What a replay memory keeps is computed again from its inputs where it is read: after every
    # cut (a safe detach keeps what trains); training on the whole run of the inner loop at once
    # changes how often the optimizer steps: the last resort, after every cut and reset.
    candidates += [_recompute_when_replayed(event, ctx), _sum_over_inner_loop(event, ctx)]
    fixes = [fix for fix in candidates if fix is not None]
    related = [ctx.related(event.free.site, freed_here)]
    related += [
        ctx.related(u.update, f"`{u.module}`'s parameters are updated here, with grad on") for u in updates
    ]
    related += [ctx.related(c.context, "the cached context spans the loop") for c in cached[:1]]
    return ctx.finding(CODE, event.report, message, fixes, related, tensor)


def _ended_loop(event: SecondPass, ctx: RuleContext) -> int | None:
    """The line of the loop that made and freed the graph, where the backward runs after that loop,
    in the same function: no iteration of it is running."""
    loop = event.loop.node if event.loop is not None and event.loop.method is None else None
    if loop is None or loop.end_lineno is None or ctx.function_of(loop) is not ctx.function_of(event.site):
        return None
    inside = loop.lineno <= event.site.lineno <= loop.end_lineno
    return None if inside else loop.lineno


def _refresh_every_iteration(
    event: SecondPass, ctx: RuleContext, carried: list[tuple[Holder, str]]
) -> Fix | None:
    """A value the loop recomputes only on some iterations (``if step % k == 0: latent =
    encoder(depth)``) and reads on every one: the iterations between read the graph of an earlier
    one, which its backward freed. Recompute it on every iteration (unsafe: the iterations between
    then read fresh values, and what made the value learns from each of them), when it is not a
    recurrence and its statement is a pure forward computation."""
    body = _loop_body(event)
    recurrent = _recurrences(body)
    for _, name in carried:
        if name in recurrent:
            continue
        for stmt in body:
            if not (isinstance(stmt, ast.If) and not stmt.orelse and len(stmt.body) == 1):
                continue
            made = stmt.body[0]
            targets = made.targets if isinstance(made, ast.Assign) else []
            if [ctx.text(t) for t in targets] != [name] or recompute(
                ctx, [made], Applicability.UNSAFE
            ) is None:
                continue
            text = code_of_statement(ctx.source, made)
            edits = [
                insert_lines_before(ctx.source, stmt, [text]) if text else None,
                delete_statement(ctx.source, stmt),
            ]
            if any(edit is None for edit in edits):
                return None
            return Fix(
                f"Compute `{name}` on every iteration, not only when `{ctx.text(stmt.test)}`",
                Applicability.UNSAFE,
                tuple(edit for edit in edits if edit is not None),
                workaround=2,
            )
    return None


def _still_attached(
    event: SecondPass, ctx: RuleContext, carried: list[tuple[Holder, str]]
) -> list[tuple[Holder, str]]:
    """What a cut at the top of each iteration must detach: the carried names the loop does not
    detach there already (``h1 = h1.detach()`` first in the body), and the state an object keeps on
    itself and steps within each iteration (a second layer's ``self.h2`` stepped over a chunk's
    time steps), spelled as the loop reaches it (``model.h2``): stored detached, it would be cut
    inside the step; cut at the top of the iteration, it is cut between steps."""
    body = _loop_body(event)
    loop = event.loop
    left = [(raw, name) for raw, name in carried if not _detached_first(body, name)]
    if loop is None or loop.method is not None or len(left) == len(carried):
        return carried  # nothing was detached already: the names are the cut
    states: list[tuple[Holder, str]] = [
        (raw, spelled)
        for raw, value in ((h, event.carried[h]) for h in _listed(event.carried))
        if isinstance(raw, Place)
        and raw in event.entry
        and (spelled := _spelling(raw, event)) is not None
        and updated_within_step(ctx, loop, value)
    ]
    return [*left, *states]


def _detached_first(body: list[ast.stmt], name: str) -> bool:
    """``name = name.detach()`` (or ``name.detach_()``) before anything else in ``body``."""
    first = body_anchor(body)
    if isinstance(first, ast.Assign) and len(first.targets) == 1:
        target, value = first.targets[0], first.value
        return (
            isinstance(target, ast.Name)
            and target.id == name
            and isinstance(value, ast.Call)
            and isinstance(value.func, ast.Attribute)
            and value.func.attr == "detach"
            and isinstance(value.func.value, ast.Name)
            and value.func.value.id == name
        )
    return False


def _recurrences(body: list[ast.stmt], *, through_locals: bool = False) -> set[str]:
    """Names a loop body computes from themselves: ``h = cell(x, h)``, ``total = total + loss``;
    ``through_locals``: also through names the body computed from them first (``h =
    self.encode(src, self.context)`` then ``self.context = h``)."""
    found: set[str] = set()
    sources: dict[str, set[str]] = {}
    for stmt in body:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Assign | ast.AugAssign):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                stored = {n for t in targets for n in _spelled_all(t)}
                loaded = set(_spelled_all(node.value)) | (
                    stored if isinstance(node, ast.AugAssign) else set()
                )
                found |= stored & loaded
                if through_locals:
                    flows = _flows_from(node.value)
                    reach = flows.union(*(sources.get(n, set()) for n in flows))
                    sources.update(dict.fromkeys(stored, reach))
                    found |= stored & reach
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("append", "extend")
            ):
                found |= set(_spelled_all(node.func.value))
    return found


def _flows_from(expr: ast.expr) -> set[str]:
    """The names (``h``, ``self.context``) whose value ``expr`` computes from: operands and
    arguments (the items of a list handed to a call too), not an item of a container it builds
    (``values = [first]``) nor the receiver of a method (``values.pop()``), where which item comes
    out is not known."""
    found: set[str] = set()
    pending: list[ast.AST] = [expr]
    while pending:
        node = pending.pop()
        if isinstance(node, ast.List | ast.Tuple | ast.Set | ast.Dict | ast.comprehension):
            continue
        if isinstance(node, ast.Call):
            # Every item of a list handed to a call goes into what it gives (``torch.cat([y, y_hat])``).
            arguments = [*node.args, *(k.value for k in node.keywords)]
            pending.extend(
                a for arg in arguments for a in (arg.elts if isinstance(arg, ast.List | ast.Tuple) else [arg])
            )
            if not isinstance(node.func, ast.Attribute):
                pending.append(node.func)
            continue
        spelled = _spelled_all(node) if isinstance(node, ast.Name | ast.Attribute) else []
        if spelled and spelled[0] in (getattr(node, "id", None), f"self.{getattr(node, 'attr', '')}"):
            found.add(spelled[0])
            continue
        pending.extend(ast.iter_child_nodes(node))
    return found


def _spelled_all(node: ast.AST) -> list[str]:
    names = []
    for child in ast.walk(node):
        if isinstance(child, ast.Name):
            names.append(child.id)
        elif (
            isinstance(child, ast.Attribute)
            and isinstance(child.value, ast.Name)
            and child.value.id == "self"
        ):
            names.append(f"self.{child.attr}")
    return names


def _detach_stored(event: SecondPass, ctx: RuleContext, attrs: list[str]) -> Fix | None:
    """State kept on an object by its own method (``self.center = m * self.center + ...``, a
    memory bank's ``self.bank[idx] = z``): store it detached, in its own shape, where it is stored."""
    shapes: dict[str, Value] = {}
    for place, value in event.carried.items():
        if isinstance(place, Place):
            shapes[place.attribute] = join(shapes.get(place.attribute), value)
    edits = []
    where_read = memo = unpacked_any = False
    last_words: list[bool] = []
    for node in ctx.all_statements():
        if not isinstance(node, ast.Assign) or len(node.targets) != 1:
            continue
        target = node.targets[0]
        atomic = isinstance(node.value, ast.Name | ast.Attribute | ast.Call | ast.Subscript)
        holder = target.value if isinstance(target, ast.Subscript) else target
        if isinstance(holder, ast.Attribute) and _is_attr(holder, attrs):
            memo |= stored_once(ctx, node, holder.attr)
        # What this step stores and reads back (a KV cache's slots, a meta-model's updated weights)
        # is part of this step's graph: stored detached, its loss would stop learning through it.
        own_step = cuts_own_step(ctx, event, node)
        if isinstance(target, ast.Subscript) and _is_attr(target.value, attrs):
            if own_step:
                continue
            assert isinstance(target.value, ast.Attribute)
            whole = shapes.get(target.value.attr, UNKNOWN)
            item = whole if isinstance(whole, Tensor) else element(whole)
            expression = detach_expression(ctx.text(node.value), item, atomic=atomic)
            if expression is None:
                return None  # what is stored has a shape the analysis does not know
            edits.append(replace(ctx.source, node.value, expression))
            continue
        # `out, self.hidden = self.lstm(x, self.hidden)`; not `self.items, self.priorities = [], []`,
        # a start that gives each part apart.
        unpacked = (
            None if isinstance(node.value, ast.Tuple | ast.List) else _unpacked_attribute(target, attrs)
        )
        if unpacked is not None:
            target, unpacked_any = unpacked, True
        elif not _is_attr(target, attrs):
            continue
        assert isinstance(target, ast.Attribute)
        reads_itself = any(
            isinstance(n, ast.Attribute) and n.attr == target.attr and isinstance(n.ctx, ast.Load)
            for n in ast.walk(node.value)
        )
        if reads_itself and own_step:
            # The failing backward reaches what this step stored (``return self.head(self.hidden)``),
            # and that learns: detaching what is stored would cut the step's own gradient. The
            # previous step's state is cut where this step reads it instead, when that cut holds.
            if not cut_where_read_holds(ctx, event, node):
                continue
            for read in _reads_of(node.value, target.attr):
                expression = _detached_read(ctx, event, read, shapes.get(target.attr, UNKNOWN), unpacked)
                if expression is None:
                    return None
                edits.append(replace(ctx.source, read, expression))
            where_read = True
        elif unpacked is not None:
            continue  # the value is the whole tuple: only a read of the state can be cut
        elif reads_itself or _made_from_itself(ctx, node, target.attr):
            if not reads_itself:  # through a local: is the store the step's last word on it?
                last_words.append(_last_word(ctx, event, node, target.attr, own_step))
            expression = detach_expression(
                ctx.text(node.value), shapes.get(target.attr, UNKNOWN), atomic=atomic
            )
            if expression is None:
                return None
            edits.append(replace(ctx.source, node.value, expression))
    if not edits:
        return None
    shown = ", ".join(f"`self.{a}`" for a in attrs)
    # A state stored with the output beside it (``unpacked_any``, an LSTM's): keeping its value
    # from step to step, cut, or starting each step from a fresh state are two meanings; the fix
    # picks one. Either is unsafe.
    applicability = (
        Applicability.UNSAFE
        if not all(last_words) or unpacked_any
        else detach_stored(
            ctx,
            event.loop,
            [value for holder, value in event.carried.items() if isinstance(holder, Place)],
            memo=memo,
            recurrent=_updated_from_itself(ctx, attrs),
        )
    )
    return Fix(
        f"Detach the previous step's {shown} where it is read"
        if where_read
        else f"Store {shown} detached where it is updated, after each step",
        applicability,
        tuple(edits),
        workaround=3,
    )


def _last_word(ctx: RuleContext, event: SecondPass, store: ast.Assign, attr: str, own_step: bool) -> bool:
    """The step may also read the attribute after storing it through a local: the graph does not
    tell that read from the local's, so the cut is shown to keep the step's own gradient only where
    no read can follow the store and the method runs once per step (fix_safety rule 4)."""
    if own_step or chained_within_step(ctx, event, store):
        return False
    return read_only_before_store(ctx, store, attr)


def _updated_from_itself(ctx: RuleContext, attrs: list[str]) -> bool:
    """A store into one of ``attrs`` (or an item of one) reads that state, directly or through a
    local computed from it (``self.mem = 0.9 * self.mem + x``): a recurrence."""
    for node in ctx.all_statements():
        if not isinstance(node, ast.Assign) or len(node.targets) != 1:
            continue
        target = node.targets[0]
        stored_into = target.value if isinstance(target, ast.Subscript) else target
        if not (isinstance(stored_into, ast.Attribute) and _is_attr(stored_into, attrs)):
            continue
        if _reads_of(node.value, stored_into.attr) or _made_from_itself(ctx, node, stored_into.attr):
            return True
    return False


def _detach_untrained_store(event: SecondPass, ctx: RuleContext, attrs: list[str]) -> Fix | None:
    """State an object's method computes and keeps on itself (``self.cholesky_cache = chol``, a
    value cached in eval mode), a tensor whose graph no optimizer trains: store it detached where
    it is stored (safe where :func:`detach_untrained_store` shows it; not offered otherwise: the
    other cuts and resets then choose between meanings)."""
    places = [holder for holder in event.carried if isinstance(holder, Place)]
    exposed = upward_exposed(_loop_body(event))
    if not places or any(
        not isinstance(holder, Place) and _spelling(holder, event) in exposed for holder in event.carried
    ):
        return None  # a name the loop also carries into its next iteration
    values = [event.carried[place] for place in places]
    if not all(isinstance(value, Tensor) for value in values):
        return None
    edits, makers = [], []
    for node in ctx.all_statements():
        stored = _stores_attribute(node, attrs)
        if stored is None:
            continue
        target, value = stored
        if value is None or not isinstance(target, ast.Attribute) or ctx.text(target.value) != "self":
            return None  # an item of it, or stored from outside the object
        if isinstance(value, ast.Constant) and value.value is None:
            continue  # the empty state the object starts from
        computed = _computed_locally(ctx, node, value)
        if computed is None:
            return None
        makers.extend(computed)
        edits.append(replace(ctx.source, value, detached(ctx, value)))
    if not edits or not detach_untrained_store(ctx, makers, values):
        return None
    shown = ", ".join(f"`self.{a}`" for a in attrs)
    return Fix(
        f"Store {shown} detached where it is stored (no optimizer trains what it is computed from)",
        Applicability.SAFE,
        tuple(edits),
        workaround=3,
    )


def _recurrence_without_grad(event: SecondPass, ctx: RuleContext, attrs: list[str]) -> Fix | None:
    """State an object's method computes from its own previous value by a run of statements of
    their own, each a pure forward computation into names only the next ones read (a power
    iteration's ``v = F.normalize(w.t() @ self.u)`` then ``self.u = F.normalize(w @ v)``): that run
    goes under ``torch.no_grad()``, so the state carries no graph from step to step. Unsafe: what
    the step reads of those values afterwards (``sigma = self.u @ w @ v``) is then a constant to
    its gradient. Not offered where every path the backward has to a parameter an optimizer owns
    runs through what the run computes (rule 10)."""
    if event.loop is None or not imports_torch(ctx):
        return None
    runs = [(attr, run) for attr in attrs if (run := _recurrence(ctx, attr)) is not None]
    if len(runs) != 1:
        return None  # no state, or several, updated from itself
    attr, run = runs[0]
    cut = frozenset(n for n in event.reached if any(ctx.nodes[n].stmt is stmt for stmt in run))
    if not cut or cut_starves_training(ctx, event.site, event.reached, cut, event.loop.node):
        return None
    edit = wrap_in_block(ctx.source, run[0], "with torch.no_grad():", run[-1])
    if edit is None:
        return None
    return Fix(
        f"Compute `self.{attr}` from its previous value under `torch.no_grad()`",
        Applicability.UNSAFE,
        (edit,),
        workaround=3,
    )


def _recurrence(ctx: RuleContext, attr: str) -> list[ast.stmt] | None:
    """The one store into ``self.<attr>`` outside ``__init__``, with the run of statements before it
    that computes what it stores (:func:`_run_into`), where that run reads ``self.<attr>``."""
    updates = [
        node
        for node in ctx.all_statements()
        if _stores_attribute(node, [attr]) is not None and not _in_method(ctx, node, "__init__")
    ]
    if len(updates) != 1 or not isinstance(store := updates[0], ast.Assign) or len(store.targets) != 1:
        return None
    target = store.targets[0]
    if not (isinstance(target, ast.Attribute) and ctx.text(target.value) == "self"):
        return None
    run = _run_into(ctx, store)
    return run if run is not None and any(_reads_of(stmt, attr) for stmt in run) else None


def _in_method(ctx: RuleContext, node: ast.AST, name: str) -> bool:
    function = ctx.function_of(node)
    return function is not None and function.name == name


def _run_into(ctx: RuleContext, store: ast.Assign) -> list[ast.stmt] | None:
    """``store`` and the statements right before it in its block that compute what it reads, each a
    pure forward computation (rule 2) into local names that only later statements of the run need;
    None where one of them is not."""
    block = ctx.block_of(store)
    if block is None or not forward_only(ctx, store):
        return None
    needed = _names_read(store.value)
    run: list[ast.stmt] = [store]
    for earlier in reversed(block[: block.index(store)]):
        if not isinstance(earlier, ast.Assign) or not all(isinstance(t, ast.Name) for t in earlier.targets):
            break
        assigned = {t.id for t in earlier.targets if isinstance(t, ast.Name)}
        if not assigned & needed:
            break
        if not assigned <= needed or not forward_only(ctx, earlier):
            return None  # it also computes a name the run does not need, or it is not pure
        needed = (needed - assigned) | _names_read(earlier.value)
        run.insert(0, earlier)
    return run


def _names_read(expr: ast.expr) -> set[str]:
    return {n.id for n in ast.walk(expr) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _stores_attribute(node: ast.AST, attrs: list[str]) -> tuple[ast.expr, ast.expr | None] | None:
    """``node`` stores into one of ``attrs`` (or an item of one): the target and what it stores
    (None where the store has no value of its own: a tuple target, an augmented store)."""
    targets: list[ast.expr] = []
    value: ast.expr | None = None
    if isinstance(node, ast.Assign):
        targets, value = node.targets, node.value
    elif isinstance(node, ast.AugAssign | ast.AnnAssign):
        targets = [node.target]
    for target in targets:
        for part in ast.walk(target):
            if not isinstance(part, ast.Attribute | ast.Subscript):
                continue
            if _is_attr(part.value if isinstance(part, ast.Subscript) else part, attrs):
                return part, value if len(targets) == 1 and part is target else None
    return None


def _computed_locally(ctx: RuleContext, store: ast.stmt, value: ast.expr) -> list[ast.stmt] | None:
    """The statements of the storing method that computed what ``store`` keeps: ``value`` is a
    local name (or ``name.detach() if <test> else name``) bound in that method only by plain
    assignments to it alone, and not one of its parameters."""
    func = ctx.function_of(store)
    if func is None:
        return None
    branches = [value.body, value.orelse] if isinstance(value, ast.IfExp) else [value]
    names = {_plain_or_detached(b) for b in branches}
    name = names.pop() if len(names) == 1 else None
    if name is None or name in {a.arg for a in ast.walk(func.args) if isinstance(a, ast.arg)}:
        return None
    bindings = [
        node
        for node in ast.walk(func)
        if isinstance(node, ast.Name) and node.id == name and not isinstance(node.ctx, ast.Load)
    ]
    makers = [ctx.statement_of(binding) for binding in bindings]
    if not makers or not all(
        isinstance(maker, ast.Assign) and [ctx.text(t) for t in maker.targets] == [name] for maker in makers
    ):
        return None
    return [maker for maker in makers if maker is not None]


def _plain_or_detached(node: ast.expr) -> str | None:
    """``name`` or ``name.detach()``: the name."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "detach":
        node = node.func.value if not (node.args or node.keywords) else node
    return node.id if isinstance(node, ast.Name) else None


def _unpacked_attribute(target: ast.expr, attrs: list[str]) -> ast.Attribute | None:
    """The one attribute of ``attrs`` a tuple target stores (``out, self.hidden = ...``)."""
    if not isinstance(target, ast.Tuple | ast.List):
        return None
    stored = [e for e in target.elts if isinstance(e, ast.Attribute) and _is_attr(e, attrs)]
    starred = any(isinstance(e, ast.Starred) for e in target.elts)
    return stored[0] if len(stored) == 1 and not starred else None


def _detached_read(
    ctx: RuleContext, event: SecondPass, read: ast.Attribute, shape: Value, unpacked: ast.Attribute | None
) -> str | None:
    """The state read back, detached in its own shape; an item of what a library module gave
    back (unpacked from it) in the shape it has at run time (an LSTM's ``(h, c)``); a state that
    starts as a number or None (``self.potential = 0.0``, :attr:`SecondPass.guarded`) detached only
    once it is a tensor."""
    text = ctx.text(read)
    if unpacked is not None and _module_output(ctx, shape) and imports_torch(ctx):
        return f"({text}.detach() if isinstance({text}, torch.Tensor) else {_detached_tuple(text)})"
    if any(isinstance(p, Place) and p.attribute == read.attr for p in event.guarded):
        if not isinstance(shape, Tensor) or not imports_torch(ctx):
            return None
        return f"({text}.detach() if isinstance({text}, torch.Tensor) else {text})"
    return detach_expression(text, shape)


def _made_from_itself(ctx: RuleContext, stored: ast.Assign, attr: str) -> bool:
    """``self.<attr> = centroid`` where ``centroid`` was computed earlier in the same function from
    ``self.<attr>`` (``centroid = 0.7 * self.centroid + 0.3 * current``): the update of a state
    kept on the object, written through a local name."""
    function = ctx.function_of(stored)
    if function is None or not isinstance(stored.value, ast.Name):
        return False
    from_state: set[str] = set()
    for stmt in ast.walk(function):
        if not isinstance(stmt, ast.Assign) or stmt.lineno >= stored.lineno:
            continue
        loaded = _reads_of(stmt.value, attr) or any(
            isinstance(n, ast.Name) and n.id in from_state for n in ast.walk(stmt.value)
        )
        if loaded:
            from_state |= {n.id for t in stmt.targets for n in ast.walk(t) if isinstance(n, ast.Name)}
    return stored.value.id in from_state


def _reads_of(node: ast.AST, attr: str) -> list[ast.Attribute]:
    """``self.<attr>`` read in ``node``."""
    return [
        n
        for n in ast.walk(node)
        if isinstance(n, ast.Attribute)
        and n.attr == attr
        and isinstance(n.ctx, ast.Load)
        and isinstance(n.value, ast.Name)
        and n.value.id == "self"
    ]


def _reset(event: SecondPass, ctx: RuleContext, carried: list[tuple[Holder, str]]) -> Fix | None:
    """Re-initialise the carried state at the top of each iteration: re-run the statement that
    initialised a local state before the loop (``hidden = torch.zeros(n, 8)``), or store back the
    ``None`` an object's state held when the loop began (``layer.weight_state = None``)."""
    loop = event.loop
    if loop is None or loop.method is not None or not isinstance(loop.node, ast.For | ast.While):
        return None
    block = ctx.block_of(loop.node)
    anchor = body_anchor(loop.node.body)
    if block is None or anchor is None:
        return None
    states = [(holder, name) for holder, name in carried if holder in event.entry] or [
        (place, spelled)
        for place in _listed(event.carried)
        if isinstance(place, Place) and (spelled := _spelling(place, event))
    ]
    lines: list[str] = []
    initialisers: list[ast.stmt] = []
    for holder, name in states:
        entering = event.entry.get(holder)
        if isinstance(holder, Place):
            none = isinstance(entering, Const) and entering.value is None
            if not none or not _none_handled(ctx, holder.attribute):
                return None  # a None the object's code does not start again from (a cache's pair)
            lines.append(f"{name} = None")
            continue
        made = _initialiser(ctx, block, loop.node, name)
        text = code_of_statement(ctx.source, made) if made is not None else None
        if made is None or text is None:
            return None
        initialisers.append(made)
        lines.append(text)
    if not lines or any(_replayed(event, ctx, name) for _, name in states):
        return None  # a replay memory: later steps learn from earlier items on purpose
    if _runs_only_when_set(event, ctx, lines, states):
        return None  # reset to None, the state would never pass the test the backward runs under
    applicability = reset_state(
        ctx,
        loop,
        [event.carried[holder] for holder, _ in states],
        [event.entry[holder] for holder, _ in states if holder in event.entry],
        initialisers,
    )
    memo = {holder.attribute for holder, _ in states if isinstance(holder, Place)}
    places_only = all(isinstance(holder, Place) for holder, _ in states)
    if applicability is not None and places_only and refill_memo(ctx, memo):
        applicability = Applicability.SAFE  # a memo filled from its inputs again (rule 14)
    edit = insert_lines_before(ctx.source, anchor, lines)
    if applicability is None or edit is None or _in_header_line(anchor, loop.node):
        return None
    shown = ", ".join(f"`{name}`" for _, name in states)
    return Fix(f"Reset {shown} at the start of each iteration", applicability, (edit,), workaround=2)


def _none_handled(ctx: RuleContext, attr: str) -> bool:
    """The object's code tests ``self.<attr> is None`` (or ``is not None``): it starts the state
    again from ``None``."""
    return any(
        isinstance(node, ast.Compare)
        and _is_attr(node.left, [attr])
        and isinstance(node.left, ast.Attribute)
        and isinstance(node.left.value, ast.Name)
        and node.left.value.id == "self"
        and isinstance(node.ops[0], ast.Is | ast.IsNot)
        and isinstance(node.comparators[0], ast.Constant)
        and node.comparators[0].value is None
        for node in ast.walk(ctx.module)
    )


def _initialiser(ctx: RuleContext, block: list[ast.stmt], loop: ast.stmt, name: str) -> ast.stmt | None:
    """The last statement before ``loop`` in its block, if it assigns ``name`` alone (nothing
    between it and the loop assigns ``name`` again)."""
    found: ast.stmt | None = None
    for stmt in block:
        if stmt is loop:
            return found
        if isinstance(stmt, ast.Assign) and [ctx.text(t) for t in stmt.targets] == [name]:
            found = stmt
        elif any(
            isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store) for n in ast.walk(stmt)
        ):
            found = None
    return None


def _is_attr(node: ast.expr, attrs: list[str]) -> bool:
    return isinstance(node, ast.Attribute) and node.attr in attrs


def _containers(event: SecondPass, ctx: RuleContext) -> list[tuple[str, Seq]]:
    """Carried lists, as the loop's code spells them: ``history``, ``policy.saved_log_probs``."""
    found = []
    exposed = upward_exposed(_loop_body(event))
    for holder in _listed(event.carried):
        if isinstance(holder, str) and holder not in exposed:
            continue  # reassigned before it is read: not what carries the graph
        name, value = _spelling(holder, event), event.carried[holder]
        if name and isinstance(value, Seq) and value.kind == "list":
            found.append((name, value))
    return found


def _appends(body: list[ast.stmt], ctx: RuleContext, name: str) -> list[ast.Call]:
    return [
        node
        for stmt in body
        for node in ast.walk(stmt)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "append"
        and len(node.args) == 1
        and ctx.text(node.func.value) == name
    ]


def _detached_item(ctx: RuleContext, arg: ast.expr, item: Value) -> str | None:
    """What to append instead of ``arg``: it detached, or its tensors detached in its shape."""
    if isinstance(item, Seq):
        literal = _detached_literal(ctx, arg, item)
        if literal is not None:
            return literal
    atomic = isinstance(arg, ast.Name | ast.Attribute | ast.Call | ast.Subscript)
    return detach_expression(ctx.text(arg), item, atomic=atomic)


def _detached_literal(ctx: RuleContext, arg: ast.expr, item: Seq) -> str | None:
    """``{"step": i, "loss": loss}`` -> ``{"step": i, "loss": loss.detach()}``."""
    values = arg.values if isinstance(arg, ast.Dict) else getattr(arg, "elts", None)
    if values is None or item.items is None or len(item.items) != len(values) or not values:
        return None
    if not any(isinstance(v, Tensor) for v in item.items):
        return None
    graphs = [isinstance(v, Tensor) and bool(v.nodes or v.maybe) for v in item.items]
    if not any(graphs):
        graphs = [isinstance(v, Tensor) for v in item.items]  # which carries the graph is not known
    parts = [detached(ctx, e) if g else ctx.text(e) for e, g in zip(values, graphs, strict=True)]
    if isinstance(arg, ast.Dict):
        if any(key is None for key in arg.keys):
            return None
        return "{" + ", ".join(f"{ctx.text(k)}: {p}" for k, p in zip(arg.keys, parts, strict=True)) + "}"
    if isinstance(arg, ast.List):
        return f"[{', '.join(parts)}]"
    return f"({parts[0]},)" if len(parts) == 1 else f"({', '.join(parts)})"


def _detach_appended(event: SecondPass, ctx: RuleContext) -> Fix | None:
    """A history kept on purpose (appended after this iteration's backward, read by later ones):
    append detached copies."""
    body = _loop_body(event)
    report = ctx.statement_of(event.report)
    if report is None:
        return None
    edits, shown = [], []
    containers = _containers(event, ctx)
    exposed = upward_exposed(body)
    if len(containers) != sum(1 for h in event.carried if isinstance(h, Place) or h in exposed):
        return None
    for name, value in containers:
        replay = _sampled(ctx, body, name)
        for call in _appends(body, ctx, name):
            if call.lineno <= (report.end_lineno or report.lineno) and not replay:
                return None  # collected for this step's backward: a list to clear, not a history
            text = _detached_item(ctx, call.args[0], value.item)
            if text is None:
                return None
            edits.append(replace(ctx.source, call.args[0], text))
            shown.append(f"`{name}`")
    stored = own_nodes([value for _, value in containers])
    # Appended after the backward, the detached copies are what earlier iterations stored; appended
    # before it (a replay memory filled, then sampled), this iteration's item is detached too.
    backward_at = _body_index_of_backward(event, ctx)
    indices = [_body_index(body, call) for name, _ in containers for call in _appends(body, ctx, name)]
    before = backward_at is not None and any(i is not None and i <= backward_at for i in indices)
    appended = same_sites(ctx, event.reached, stored) if before else stored
    if not edits or cut_starves_training(ctx, event.site, event.reached, appended, _loop_node(event)):
        return None  # nothing else of this backward reaches the parameters behind what they hold
    if any(_sampled(ctx, body, name) for name, _ in containers):
        values: list[Value] = [value for _, value in containers]
        return Fix(
            f"Store detached values in the replay buffer {', '.join(dict.fromkeys(shown))}",
            detach_keeps_owned(ctx, values, event.reached, appended),
            tuple(edits),
            workaround=3,
        )
    names = {name for name, _ in containers}
    histories = [
        holder
        for holder in event.carried
        if (holder if isinstance(holder, str) else event.spelled.get(holder)) in names
    ]
    return Fix(
        f"Keep detached copies in {', '.join(dict.fromkeys(shown))}",
        detach_history(
            ctx,
            event,
            histories if len(histories) == len(names) else [],
            appended,
            last=not any(
                backward_after(ctx, call, _loop_node(event))
                for name, _ in containers
                for call in _appends(body, ctx, name)
            ),
        ),
        tuple(edits),
        workaround=3,
    )


def _clear_each_iteration(event: SecondPass, ctx: RuleContext) -> Fix | None:
    """A list filled for one step's loss (log-probs of an episode, activations from hooks) and
    never emptied: empty it at the start of each iteration."""
    loop = event.loop
    body = _loop_body(event)
    anchor = body_anchor(body)
    containers = _containers(event, ctx)
    if loop is None or anchor is None or not containers or _in_header_line(anchor, loop.node):
        return None
    names = [name for name, _ in containers]
    if not all(_appended_anywhere(ctx, name) for name in names):
        return None  # rebound whole, never filled item by item: emptying it loses what it holds
    if any(_replayed(event, ctx, name) for name in names):
        return None  # a replay memory: later steps learn from earlier items on purpose
    report = ctx.statement_of(event.report)
    end = (report.end_lineno or report.lineno) if report is not None else 0
    if any(call.lineno > end for name in names for call in _appends(body, ctx, name)):
        return None  # appended after the backward, for later iterations: a history, not to empty
    names += _filled_alongside(ctx, body, names)
    edit = insert_lines_before(ctx.source, anchor, [f"{name}.clear()" for name in names])
    if edit is None:
        return None
    where = "call" if loop.method else "iteration"
    shown = ", ".join(f"`{name}`" for name in names)
    return Fix(f"Empty {shown} at the start of each {where}", Applicability.UNSAFE, (edit,), workaround=3)


def _detach_terms_each_iteration(event: SecondPass, ctx: RuleContext) -> Fix | None:
    """A list that grows by each step's tensors (activations a forward hook records) and whose items
    enter the loss only as terms of a sum: its items detached at the start of each iteration, in
    place (``records[:] = [...]``, so that every holder of the list sees them). Offered only where
    that is shown to change nothing that trains (fix_safety rule 18, :func:`detach_terms_of_sums`):
    kept or emptied, the earlier items then send no gradient."""
    loop = event.loop
    body = _loop_body(event)
    anchor = body_anchor(body)
    containers = _containers(event, ctx)
    if loop is None or anchor is None or not containers or _in_header_line(anchor, loop.node):
        return None
    names = [name for name, _ in containers]
    if not all(_appended_anywhere(ctx, name) and not _replayed(event, ctx, name) for name in names):
        return None  # a fixed set of states, or a replay memory: other rules' cuts
    lines = []
    for name, value in containers:
        line = _detach_line(name, value, ctx)
        if line is None:
            return None
        lines.append(line[0].replace(f"{name} = ", f"{name}[:] = ", 1))
    cut = own_nodes([value for _, value in containers])
    if not detach_terms_of_sums(ctx, event, [value for _, value in containers]) or cut_starves_training(
        ctx, event.site, event.reached, cut, _loop_node(event)
    ):
        return None
    edit = insert_lines_before(ctx.source, anchor, lines)
    if edit is None:
        return None
    where = "call" if loop.method else "iteration"
    shown = ", ".join(f"`{name}`" for name in names)
    return Fix(
        f"Detach the items of {shown} at the start of each {where}", Applicability.SAFE, (edit,), workaround=3
    )


def _filled_alongside(ctx: RuleContext, body: list[ast.stmt], names: list[str]) -> list[str]:
    """Other lists appended in the same statement list as those ``names`` (an episode's rewards,
    appended next to its log-probabilities), and not made again inside the loop: the program reads
    them item for item together, so they are emptied together, or they would no longer line up."""
    blocks = [
        block
        for name in names
        for call in _appends(body, ctx, name)
        if (stmt := ctx.statement_of(call)) is not None and (block := ctx.block_of(stmt)) is not None
    ]
    stored = {
        ctx.text(target)
        for stmt in body
        for node in ast.walk(stmt)
        if isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign)
        for whole in (node.targets if isinstance(node, ast.Assign) else [node.target])
        for target in ast.walk(whole)
        if isinstance(target, ast.Name | ast.Attribute)
    }
    found: list[str] = []
    for block in blocks:
        for stmt in block:
            call = stmt.value if isinstance(stmt, ast.Expr) else None
            if (
                isinstance(call, ast.Call)
                and isinstance(call.func, ast.Attribute)
                and call.func.attr == "append"
                and chain_of_names(call.func.value)
                and (other := ctx.text(call.func.value)) not in names
                and other not in found
                and other not in stored  # made again in each iteration: nothing to empty
            ):
                found.append(other)
    return found


SAMPLING = {"random": frozenset({"sample", "choice", "choices"}), "numpy.random": frozenset({"choice"})}
"""The functions of these modules that draw items of the sequence they are handed."""


def _sampled(ctx: RuleContext, body: list[ast.stmt], name: str) -> bool:
    """The loop reads the list ``name`` only by drawing items of it (``random.sample(buffer, k)``,
    ``random`` the module an import of the file binds) or through an index it computes
    (``memory[idx]``), besides appending to it and ``len``: a replay buffer, whose items a later
    step reuses; its loss never needs the graph they were stored with."""
    reads = 0
    for stmt in body:
        parents = {id(child): node for node in ast.walk(stmt) for child in ast.iter_child_nodes(node)}
        for node in ast.walk(stmt):
            if not (isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load)):
                continue
            parent = parents.get(id(node))
            if isinstance(parent, ast.Attribute) and parent.attr == "append":
                continue
            if _builtin_len(ctx, parent):
                continue
            drawn = (
                isinstance(parent, ast.Call)
                and isinstance(parent.func, ast.Attribute)
                and isinstance(parent.func.value, ast.Name)
                and parent.func.attr
                in SAMPLING.get(imported_module(ctx.module, parent.func.value.id) or "", frozenset())
            )
            indexed = isinstance(parent, ast.Subscript) and not isinstance(
                parent.slice, ast.Constant | ast.Slice
            )
            if not (drawn or indexed):
                return False
            reads += 1
    return reads > 0


def _clear_cache(event: SecondPass, ctx: RuleContext) -> Fix | None:
    """A dict an object keeps on itself and fills with values that carry a graph (a memoised
    Cholesky factor, cached class embeddings): empty it at the start of each iteration, so each
    step builds its values again from the current parameters (unsafe: the cached values then follow
    the parameters, which the program never ran to see)."""
    loop = event.loop
    if loop is None or loop.method is not None or not isinstance(loop.node, ast.For | ast.While):
        return None
    anchor = body_anchor(loop.node.body)
    places = [
        (raw, spelled)
        for raw, value in ((h, event.carried[h]) for h in _listed(event.carried))
        if isinstance(raw, Place)
        and isinstance(value, Seq)
        and value.kind == "dict"
        and (spelled := _spelling(raw, event)) is not None
    ]
    caches = [spelled for _, spelled in places]
    if anchor is None or not caches or _in_header_line(anchor, loop.node):
        return None
    edit = insert_lines_before(ctx.source, anchor, [f"{name}.clear()" for name in caches])
    if edit is None:
        return None
    shown = ", ".join(f"`{name}`" for name in caches)
    memo = refill_memo(ctx, {place.attribute for place, _ in places})
    return Fix(
        f"Empty the cache {shown} at the start of each iteration",
        Applicability.SAFE if memo else Applicability.UNSAFE,
        (edit,),
        workaround=3,
    )


def _keep_no_inversion(event: SecondPass, ctx: RuleContext) -> Fix | None:
    """A ``torch.distributions`` transform whose ``cache_size=1`` gives back the inversion an earlier
    step kept (``SecondPass.cache_sites``): give it ``cache_size=0`` where its class's constructor
    sets it, so that every ``log_prob`` inverts afresh from the current parameters (unsafe: an
    inversion is then computed again where the kept one was exact, as after ``rsample``, and a
    transform that cannot be inverted in closed form needs its cache)."""
    sites = list(dict.fromkeys(event.cache_sites.values()))
    if not sites:
        return None
    edits, classes = [], []
    for site in sites:
        size = (
            site.args[0]
            if site.args
            else next((k.value for k in site.keywords if k.arg == "cache_size"), None)
        )
        owner = ctx.class_of(site)
        if not isinstance(size, ast.Constant) or size.value != 1 or owner is None:
            return None
        edits.append(replace(ctx.source, size, "0"))
        classes.append(f"`{owner.name}`")
    shown = ", ".join(classes)
    return Fix(
        f"Build {shown} with `cache_size=0`: no step reuses an earlier one's inversion",
        Applicability.UNSAFE,
        tuple(edits),
        workaround=3,
    )


def _expire_cache_key(event: SecondPass, ctx: RuleContext) -> Fix | None:
    """A value an object caches on itself (``self._kvectors``) and hands back only while a key kept
    beside it is set (``if self._cell_key is not None and torch.equal(...): return
    self._kvectors``), else computes again and stores: storing ``None`` into the key at the start of
    each iteration makes every step compute the value again from its current inputs (unsafe: the
    cache then never serves, which the program meant it to)."""
    loop = event.loop
    if loop is None or loop.method is not None or not isinstance(loop.node, ast.For | ast.While):
        return None
    anchor = body_anchor(loop.node.body)
    places = [h for h in _listed(event.carried) if isinstance(h, Place)]
    if anchor is None or not places or _in_header_line(anchor, loop.node):
        return None
    keys, shown, attrs = [], [], {place.attribute for place in places}
    for place in places:
        spelled = _spelling(place, event)
        key = _cache_key(ctx, place.attribute)
        if spelled is None or "." not in spelled or key is None:
            return None
        keys.append(f"{spelled.rpartition('.')[0]}.{key}")
        shown.append(f"`{spelled}`")
        attrs.add(key)
    edit = insert_lines_before(ctx.source, anchor, [f"{key} = None" for key in keys])
    if edit is None:
        return None
    return Fix(
        f"Empty the cache {', '.join(shown)} at the start of each iteration: store `None` into its key "
        + ", ".join(f"`{key}`" for key in keys),
        Applicability.SAFE if refill_memo(ctx, attrs) else Applicability.UNSAFE,
        (edit,),
        workaround=3,
    )


def _cache_key(ctx: RuleContext, attr: str) -> str | None:
    """The attribute whose ``None`` keeps the checked code from reading ``self.<attr>`` back: every
    read of ``self.<attr>`` stands in the body of an ``if self.<key> is not None ...:`` or after
    a store of it in its own block, and every read of ``self.<key>`` is guarded the same way."""
    keys: set[str] = set()
    for read in _reads_of(ctx.module, attr):
        guard = _guarding_key(ctx, read)
        if guard is not None:
            keys.add(guard)
        elif not _stored_before_in_block(ctx, read, attr):
            return None
    if len(keys) != 1:
        return None
    key = keys.pop()
    if key == attr or any(not _in_own_guard(ctx, read, key) for read in _reads_of(ctx.module, key)):
        return None
    return key


def _none_test_key(test: ast.expr) -> str | None:
    """``self.<key> is not None``, alone or first in an ``and``: the key."""
    first = test.values[0] if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) else test
    if not (
        isinstance(first, ast.Compare)
        and len(first.ops) == 1
        and isinstance(first.ops[0], ast.IsNot)
        and isinstance(first.comparators[0], ast.Constant)
        and first.comparators[0].value is None
    ):
        return None
    left = first.left
    own = isinstance(left, ast.Attribute) and isinstance(left.value, ast.Name) and left.value.id == "self"
    return left.attr if own and isinstance(left, ast.Attribute) else None


def _guarding_key(ctx: RuleContext, read: ast.AST) -> str | None:
    """The key of the innermost ``if self.<key> is not None ...:`` whose body holds ``read``."""
    child: ast.AST = read
    current = ctx.parents.get(read)
    while current is not None:
        if isinstance(current, ast.If) and any(child is stmt for stmt in current.body):
            return _none_test_key(current.test)
        child, current = current, ctx.parents.get(current)
    return None


def _stored_before_in_block(ctx: RuleContext, read: ast.AST, attr: str) -> bool:
    """An earlier statement of the block holding ``read``'s statement stores ``self.<attr>``."""
    stmt = ctx.statement_of(read)
    block = ctx.block_of(stmt) if stmt is not None else None
    if stmt is None or block is None:
        return False
    earlier = block[: next(i for i, s in enumerate(block) if s is stmt)]
    return any(_stores_attribute(s, [attr]) is not None for s in earlier)


def _in_own_guard(ctx: RuleContext, read: ast.Attribute, key: str) -> bool:
    """``read`` of ``self.<key>`` is the ``is not None`` test itself, or a later operand of the
    ``and`` it begins (``torch.equal(self._cell_key, cell)`` runs only when the key is set)."""
    current: ast.AST | None = ctx.parents.get(read)
    while current is not None and not isinstance(current, ast.stmt):
        if isinstance(current, ast.BoolOp | ast.Compare) and _none_test_key(current) == key:
            return True
        current = ctx.parents.get(current)
    return False


def _rerun_initialising_call(event: SecondPass, ctx: RuleContext) -> Fix | None:
    """An object's state set, before the loop, by a method of the checked code that stores it
    (``meta_model.load(model)`` assigning ``self.weights``): re-run that call at the start of each
    iteration, so each step starts from the state it sets (unsafe: the call is not shown to be only
    a forward computation)."""
    loop = event.loop
    if loop is None or loop.method is not None or not isinstance(loop.node, ast.For | ast.While):
        return None
    block, anchor = ctx.block_of(loop.node), body_anchor(loop.node.body)
    if block is None or anchor is None or _in_header_line(anchor, loop.node):
        return None
    found: list[ast.stmt] = []
    for raw in [h for h in _listed(event.carried) if isinstance(h, Place)]:
        spelled = _spelling(raw, event)
        if spelled is None or "." not in spelled:
            return None
        owner, _, attr = spelled.rpartition(".")
        calls = [s for s in block[: block.index(loop.node)] if _call_storing(ctx, s, owner, attr)]
        if not calls:
            return None
        found.append(calls[-1])
    texts = [code_of_statement(ctx.source, stmt) for stmt in dict.fromkeys(found)]
    if not texts or any(t is None for t in texts):
        return None
    edit = insert_lines_before(ctx.source, anchor, [t for t in texts if t is not None])
    if edit is None:
        return None
    shown = ", ".join(f"`{t}`" for t in texts)
    return Fix(f"Re-run {shown} at the start of each iteration", Applicability.UNSAFE, (edit,), workaround=2)


def _call_storing(ctx: RuleContext, stmt: ast.stmt, owner: str, attr: str) -> bool:
    """``stmt`` is ``<owner>.<method>(...)``, a method of the checked code that assigns ``self.<attr>``."""
    if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)):
        return False
    func = stmt.value.func
    if not isinstance(func, ast.Attribute) or ctx.text(func.value) != owner:
        return False
    return any(
        isinstance(node, ast.Assign)
        and any(_is_attr(t, [attr]) and ctx.text(getattr(t, "value", None)) == "self" for t in node.targets)
        for method in ctx.called_functions.get(stmt.value, set())
        for node in ast.walk(method)
    )


def _appended_anywhere(ctx: RuleContext, name: str) -> bool:
    """Some ``<...>.append(...)`` of the checked code fills the list ``name`` names (``log_probs``,
    or ``policy.saved_log_probs`` filled by ``self.saved_log_probs.append`` in the policy's method)."""
    last = name.rsplit(".", 1)[-1]
    for node in ast.walk(ctx.module):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        receiver = node.func.value
        spelled = receiver.attr if isinstance(receiver, ast.Attribute) else getattr(receiver, "id", None)
        if node.func.attr in ("append", "extend", "insert") and spelled == last:
            return True
    return False


def _loop_node(event: SecondPass) -> ast.AST | None:
    return event.loop.node if event.loop is not None else None


def _loop_body(event: SecondPass) -> list[ast.stmt]:
    loop = event.loop
    if loop is None:
        return []
    return list(loop.method.body if loop.method is not None else getattr(loop.node, "body", []))


def _spelling(holder: Holder, event: SecondPass) -> str | None:
    """``hidden`` stays; ``self.hidden`` of object 12 is spelled the way the loop's code reaches
    object 12 (``self.hidden``, ``trainer.hidden``, ``self.collector.hidden``), or not at all."""
    if isinstance(holder, str):
        return holder
    return event.spelled.get(holder)


def _listed(carried: dict[Holder, Value]) -> list[Holder]:
    """Carried names and places in the order a finding lists them: by how they are spelled (a place
    as its object's own methods spell it, ``self.<attribute>``), then by the place's object id
    (compared as text, the order findings have always listed them in)."""
    return sorted(carried, key=_listing_key)


def _listing_key(holder: Holder) -> tuple[str, str]:
    if isinstance(holder, str):
        return holder, ""
    return holder.describe(), str(holder.object_id)


def _shape(carried: Value, entry: Value | None) -> Value:
    """An LSTM's ``(h, c)`` may be read as one opaque tensor in the loop; the start shows the tuple."""
    if isinstance(entry, Seq) and entry.kind == "tuple" and entry.items and isinstance(carried, Tensor):
        return Seq(carried, "tuple", tuple(carried for _ in entry.items))
    return carried


def _detach_line(name: str, value: Value, ctx: RuleContext) -> tuple[str, bool] | None:
    """``name = <name detached in its own shape>``; safe for a tensor, a fixed tuple of them (the
    state itself), or a list or dict the checked code never appends to (a fixed set of states, one
    per layer); unsafe for a list that grows (later backwards no longer reach earlier items')
    graphs)."""
    fixed_set = (
        isinstance(value, Seq) and value.kind in ("list", "dict") and not _appended_anywhere(ctx, name)
    )
    if (
        isinstance(value, Seq)
        and value.kind == "list"
        and _module_output(ctx, value.item)
        and imports_torch(ctx)
    ):
        # What a module gave back is one value to the analysis, a tensor or an (h, c) pair at run
        # time (an LSTMCell's state): each item is detached in the shape it has when it runs.
        each = f"s.detach() if isinstance(s, torch.Tensor) else {_detached_tuple('s')}"
        return f"{name} = [{each} for s in {name}]", fixed_set
    expression = detach_expression(name, value)
    if expression is None:
        return None
    return f"{name} = {expression}", fixed_set or isinstance(value, Tensor) or (
        isinstance(value, Seq) and value.kind == "tuple"
    )


def _detach(event: SecondPass, ctx: RuleContext, carried: list[tuple[Holder, str]]) -> Fix | None:
    loop = event.loop
    if loop is None or not carried:
        return None
    anchor = body_anchor(_loop_body(event))
    if anchor is None:
        return None
    lines, safe = [], True
    for holder, name in carried:
        shape = _shape(event.carried[holder], event.entry.get(holder))
        made = _detach_line(name, shape, ctx)
        if made is None:
            return None
        line, line_safe = made
        safe = safe and line_safe
        runtime_shape = (
            isinstance(shape, Tensor)
            and _module_output(ctx, shape)
            and imports_torch(ctx)
            and _bound_whole(_loop_body(event), name)
            and not isinstance(event.entry.get(holder), Tensor)  # a tensor enters: a tensor it stays
        )
        if runtime_shape:
            # A library module's output may be a tuple at run time (an LSTM's ``(h, c)``): each
            # tensor is detached in the shape it has when it runs.
            line = (
                f"{name} = {name}.detach() if isinstance({name}, torch.Tensor) else {_detached_tuple(name)}"
            )
        guard = (
            _guard(name, ctx) if isinstance(shape, Tensor) and not runtime_shape else f"{name} is not None"
        )
        lines.append(f"if {guard}:\n    {line}" if holder in event.guarded else line)
    shown = ", ".join(f"`{name}`" for _, name in carried)
    entering = [event.entry[holder] for holder, _ in carried if holder in event.entry]
    backward = _conditional_backward(event, ctx)
    if backward is None and any(maybe_of(value) for value in entering):
        # What enters the loop has a graph (an encoder's output): cut at the top of each iteration,
        # no backward would ever reach what made it. Cut after each backward, the first one still
        # sends its gradient there.
        backward = _conditional_backward(event, ctx, anywhere=True)
    if backward is None and cut_starves_training(
        ctx, event.site, event.reached, _cut_at_top(event, ctx, carried), loop.node
    ):
        return None  # nothing else of this backward reaches the parameters behind them
    if backward is not None:
        # The backward runs on some iterations only (every k time steps): a cut at the top of each
        # iteration would fall inside the steps one backward trains through; it goes where the
        # backward ends a step.
        edit = insert_lines_after(ctx.source, backward, lines)
        title = f"Detach {shown} after each backward"
    else:
        edit = insert_lines_before(ctx.source, anchor, lines)
        title = f"Detach {shown} at the start of each {'call' if loop.method else 'iteration'}"
    if edit is None or _in_header_line(anchor, loop.node):
        return None
    return Fix(
        title,
        detach_carried(
            ctx,
            loop,
            entering,
            Applicability.SAFE if safe else Applicability.UNSAFE,
            recurrent=all(
                name in _recurrences(_loop_body(event), through_locals=True) or isinstance(holder, Place)
                for holder, name in carried
            ),
        ),
        (edit,),
        workaround=3,
    )


def _cut_at_top(event: SecondPass, ctx: RuleContext, carried: list[tuple[Holder, str]]) -> frozenset[int]:
    """The nodes a detach of ``carried`` at the top of each iteration cuts out of the failing
    backward: the carried values' own; for a list replayed item by item (a replay buffer sampled, or
    walked with a backward per item), those made where its items were, on every iteration: a
    backward over an item stored on an earlier iteration reaches nothing else of it."""
    own = own_nodes([event.carried[holder] for holder, _ in carried])
    replayed = [
        event.carried[holder]
        for holder, name in carried
        if isinstance(event.carried[holder], Seq) and _replayed(event, ctx, name)
    ]
    return own | same_sites(ctx, event.reached, own_nodes(replayed))


def _body_index(body: list[ast.stmt], node: ast.AST) -> int | None:
    """The index of the statement of ``body`` that holds ``node``."""
    return next((i for i, stmt in enumerate(body) if any(n is node for n in ast.walk(stmt))), None)


def _body_index_of_backward(event: SecondPass, ctx: RuleContext) -> int | None:
    """The index of the statement of the loop's body that runs the failing backward: it holds it,
    or calls the function of the checked code that does."""
    body = _loop_body(event)
    function = ctx.function_of(event.site)
    for index, stmt in enumerate(body):
        for node in ast.walk(stmt):
            if node is event.site or (
                isinstance(node, ast.Call) and function in ctx.called_functions.get(node, ())
            ):
                return index
    return None


def _replayed(event: SecondPass, ctx: RuleContext, name: str) -> bool:
    """The list ``name`` is a replay memory: the loop draws items of it (:func:`_sampled`), or walks
    it with a backward per item (:func:`_walked_to_backward`)."""
    return _sampled(ctx, _loop_body(event), name) or _walked_to_backward(event, ctx, name)


def _walked_to_backward(event: SecondPass, ctx: RuleContext, name: str) -> bool:
    """A ``for`` loop of the loop's body walks the list ``name`` and runs the failing backward for
    each item, in its own body or in a function of the checked code it calls."""
    backward_function = ctx.function_of(event.site)
    for stmt in _loop_body(event):
        for node in ast.walk(stmt):
            if not (isinstance(node, ast.For) and isinstance(node.iter, ast.Name) and node.iter.id == name):
                continue
            inside = any(n is event.site for n in ast.walk(node))
            calls = any(
                backward_function in ctx.called_functions.get(call, ())
                for call in ast.walk(node)
                if isinstance(call, ast.Call)
            )
            if inside or calls:
                return True
    return False


def _conditional_backward(event: SecondPass, ctx: RuleContext, *, anywhere: bool = False) -> ast.stmt | None:
    """The statement of the reported backward where it stands, in the loop's own body, under a
    condition (``if (step + 1) % k == 0:``) that not every iteration meets; None where it runs on
    every iteration (unless ``anywhere``) or is reached through a call."""
    loop = event.loop
    stmt = ctx.statement_of(event.site)
    container = (loop.method or loop.node) if loop is not None else None
    if stmt is None or container is None:
        return None
    current: ast.AST | None = ctx.parents.get(stmt)
    conditional = False
    while current is not None and current is not container:
        conditional |= isinstance(current, ast.If | ast.For | ast.While | ast.Try | ast.Match)
        current = ctx.parents.get(current)
    return stmt if current is container and (conditional or anywhere) else None


def _bound_whole(body: list[ast.stmt], name: str) -> bool:
    """``name`` is bound in ``body`` only as a whole item of what a call returned (``pred, state =
    model(x, state)``), never unpacked further (``out, (h, c) = lstm(x, (h, c))``: a tensor each)."""
    whole = nested = False
    for stmt in body:
        for node in ast.walk(stmt):
            if not isinstance(node, ast.Assign):
                continue
            for target in node.targets:
                items = target.elts if isinstance(target, ast.Tuple | ast.List) else [target]
                whole |= any(isinstance(i, ast.Name) and i.id == name for i in items)
                nested |= any(
                    isinstance(n, ast.Name) and n.id == name
                    for i in items
                    if isinstance(i, ast.Tuple | ast.List)
                    for n in ast.walk(i)
                )
    return whole and not nested


def _detached_tuple(name: str) -> str:
    return f"tuple(t.detach() for t in {name})"


def _guard(name: str, ctx: RuleContext) -> str:
    """``isinstance(total, torch.Tensor)`` where ``torch`` is imported, else ``is not None``."""
    return f"isinstance({name}, torch.Tensor)" if imports_torch(ctx) else f"{name} is not None"


def _module_output(ctx: RuleContext, value: Value) -> bool:
    """``value`` is a tensor a library module gave back (or one the analysis cannot trace to a
    single op): at run time it may be a tuple of tensors."""
    if not isinstance(value, Tensor):
        return False
    return value.root is None or ctx.nodes[value.root].site in ctx.module_calls


def _in_header_line(anchor: ast.stmt, loop: ast.stmt | None) -> bool:
    return loop is not None and anchor.lineno == loop.lineno


def _reset_every_instance(event: SecondPass, ctx: RuleContext) -> Fix | None:
    """State that objects of one class of the checked code keep in one attribute (a spiking neuron's
    membrane potential ``self.v``), which its ``__init__`` sets to a constant and the loop entered
    holding: store that constant back at the start of each iteration, into the objects the loop
    spells (``body[0].neuron.v`` where the container's modules are known) and into every object
    of the class inside the library containers the loop runs as library modules, built over
    objects of the checked code (whose modules the analysis does not know): each iteration starts
    its sequence from the state every object starts from. Unsafe: the state no longer flows from
    one iteration into the next, which a stream read in chunks would mean."""
    loop = event.loop
    if loop is None or loop.method is not None or not isinstance(loop.node, ast.For | ast.While):
        return None
    anchor = body_anchor(loop.node.body)
    places = [h for h in _listed(event.carried) if isinstance(h, Place)]
    exposed = upward_exposed(_loop_body(event))
    if anchor is None or not places or _in_header_line(anchor, loop.node):
        return None
    if any(not isinstance(h, Place) and h in exposed for h in event.carried):
        return None  # a name of the loop carries it too
    attrs = {place.attribute for place in places}
    cls = _storing_class(ctx, attrs)
    start = _initial_constant(cls, attrs) if cls is not None else None
    if cls is None or start is None or any(event.entry.get(p) != Const(start.value) for p in places):
        return None
    attr, text = attrs.pop(), ctx.text(start)
    lines = []
    for place in places:
        spelled = _spelling(place, event)
        if spelled is None or "." not in spelled:
            return None
        lines.append(f"{spelled} = {text}")
    lines.sort()  # by how the code spells each object (`body[0].neuron.mem`, `encoder.mem`)
    module = unused_name(ctx, "module")
    for root in _containers_of_own_objects(ctx, loop.node):
        lines.append(
            f"for {module} in {root}.modules():\n"
            f"    if isinstance({module}, {cls.name}):\n"
            f"        {module}.{attr} = {text}"
        )
    edit = insert_lines_before(ctx.source, anchor, lines)
    if edit is None:
        return None
    return Fix(
        f"Reset `.{attr}` of every `{cls.name}` to `{text}` at the start of each iteration",
        Applicability.UNSAFE,
        (edit,),
        workaround=2,
    )


def _storing_class(ctx: RuleContext, attrs: set[str]) -> ast.ClassDef | None:
    """The one class, defined at the module's top level, whose methods store ``self.<attr>`` for
    the one attribute of ``attrs``; None where another function stores it too."""
    if len(attrs) != 1:
        return None
    classes: dict[int, ast.ClassDef] = {}
    for node in ctx.all_statements():
        stored = _stores_attribute(node, list(attrs))
        if stored is None:
            continue
        func = ctx.function_of(node)
        owner = ctx.parents.get(func) if func is not None else None
        if not isinstance(owner, ast.ClassDef) or ctx.text(getattr(stored[0], "value", None)) != "self":
            return None
        classes[id(owner)] = owner
    if len(classes) != 1:
        return None
    (cls,) = classes.values()
    return cls if cls in ctx.module.body else None


def _initial_constant(cls: ast.ClassDef, attrs: set[str]) -> ast.Constant | None:
    """The number ``cls.__init__`` stores into ``self.<attr>`` by a statement of its own body
    (``self.v = 0.0``, or an item of ``self.tau, self.v = tau, 0.0``), its only store there; not
    ``None``, which a cache may pair with another value."""
    init = next((s for s in cls.body if isinstance(s, ast.FunctionDef) and s.name == "__init__"), None)
    if init is None:
        return None
    stores = [node for node in ast.walk(init) if _stores_attribute(node, list(attrs)) is not None]
    if len(stores) != 1 or not isinstance(store := stores[0], ast.Assign) or store not in init.body:
        return None
    if len(store.targets) != 1:
        return None
    pairs = _paired_values(store.targets[0], store.value, attrs)
    value = pairs.get(f"self.{next(iter(attrs))}")
    number = isinstance(value, ast.Constant) and type(value.value) in (int, float)
    return value if number and isinstance(value, ast.Constant) else None


def _containers_of_own_objects(ctx: RuleContext, loop: ast.For | ast.While) -> list[str]:
    """The names the loop's body calls as library modules (``blocks(x)``) that its function binds,
    before the loop, to a library container built over objects of the checked code's classes
    (``nn.Sequential(SEWBlock(16), SEWBlock(16))``): the analysis does not follow what they hold."""
    classes = {s.name for s in ctx.all_statements() if isinstance(s, ast.ClassDef)}
    block = ctx.block_of(loop) or []
    built: dict[str, ast.expr] = {}
    for stmt in block[: index_in(block, loop) or 0]:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            built.update(_paired_values(stmt.targets[0], stmt.value))
    found: list[str] = []
    for node in ast.walk(loop):
        if not (node in ctx.module_calls and isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
            continue
        made = built.get(node.func.id)
        holds_own = made is not None and any(
            isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id in classes
            for arg in getattr(made, "args", [])
            for call in ast.walk(arg)
        )
        if holds_own and node.func.id not in found:
            found.append(node.func.id)
    return found


def _paired_values(target: ast.expr, value: ast.expr, attrs: set[str] | None = None) -> dict[str, ast.expr]:
    """``a, b = f(), g()`` -> ``{"a": f(), "b": g()}``; ``a = f()`` -> ``{"a": f()}``; with ``attrs``,
    ``self.<attr>`` targets too (``self.tau, self.v = tau, 0.0`` -> ``{"self.v": 0.0}``)."""
    targets, values = [target], [value]
    if isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple) and len(target.elts) == len(value.elts):
        targets, values = target.elts, value.elts
    paired: dict[str, ast.expr] = {}
    for item, made in zip(targets, values, strict=True):
        if isinstance(item, ast.Name):
            paired[item.id] = made
        elif attrs and isinstance(item, ast.Attribute) and item.attr in attrs and is_self_attribute(item):
            paired[f"self.{item.attr}"] = made
    return paired


def _sum_over_inner_loop(event: SecondPass, ctx: RuleContext) -> Fix | None:
    """A loop nested in another whose iterations each clear, backward and step over a loss that
    reaches the previous iteration's graph (a trajectory's transitions, each error built from the
    previous state's forward pass), where what it carries entered it holding no graph: sum the
    iterations' losses and backward once after the loop, then step (the version that trains on the
    whole trajectory at once). Unsafe: the optimizer steps once per run of the loop, not once per
    iteration."""
    loop = event.loop
    stmt = ctx.statement_of(event.site)
    if loop is None or loop.method is not None or not isinstance(loop.node, ast.For) or stmt is None:
        return None
    exposed = upward_exposed(_loop_body(event))
    entering = [value for holder, value in event.entry.items() if _spelling(holder, event) in exposed]
    if not _inside_loop(ctx, loop.node) or any(nodes_of(value) or maybe_of(value) for value in entering):
        return None  # a loop of its own (one step in all), or what enters it already has a graph
    block = ctx.block_of(stmt)
    loss = _plain_backward_of_name(stmt)
    if block is None or loss is None or ctx.function_of(stmt) is not ctx.function_of(loop.node):
        return None
    index = block.index(stmt)
    clears = _optimizer_calls_around(block[:index][::-1], "zero_grad")[::-1]
    steps = _optimizer_calls_around(block[index + 1 :], "step")
    inside = [n for n in ast.walk(loop.node) if isinstance(n, ast.Call) and n is not event.site]
    if not steps or any(isinstance(n.func, ast.Attribute) and n.func.attr == "backward" for n in inside):
        return None  # no step to move after the loop, or another backward runs in it
    total = unused_name(ctx, f"{loss}_sum")
    moved = [*clears, stmt, *steps]
    edits = [
        insert_lines_before(ctx.source, loop.node, [f"{total} = 0"]),
        insert_lines_before(ctx.source, moved[0], [f"{total} = {total} + {loss}"]),
        *(delete_statement(ctx.source, s) for s in moved),
        insert_lines_after(
            ctx.source,
            loop.node,
            [ctx.text(s) for s in clears] + [f"{total}.backward()"] + [ctx.text(s) for s in steps],
        ),
    ]
    if any(edit is None for edit in edits):
        return None
    return Fix(
        f"Sum `{loss}` over the loop's iterations and backward once after it",
        Applicability.UNSAFE,
        tuple(edit for edit in edits if edit is not None),
        workaround=1,
    )


def _inside_loop(ctx: RuleContext, node: ast.stmt) -> bool:
    """``node`` lies in the body of a loop of its own function."""
    current = ctx.parents.get(node)
    while current is not None and not isinstance(current, ast.FunctionDef | ast.AsyncFunctionDef):
        if isinstance(current, ast.For | ast.While):
            return True
        current = ctx.parents.get(current)
    return False


def _plain_backward_of_name(stmt: ast.stmt) -> str | None:
    """``loss.backward()`` alone: ``loss``."""
    call = stmt.value if isinstance(stmt, ast.Expr) else None
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)):
        return None
    receiver = call.func.value
    plain = call.func.attr == "backward" and not call.args and not call.keywords
    return receiver.id if plain and isinstance(receiver, ast.Name) else None


def _optimizer_calls_around(statements: list[ast.stmt], method: str) -> list[ast.stmt]:
    """The run of ``<name>.<method>()`` statements that ``statements`` begins with."""
    found = []
    for stmt in statements:
        call = stmt.value if isinstance(stmt, ast.Expr) else None
        if not (
            isinstance(call, ast.Call)
            and isinstance(call.func, ast.Attribute)
            and call.func.attr == method
            and isinstance(call.func.value, ast.Name)
            and not call.args
            and not call.keywords
        ):
            break
        found.append(stmt)
    return found


def _runs_only_when_set(
    event: SecondPass, ctx: RuleContext, lines: list[str], states: list[tuple[Holder, str]]
) -> bool:
    """The failing backward runs only in the body of an ``if <state> is not None`` of the loop, for
    a state the reset stores ``None`` into (``previous = None``): reset at the start of each
    iteration, the test never holds and the backward never runs (rule 10: nothing would train)."""
    reset_to_none = {name for (_, name), line in zip(states, lines, strict=True) if line == f"{name} = None"}
    container = _loop_node(event)
    child: ast.AST = event.site
    current = ctx.parents.get(event.site)
    while current is not None and current is not container:
        if isinstance(current, ast.If) and any(child is stmt for stmt in current.body):
            test = current.test
            tests = [
                test,
                *(test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) else []),
            ]
            if any(_is_not_none_test(test) in reset_to_none for test in tests):
                return True
        child, current = current, ctx.parents.get(current)
    return False


def _is_not_none_test(test: ast.expr) -> str | None:
    """``name is not None``: the name."""
    if (
        isinstance(test, ast.Compare)
        and len(test.ops) == 1
        and isinstance(test.ops[0], ast.IsNot)
        and isinstance(test.comparators[0], ast.Constant)
        and test.comparators[0].value is None
        and isinstance(test.left, ast.Name)
    ):
        return test.left.id
    return None


def _recompute_when_replayed(event: SecondPass, ctx: RuleContext) -> Fix | None:
    """A replay memory (sampled, or walked with a backward per item) that keeps a value the loop
    computed by a forward pass (each step's ``dist.log_prob(action)``, appended to the memory or to
    a list the memory keeps): keep a function that computes it again from the inputs it was
    computed from, bound as they are when it is stored (``lambda state=state, action=action:
    agent(encode(state))[0].log_prob(action)``), and call it where the memory's items are read
    (``t[0]()``, ``[f() for f in log_probs]``), so each update builds its graph afresh from the
    current parameters. Unsafe: a stored step's value then follows the parameters. Not offered where
    what it is computed from is not kept by a pure forward computation (a random draw in it)."""
    loop = event.loop
    if loop is None or loop.method is not None or not isinstance(loop.node, ast.For | ast.While):
        return None
    memories = [h for h in event.carried if isinstance(h, str) and isinstance(event.carried[h], Seq)]
    if not any(_replayed(event, ctx, name) for name in memories):
        return None
    stored = _stored_computation(event, ctx, loop.node)
    if stored is None:
        return None
    append, expr, position = stored
    recipe = _recipe(ctx, loop.node, ctx.statement_of(append), expr)
    reads = _reads_of_stored(ctx, expr, position) if recipe is not None else None
    if recipe is None or not reads:
        return None
    text = f"({recipe})" if position is not None else recipe
    edits = [replace(ctx.source, expr, text), *reads]
    return Fix(
        f"Keep what computes `{ctx.text(expr)}` in the replay memory and compute it again where it is read",
        Applicability.UNSAFE,
        tuple(edits),
        workaround=2,
    )


def _stored_computation(
    event: SecondPass, ctx: RuleContext, loop: ast.For | ast.While
) -> tuple[ast.Call, ast.expr, int | None] | None:
    """The one value the loop appends (``memory.append((dist.log_prob(action), state, ...))``, or
    ``log_probs.append(dist.log_prob(action))``) that the failing backward reaches through a node
    made by that very expression: the append, the expression, and its place in the appended tuple
    (None where it is appended alone)."""
    reached = {id(ctx.nodes[n].site) for n in event.reached}
    found = []
    for node in ast.walk(loop):
        if not (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "append"
            and len(node.args) == 1
        ):
            continue
        arg = node.args[0]
        items = list(enumerate(arg.elts)) if isinstance(arg, ast.Tuple) else [(None, arg)]
        found += [(node, item, index) for index, item in items if id(item) in reached]
    return found[0] if len(found) == 1 else None


def _recipe(ctx: RuleContext, loop: ast.For | ast.While, stmt: ast.stmt | None, expr: ast.expr) -> str | None:
    """``lambda <inputs>: <expr>``, where every name ``expr`` reads that the loop computed by a
    forward pass with a graph (``dist, _ = agent(encode(state))``) is computed again in it from
    what that reads, and every other name the loop assigns is bound as it is now (``state=state``)."""
    if stmt is None or not forward_expression(ctx, expr):
        return None
    assigned = {n.id for n in ast.walk(loop) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    bound: list[str] = []
    text = _inlined(ctx, (loop, assigned, bound), stmt, expr, depth=0)
    if text is None:
        return None
    defaults = ", ".join(f"{name}={name}" for name in bound)
    return f"lambda {defaults}: {text}" if defaults else f"lambda: {text}"


Inlining = tuple[ast.For | ast.While, set[str], list[str]]
"""The loop a recipe is built in, the names it assigns, and those the recipe binds as they are."""


def _inlined(ctx: RuleContext, inlining: Inlining, stmt: ast.stmt, expr: ast.expr, depth: int) -> str | None:
    """The text of ``expr`` (run by ``stmt``) with each name the loop made by a forward pass with a
    graph replaced by what made it, and each other name the loop assigns bound as it is."""
    loop, assigned, bound = inlining
    if depth > MAX_INLINED:
        return None
    replacements: dict[int, str] = {}
    for name in names_loaded(expr):
        if name.id not in assigned:
            continue  # the same on every iteration (a module, a function): read when it runs
        maker = _last_binding(ctx, loop, stmt, name.id)
        if maker is None or not _makes_graph(ctx, maker):
            if name.id not in bound:
                bound.append(name.id)  # no graph: kept as it is when stored
            continue
        value = _item_given(maker, name.id)
        if value is None or not forward_only(ctx, maker):
            return None  # what made it is not a pure forward computation that can run again
        inner = _inlined(ctx, inlining, maker, value, depth + 1)
        if inner is None:
            return None
        index = _index_given(maker, name.id)
        atomic = isinstance(value, ast.Name | ast.Attribute | ast.Call | ast.Subscript)
        inner = inner if atomic else f"({inner})"
        replacements[id(name)] = inner if index is None else f"{inner}[{index}]"
    return _spliced(ctx, expr, replacements)


MAX_INLINED = 4
"""The deepest chain of forward statements a recipe computes again (``dist`` from ``logits`` from
``features``...)."""


def _last_binding(ctx: RuleContext, loop: ast.For | ast.While, stmt: ast.stmt, name: str) -> ast.stmt | None:
    """The statement of the loop that last bound ``name`` before ``stmt``, in ``stmt``'s block or an
    enclosing one inside the loop."""
    current: ast.AST | None = stmt
    while current is not None and current is not loop:
        block = ctx.block_of(current) if isinstance(current, ast.stmt) else None
        for earlier in reversed(block[: index_in(block, current) or 0] if block else []):
            stores = (
                n for n in ast.walk(earlier) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
            )
            if any(n.id == name for n in stores):
                return earlier
        current = ctx.parents.get(current)
    return None


def _makes_graph(ctx: RuleContext, stmt: ast.stmt) -> bool:
    """A graph node was made while ``stmt`` ran (in it, or in what it called)."""
    return any(node.stmt is stmt or any(s is stmt for _, s in node.stmts) for node in ctx.nodes)


def _item_given(stmt: ast.stmt, name: str) -> ast.expr | None:
    """What ``stmt`` (``name = <value>``, or ``name, other = <value>``) computes ``name`` from."""
    if not isinstance(stmt, ast.Assign) or len(stmt.targets) != 1:
        return None
    target = stmt.targets[0]
    if isinstance(target, ast.Name) and target.id == name:
        return stmt.value
    return stmt.value if _index_given(stmt, name) is not None else None


def _index_given(stmt: ast.stmt, name: str) -> int | None:
    """``name``'s place in the flat tuple ``stmt`` unpacks (``dist, _ = agent(x)``: 0)."""
    target = stmt.targets[0] if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 else None
    if not isinstance(target, ast.Tuple) or not all(isinstance(e, ast.Name) for e in target.elts):
        return None
    names = [e.id for e in target.elts if isinstance(e, ast.Name)]
    return names.index(name) if names.count(name) == 1 else None


def _spliced(ctx: RuleContext, expr: ast.expr, replacements: dict[int, str]) -> str | None:
    """The source of ``expr`` (on one line) with the names given by id replaced by their texts."""
    span = ctx.source.span(expr)
    text = ctx.source.segment(expr)
    if not text or span.start.line != span.end.line:
        return None
    names = sorted(
        (n for n in ast.walk(expr) if id(n) in replacements),
        key=lambda n: -ctx.source.span(n).start.character,
    )
    for name in names:
        at = ctx.source.span(name)
        start, end = at.start.character - span.start.character, at.end.character - span.start.character
        text = f"{text[:start]}{replacements[id(name)]}{text[end:]}"
    return text


def _reads_of_stored(ctx: RuleContext, expr: ast.expr, position: int | None) -> list[Edit] | None:
    """Where the checked code reads what ``expr`` stored, as the graph shows it (the nodes made right
    over the ones ``expr`` made): ``t[0]`` of the memory's tuples becomes ``t[0]()``, a list of
    them handed alone to a call (``torch.stack(log_probs)``) becomes ``[f() for f in log_probs]``.
    None where a read is of another shape."""
    made = {node.id for node in ctx.nodes if node.site is expr}
    over = [
        node
        for node in ctx.nodes
        if node.below & made
        and not any(ctx.nodes[b].below & made for b in node.below)
        and node.id not in made
    ]
    sites = {id(node.site): node.site for node in over}
    if not sites:
        return None
    edits: list[Edit] = []
    for site in sites.values():
        read = _read_in(ctx, site, position)
        if read is None:
            return None
        edits.extend(read)
    return edits


def _read_in(ctx: RuleContext, site: ast.expr, position: int | None) -> list[Edit] | None:
    """The edits that call what is stored where ``site`` reads it; None where its function also
    reads what is stored otherwise (``t[0].item()`` beside ``torch.stack([t[0] for t in batch])``):
    that read would get the function."""
    scope = ctx.function_of(site) or ctx.module
    if position is not None:
        items = [n for n in ast.walk(site) if _item_read(n, position)]
        elsewhere = [n for n in ast.walk(scope) if _item_read(n, position) and n not in items]
        if not items or elsewhere:
            return None
        return [replace(ctx.source, n, f"{ctx.text(n)}()") for n in items]
    if not (isinstance(site, ast.Call) and len(site.args) == 1 and not site.keywords):
        return None
    listed = site.args[0]
    if not isinstance(listed, ast.Name) or _read_otherwise(ctx, scope, listed):
        return None
    each = unused_name(ctx, "compute")
    return [replace(ctx.source, listed, f"[{each}() for {each} in {ctx.text(listed)}]")]


def _item_read(node: ast.AST, position: int) -> bool:
    """``name[<position>]``."""
    return (
        isinstance(node, ast.Subscript)
        and isinstance(node.slice, ast.Constant)
        and node.slice.value == position
        and isinstance(node.value, ast.Name)
        and isinstance(node.ctx, ast.Load)
    )


def _builtin_len(ctx: RuleContext, node: ast.AST | None) -> bool:
    """``len(...)``, Python's builtin (the module does not rebind the name)."""
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "len"
        and builtin_unshadowed("len", ctx.module)
    )


def _read_otherwise(ctx: RuleContext, scope: ast.AST, listed: ast.Name) -> bool:
    """``scope`` reads the list ``listed`` names other than there, by appending to it, asking its
    ``len`` or putting it in a tuple or list (to store it): by an item, an iteration, a call."""
    for use in names_loaded(scope):
        if use.id != listed.id or use is listed:
            continue
        parent = ctx.parents.get(use)
        appended = isinstance(parent, ast.Attribute) and parent.attr in ("append", "clear")
        counted = _builtin_len(ctx, parent)
        if not (appended or counted or isinstance(parent, ast.Tuple | ast.List)):
            return True
    return False
