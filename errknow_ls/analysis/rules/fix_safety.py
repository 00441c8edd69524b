"""What a *safe* fix is, in one place; every rule asks here before it marks a fix safe.

``check --fix`` applies safe fixes without asking, so a safe fix must never change what trains.
A fix is safe only when all of these hold:

1. **It only changes where the graph is cut or rebuilt.** It may detach a value, store a value
   detached, sum losses into one backward, or re-run (recompute) a statement; or read from
   ``.grad`` the gradient a backward just left there instead of asking for it again over the
   freed graph, where ``.grad`` held nothing before that backward (:func:`read_backward_grads`);
   the same holds where the second backward of a returned last loss, and the ``zero_grad()`` right
   before it, are removed, and nothing between the two backwards changes ``.grad``
   (``common_fixes.grads_still_held``); and where one tensor is backwarded, its gradients read,
   cleared by an optimizer's ``zero_grad()`` and backwarded again in the same block, the clear and
   the second backward are removed where ``.grad`` held nothing before the first (an optimizer
   cleared it right before, or no statement before it ever backwarded, stepped or stored a
   gradient) and that optimizer owns every parameter the graph reads, so its clear left nothing
   behind (:func:`clear_between_removed`). Nothing else.
2. **What it re-runs is a pure forward computation, as the analysis resolved it**: an assignment
   whose every call the interpreter followed as a torch op, a tensor method (not an in-place one,
   whose name ends in ``_``), a module's forward or a torch function that only reads its arguments
   (``torch.equal``, ``torch.argmax``: ``torch_api.PURE_READS``; :attr:`RuleContext.forward_calls`),
   or as a function of the checked code (or a ``forward`` of its modules) that only computes: it assigns
   local names and returns, and every call in it is again a forward computation
   (:attr:`RuleContext.called_functions`). Never a random draw (``rsample``, ``torch.randn``:
   re-run, it draws other numbers). Never a
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
   (2), and it detaches only values carried or stored between training steps (a loop in which an
   optimizer steps), never a tensor the current step's loss must send its gradient through (a
   decoder's hidden state between its time steps: :func:`detach_carried`; a value stored and read
   back within one step: :func:`cuts_own_step`), never a memo filled once and read on every later
   step (:func:`stored_once`), and a carried state is cut where the backward ends a step, after
   that backward where it runs only on some iterations; losses are summed into one backward only
   where each learns through a part of its own (:func:`sum_losses`); a shared value is detached in
   a loss only where the optimizer that steps after that loss is not built over the module that made
   the value (:func:`detach_in_first`); a target network's soft update goes under
   ``torch.no_grad()`` only where it follows the step's last backward and no optimizer owns the
   target (:func:`update_between_steps`), and a history appended after the step's last backward
   keeps detached copies only where it entered the loop without a graph (:func:`detach_history`);
   a state an object's method updates through a local name (``centers = m * self.centers + ...``,
   then ``self.centers = centers``) is stored detached only where no read of it can follow the
   store within a step: every read precedes the store in that method, outside its loops, and the
   method runs once per step (:func:`read_only_before_store`, :func:`chained_within_step`).
5. **State is re-initialised only where every iteration re-runs the same sequence**: a state a
   loop carries and updates within each iteration (a recurrent state stepped over a sequence by an
   inner loop) is reset at the top of the loop, by re-running the pure statement that initialised
   it before the loop (``hidden = torch.zeros(n, 8)``) or by storing back the ``None`` the object
   held when the loop began (``layer.state = None``), when the loop reads nothing of its own
   iteration (``for epoch in range(epochs)``, its target read only by ``print``): each iteration
   then starts the same sequence from its start, where carrying the last state (or detaching it) would
   feed the end of the sequence into its beginning (:func:`reset_state`). Such a state is not
   detached where it is stored, since that cuts inside a step (:func:`detach_stored`).
6. **A detach respects the value's shape**: a tensor gets ``.detach()``; a list, tuple or dict of
   tensors gets every item detached in its own shape (:func:`detach_expression`); a value whose
   shape the analysis does not know gets no detach.

7. **A graph is retained only where it is truly reused**: ``retain_graph=True`` on a gradient
   taken again and again from one differentiable gradient (``create_graph=True``, built once:
   Hessian-vector products, power iteration, conjugate gradient) while no optimizer steps in the
   loop: every product differentiates the same graph at the same parameters
   (:func:`retain_reused_gradient`).

8. **A value an object computed once from its own parameters is computed where it is read** only
   where those parameters reach nothing else: ``self.weight = self.g * self.v / self.v.norm()`` in
   ``__init__``, read as ``self.weight`` by the object's methods, while nothing else in the checked
   code reads ``self.g`` or ``self.v`` (by their names, by a string, or with every parameter at once
   other than to build an optimizer). The first step then computes the same value at the same
   parameters, and the parameters keep learning on every later step; detached, they would never
   learn at all, so it is no target compared with its own source (an anchor ``self.w0 = self.w *
   1`` read next to ``self.w`` stays unsafe) (:func:`inline_derived`).

9. **A value built once before a loop that only reads it is detached** only where cutting its
   graph changes nothing that trains: no optimizer of the program is handed a parameter that
   graph reads (a teacher's or a frozen encoder's output, read by a loop whose optimizer is built
   over the student), and nothing else sees a gradient there — no ``.grad`` read, no hook, no
   ``autograd.grad`` with respect to a tensor of it, no code the checker does not follow handed a
   part of it. Which parameters an optimizer is handed and which a graph reads is decided by the
   modules' identities (the constructor call that made each, ``ownership.py``), never by their
   names; where any of it is not known, or an entry point did not run to its end, it is unsafe
   (:func:`detach_built_once`). The same holds for a value an object's own method computes and
   keeps on itself between steps (a Cholesky factor cached in eval mode): it is stored detached
   where it is stored only where the graph of what computes it, on every run of those statements
   and for every object, reads no parameter an optimizer owns (:func:`detach_untrained_store`).
   For a value built once before the loop, an optimizer that owns such a parameter counts only
   where it steps at or after the loop's first backward through the value (an autoencoder's
   optimizer, done before a density model is fitted to its encoder's latents, does not): the
   gradient a later backward would send there is never applied (:func:`_no_step_after`).

10. **A cut that stops a parameter an optimizer owns from learning is no fix at all**, not even an
   unsafe one: where every path the failing backward has to such a parameter runs through the
   values a fix would detach (a policy read only through the log-probabilities a replay memory
   stores, a reward model read only through the advantages built before the PPO epochs) or a
   backward it would delete (the only backward of a second loop), the fixed program runs but that
   parameter never trains again (:func:`cut_starves_training`; the optimizers that count are those
   stepped in the loop or after the backward, and those that own a parameter the backward still
   reaches: an encoder another loop trained, whose latents a flow's loop reads, may be cut).
   Likewise a value built once that enters the loss only as a term of a sum (a penalty computed in
   ``__init__``) is not detached where an optimizer owns what it reads: detached, it is a
   constant, and the fix would silently drop it (:func:`only_added`); a replay memory (sampled, or
   walked with a backward per item) is not emptied or reset, which would end the replay; and two
   losses are not summed where the second optimizer clears, between the two backwards, the
   gradient the first loss sends to its parameters (:func:`clears_first_gradient`). Only a fix
   that rebuilds the graph is offered there, or none.

11. **A value built once for every iteration of a loop that steps another optimizer in turn is not
   recomputed in that loop**, not even unsafely: where statements run once per iteration of an outer
   loop and the inner loop's iterations each step another optimizer (``optimizers[i].step()`` in
   ``for i in range(2)``: the peers of deep mutual learning, MADDPG's agents), re-run per inner
   iteration the later iterations would read parameters the earlier ones just stepped, a sequential
   update the program, which built the value once for all of them, did not mean; the fix that
   detaches only the other peers' items is not shown, since the analysis merges a list's items
   (:func:`recompute_in_loop`, :func:`built_for_turns`). Each turn's backward is restricted
   instead to the parameters its optimizer steps (``loss.backward(inputs=...)``: torch runs only
   the part of the graph that leads to them, leaving the other peers' graphs to their own turns,
   as the detach would), unsafe: which parameters each turn reaches is not shown (the modules a
   comprehension made share one origin) and the gradients the other peers no longer receive are
   not shown unread. Where the loop only clears, backwards and steps each optimizer over
   one loss built before it, one backward and then every optimizer's step is what it means, and
   is offered (``pre_loop_graph_backward._backward_once_then_step_each``), safely where the loop
   names its optimizers one by one, they own apart parameters that together are every parameter the
   graph reads, and nothing else sees the gradients: each steps on what its turn would hand it
   over a kept graph (:func:`backward_once_steps_each`).

12. **A value the program itself recomputed is read in place of the stale one**: where, between the
   first backward and the second loss, a statement assigns a name nothing reads (nor declares
   global) the very expression (the same syntax tree) that made the value the second loss reaches
   through the freed graph, and that statement runs on every path to the second loss, the second
   loss reads that name instead (``gen_imgs = generator(torch.randn(n, d))`` beside the critic
   loop's stale ``fake_imgs``; inside a loop whose every iteration backwards again, a statement
   of its body before the second loss: PGD's ``logits = model(ids)`` beside the clean ``outputs``
   built before the attack loop). Safe: it re-runs nothing (the program already drew that noise and
   ran that forward), adds no cut, and keeps every gradient; the graph is rebuilt by the program's
   own statement (``common_fixes.read_recomputed``).

13. **A module's output built once before a loop that runs that module again, or stored in a
   replay buffer that later steps sample, is detached**,
   beyond rule 9, where the cut keeps which tensors the optimizers update: the value's graph reads
   parameters only through modules' forward calls (a policy's log-probabilities on a rollout, a
   model's predictions on anchor inputs, the embedding of a token; never an op on a parameter
   itself, a transform rule 8 computes where it is read), and the failing backward, cut there,
   still reaches every parameter any optimizer owns that it reached before, through the loop's own
   forward pass; each module it reaches again is the one its constructor call made (not one of
   several a comprehension made) and shares no parameter with another; and nothing else sees a
   gradient there (rule 9's ``.grad`` reads, hooks, ``autograd.grad``, code not followed).
   Detached, the value is what every later iteration already reads: a constant; only the gradient
   the first iteration would have sent back through it is gone, which changes no tensor the
   optimizers update (:func:`detach_built_once`, :func:`ownership.cut_keeps_owned`). Where the cut
   leaves an owned module without any path, rule 10 withholds the fix.

14. **A memo is emptied at the start of each iteration** where it is one: every function of the
   checked code that stores into the cached attribute (or an item of it, or the key that lets it
   serve), but ``__init__``, only computes, as rule 2 means it (no random draw, no call for an
   effect), and stores into it values that never read what it held (filled from its inputs, not a
   recurrent state computed from its previous value, which rule 5 resets or rule 4 cuts), nothing
   outside the object's methods stores into it (``model._memo[k] = v``), and no other call changes
   it (``self.cache.update(...)`` is not shown). Emptied, the next read runs
   that fill again: it computes what the memo stands for, at the step's own parameters, which is
   what the program computes without the cache; no constructor runs, no cut is made, and the
   optimizers update the same tensors (:func:`refill_memo`).

15. **Two losses of one forward pass, backwarded one after the other with no step between, are kept
   by recomputing the shared values before the second backward** where summing them into one
   backward would be safe (rule 4, :func:`sum_losses`: each learns through a part of its own) and
   the recompute is shown to compute the very tensors the program computed: the statements re-run
   are pure forward computations (rule 2) and every statement from the first of them to the second
   backward is one of them, a forward computation into names they do not read, a ``zero_grad()``
   of an optimizer the program built, before the first backward, or the first backward itself —
   the backward call, or a call the interpreter resolved to functions or lambdas of the checked
   code whose body is only that backward (``accelerator.backward(loss)``, ``backward_fn =
   lambda loss: loss.backward()``); no loop around the second backward leaves the first of them
   out (the rest of its body would run between too); no optimizer steps and no parameter changes
   in between (the interpreter's record), and every entry point ran to its end. The second backward then sends
   the gradients it would send through a kept graph, onto what the first left in ``.grad``: what
   summing the losses sends, with no constructor run, no cut and the same tensors updated
   (:func:`recompute_as_retained`). A call the checker resolves to no code of the checked program
   (a helper of another package) between the two is not shown, and stays unsafe. The same holds
   for one loss whose graph a ``.backward()`` freed and whose gradient ``torch.autograd.grad`` then
   asks for (a curvature probe after the training backward): ``grad`` adds nothing to ``.grad``, so
   the loss recomputed right before it gives what a kept graph would; where the second pass is a
   ``.backward()`` of the same loss, it would add its gradient to the first's (one gradient or
   two?), and the recompute stays unsafe (``double_backward.build``).

16. **A forward hook removed before a loop that runs a module only for its hooks is registered
   again** by re-running, right before the loop, the one statement that registered it, where that
   statement only builds objects of plain classes of the checked code (no base class: never a
   module, an optimizer, a parameter, a scheduler or a loader) whose constructor only stores, on
   the object, the handles of ``register_forward_hook`` calls handing it one of its own methods,
   each of which only stores, on the object, what it is handed (``self.features = output``);
   where the loop calls a module's forward as a statement of its own, its value discarded (the
   call is there for its hooks alone), and reads the names that statement binds; nothing between
   that statement and the loop rebinds a name it reads; and every entry point ran to its end. The
   loop then reads, after each forward, what the hook stored from that forward, as the loop before
   the removal did; nothing else runs again, no cut is made, and the optimizers update the same
   tensors (:func:`hooks_registered_again`; fastai's fix of its style-transfer notebook).

17. **Two losses of one forward pass, backwarded one after the other, are kept by
   ``retain_graph=True`` on the first backward** where summing them into one backward would be safe
   (rule 4, :func:`sum_losses`: each learns through a part of its own), they are two losses (not one
   backwarded twice: one gradient or two?), the first pass is a ``.backward()`` (an
   ``autograd.grad`` asks whether its gradient is meant to be differentiated), every optimizer step
   between changed only parameters the second graph does not read (the interpreter's record; or
   nothing stepped), no code the checker does not follow was handed a parameter or a tensor of the
   second graph, and every entry point ran to its end. The kept graph then holds, unchanged, every
   tensor the second backward needs, and that backward sends exactly the gradients the program
   wrote, the ones rule 15's recompute would send: no constructor runs, no cut is made and the
   same tensors are updated (:func:`retain_for_second_loss`). Where a step between changed what
   the second graph reads, the retain is not offered at all (``common_fixes.retain_first``).

18. **A list that grows by each step's tensors, whose items enter the loss only as terms of a
   sum, has its items detached at the start of each iteration** (activations a forward hook
   records, summed into a penalty and never emptied): a cut between training steps, as rule 4 makes
   for a running total, where the loop steps an optimizer and every node of the failing backward
   that leads both to the items carried in and to anything else adds its inputs with fixed
   weights: an addition or subtraction, the builtin ``sum``, a product or quotient by a number
   that was the same constant on every run (the interpreter's record), or a term of such a sum
   that reads one item alone (``sum(a.abs().mean() for a in records)``, whose element reads only
   its own loop name, modules and constants). Detached, the earlier items are constants added to
   the loss: the values stay the program's own, and the gradients are those the loss would send
   with the list emptied at the start of each iteration, so kept or emptied, what the list is
   meant to be changes nothing that trains (a mean over the stacked items, ``torch.stack(losses)
   .mean()``, weights each by their count and stays unsafe). The cut must remove every freed node
   the backward reached, and nothing else may see a gradient there
   (:func:`detach_terms_of_sums`).

19. **A shared value is detached where the second loss reads it** (``advantage.detach()`` in a
   policy's surrogate, after the critic's own backward and step), beyond rule 4's optimizers, where
   the gradient the cut stops is never applied: the second backward still reaches a node that
   learns, and after every run of it (it runs more than once: a loop's next iteration is seen),
   the first optimizer step that changes a parameter the cut part reads (the critic's) comes after
   an optimizer's ``zero_grad()`` that cleared that parameter and that runs wherever the step runs
   (a statement before it in its block; the interpreter's record of backwards, steps and clears, in
   the order they ran), and nothing else sees a gradient there. What the cut takes away would have
   lain in ``.grad`` until a clear threw it away: the optimizers step on the same gradients
   (:func:`detach_unapplied`).

20. **One loss backwarded again after a clear of every gradient its graph reaches keeps its graph**
   (``retain_graph=True`` on the first backward: a loss's scaled gradient, then ``model.zero_grad()``
   and its plain one, to compare them): the clear says that the second pass is meant and that it
   replaces, not adds to, what the first left, so "one gradient or two?" does not arise. Safe where
   both passes are ``.backward()`` calls of the same tensor, no parameter changes between them,
   after every run of the first a ``zero_grad()`` of a module or an optimizer whose parameters are
   every parameter the graph reads ran before the second (the interpreter's record), that clear is
   a statement of the second's own block, before it, with no call between them, and no code the
   checker does not follow was handed what the graph reads: the kept graph sends what the program
   wrote (:func:`retain_after_clear`).

Anything else is unsafe (``--unsafe-fixes``) or display-only.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from errknow_ls.analysis import torch_api as api
from errknow_ls.analysis.events import Loop, RetainSite, SecondPass
from errknow_ls.analysis.names import builtin_unshadowed, imported_once
from errknow_ls.analysis.ownership import (
    BACKWARD,
    CLEAR,
    LASTING,
    cut_keeps_owned,
    cut_keeps_training,
    cut_starves_owned,
    gradient_unseen,
    reached_avoiding,
    tensor_roots,
    upstream_origins,
)
from errknow_ls.analysis.rules.context import RuleContext, is_self_attribute
from errknow_ls.analysis.state import Holder
from errknow_ls.analysis.values import Const, NNModule, Opaque, Seq, Tensor, Value, maybe_of, tensors_in
from errknow_ls.core import Applicability

ASSIGNMENTS = (ast.Assign, ast.AnnAssign)
NOT_FORWARD = (ast.Lambda, ast.Yield, ast.YieldFrom, ast.Await, ast.NamedExpr)


def forward_only(ctx: RuleContext, stmt: ast.stmt) -> bool:
    """``stmt`` assigns the result of a pure forward computation to names or attributes (rule 2)."""
    if not isinstance(stmt, ASSIGNMENTS) or stmt.value is None:
        return False
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
    return all(_plain_target(t) for t in targets) and _forward_expression(ctx, stmt.value, set())


def _forward_expression(ctx: RuleContext, expr: ast.expr, seen: set[int]) -> bool:
    """Every call in ``expr`` is a forward computation: resolved as a torch op, a tensor method or
    a module's forward, or a function of the checked code that only computes (:func:`_computes`)."""
    for node in ast.walk(expr):
        if isinstance(node, NOT_FORWARD):
            return False
        if not isinstance(node, ast.Call):
            continue
        if isinstance(node.func, ast.Attribute) and (
            in_place(node.func.attr) or node.func.attr in api.RANDOM_METHODS
        ):
            return False  # changes its receiver, or draws other numbers when re-run
        ran = ctx.called_functions.get(node)
        if ran:  # the checked code's own function, method or module forward: what it does inside
            if not all(_computes(ctx, func, seen) for func in ran):
                return False
        elif node not in ctx.forward_calls:
            return False
    return True


def _computes(ctx: RuleContext, func: ast.FunctionDef | ast.AsyncFunctionDef, seen: set[int]) -> bool:
    """A function of the checked code whose body only assigns local names and returns what forward
    computations give (``normalize_adjacency(a)``, a module's ``quantized_weight()``, GAE's
    advantages written step by step into ``torch.zeros_like(rewards)``): it may loop over what a
    forward computation gives and write items of a tensor it made itself (:func:`_fresh_locals`),
    but stores into no attribute, no other item and no global, and runs no backward and no step."""
    if id(func) in seen:
        return False  # recursion: not shown to end
    if isinstance(func, ast.AsyncFunctionDef) or func.decorator_list:
        return False
    seen.add(id(func))
    body = func.body[1:] if ast.get_docstring(func) is not None else func.body
    fresh = _fresh_locals(ctx, func)
    return bool(body) and all(_computing_statement(ctx, stmt, seen, fresh) for stmt in body)


def _computing_statement(ctx: RuleContext, stmt: ast.stmt, seen: set[int], fresh: frozenset[str]) -> bool:
    if isinstance(stmt, ast.Return):
        return stmt.value is None or _forward_expression(ctx, stmt.value, seen)
    if isinstance(stmt, ast.Assign | ast.AnnAssign | ast.AugAssign):
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        local = all(_names_only(t) or _item_of(t, fresh) for t in targets)
        return local and stmt.value is not None and _forward_expression(ctx, stmt.value, seen)
    if isinstance(stmt, ast.If):
        return _forward_expression(ctx, stmt.test, seen) and all(
            _computing_statement(ctx, s, seen, fresh) for s in [*stmt.body, *stmt.orelse]
        )
    if isinstance(stmt, ast.For):
        return (
            _names_only(stmt.target)
            and not stmt.orelse
            and _forward_expression(ctx, stmt.iter, seen)
            and all(_computing_statement(ctx, s, seen, fresh) for s in stmt.body)
        )
    return isinstance(stmt, ast.Pass)


def _item_of(target: ast.expr, fresh: frozenset[str]) -> bool:
    """``target`` is an item of a local tensor the function made itself (``advantages[t]``)."""
    return (
        isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) and target.value.id in fresh
    )


def _fresh_locals(ctx: RuleContext, func: ast.FunctionDef) -> frozenset[str]:
    """The local names of ``func`` bound only to new tensors of torch's (``torch.zeros_like(x)``,
    :data:`torch_api.FRESH_CREATION_FUNCS`, resolved as such by the interpreter), never to what
    the function was handed or to anything else: writing their items changes nothing of the
    caller's."""
    params = {a.arg for a in [*func.args.posonlyargs, *func.args.args, *func.args.kwonlyargs]}
    bound: dict[str, bool] = {}
    for node in ast.walk(func):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
            bound.setdefault(node.id, False)
    for node in ast.walk(func):
        if not isinstance(node, ast.Assign):
            continue
        for target in node.targets:
            for name, value in _paired(target, node.value):
                if name in bound:
                    bound[name] = bound[name] or _fresh_tensor(ctx, value)
    stores: dict[str, int] = {}
    for node in ast.walk(func):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
            stores[node.id] = stores.get(node.id, 0) + 1
    return frozenset(n for n, ok in bound.items() if ok and stores.get(n) == 1 and n not in params)


def _paired(target: ast.expr, value: ast.expr) -> list[tuple[str, ast.expr | None]]:
    """Each name ``target`` binds with the expression it is bound to (None where not one alone)."""
    if isinstance(target, ast.Name):
        return [(target.id, value)]
    if isinstance(target, ast.Tuple | ast.List):
        if isinstance(value, ast.Tuple | ast.List) and len(value.elts) == len(target.elts):
            return [pair for t, v in zip(target.elts, value.elts, strict=True) for pair in _paired(t, v)]
        return [(n.id, None) for n in ast.walk(target) if isinstance(n, ast.Name)]
    return []


def _fresh_tensor(ctx: RuleContext, value: ast.expr | None) -> bool:
    return (
        isinstance(value, ast.Call)
        and value in ctx.forward_calls
        and isinstance(value.func, ast.Attribute)
        and isinstance(value.func.value, ast.Name)
        and value.func.attr in api.FRESH_CREATION_FUNCS
        and value.func.value.id in _torch_aliases(ctx)
    )


def _torch_aliases(ctx: RuleContext) -> frozenset[str]:
    """The names the module binds to ``torch`` itself (``import torch``, ``import torch as th``)."""
    return frozenset(
        alias.asname or alias.name
        for node in ctx.module.body
        if isinstance(node, ast.Import)
        for alias in node.names
        if alias.name == "torch"
    )


def _names_only(target: ast.expr) -> bool:
    if isinstance(target, ast.Tuple | ast.List):
        return all(_names_only(t) for t in target.elts)
    return isinstance(target, ast.Name)


def _plain_target(target: ast.expr) -> bool:
    if isinstance(target, ast.Tuple | ast.List):
        return all(_plain_target(t) for t in target.elts)
    if isinstance(target, ast.Starred):
        return _plain_target(target.value)
    return isinstance(target, ast.Name) or (
        isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
    )


def in_place(attr: str) -> bool:
    """torch's convention: a tensor method whose name ends in one underscore changes its receiver."""
    return attr.endswith("_") and not attr.endswith("__")


def recompute(ctx: RuleContext, statements: list[ast.stmt], wanted: Applicability) -> Applicability | None:
    """How a fix that re-runs ``statements`` may be applied: ``wanted`` when every one of them is a
    pure forward computation, else not at all (rule 2)."""
    return wanted if statements and all(forward_only(ctx, s) for s in statements) else None


def recompute_in_loop(
    ctx: RuleContext, statements: list[ast.stmt], loop: Loop, wanted: Applicability, above: list[ast.stmt]
) -> Applicability | None:
    """Re-running, inside a loop, statements that built a value once before it (rule 2, and rule 4):
    as :func:`recompute`, but not offered at all where the statements already run once per
    iteration of an outer loop and this one steps another optimizer in each iteration (each peer of
    a mutual-learning pair, each agent of MADDPG, stepped in turn on one forward pass,
    :func:`_steps_in_turn`): re-run per inner iteration, later iterations would read parameters the
    earlier ones stepped, a sequential update the program, which built the value once for all of
    them, did not mean (rule 11); and unsafe where

    - a module those statements call is called again inside the loop (:func:`called_again`): the
      loop trains that module through its own forward pass, and the value built once is then read
      as a target (a rollout's advantages from the critic, which a value loss in the loop trains):
      recomputed on every iteration it would also train the module through the target, which the
      program did not mean on any later iteration;
    - statements of the loop above the first use (``above``) may change what they read (a PGD
      attack perturbing the embeddings before the attack step's forward): where the recomputed
      value belongs, before or after them, is not shown."""
    allowed = recompute(ctx, statements, wanted)
    if allowed is None or loop.node is None:
        return allowed
    if built_for_turns(ctx, statements, loop.node):
        return None
    if allowed is not Applicability.SAFE:
        return allowed
    read = {
        n.id
        for stmt in statements
        for n in ast.walk(stmt)
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
    }
    grad_free = not _reads_grad(ctx, statements)
    if called_again(ctx, statements, loop.node) or not all(
        _inert(ctx, stmt, read, grad_free=grad_free) for stmt in above
    ):
        return Applicability.UNSAFE
    return allowed


def _steps_in_turn(loop: ast.stmt) -> bool:
    """Each iteration of ``loop`` steps another optimizer, chosen by the loop's target
    (``optimizers[i].step()`` in ``for i in range(2)``): the iterations train different parts in
    turn, not the same parameters step after step."""
    if not isinstance(loop, ast.For | ast.AsyncFor):
        return False
    targets = {n.id for n in ast.walk(loop.target) if isinstance(n, ast.Name)}
    return any(
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "step"
        and any(isinstance(n, ast.Name) and n.id in targets for n in ast.walk(node.func.value))
        for node in ast.walk(loop)
    )


def _encloses(ctx: RuleContext, stmt: ast.stmt, loop: ast.stmt) -> bool:
    """A loop around ``stmt`` also holds ``loop``."""
    current: ast.AST | None = ctx.parents.get(stmt)
    while current is not None:
        if isinstance(current, ast.For | ast.While | ast.AsyncFor) and any(
            n is loop for n in ast.walk(current)
        ):
            return True
        current = ctx.parents.get(current)
    return False


def _inert(ctx: RuleContext, stmt: ast.stmt, read: set[str], *, grad_free: bool = False) -> bool:
    """``stmt`` changes neither a parameter nor a name the recomputed statements ``read``: it calls
    nothing for its effect but ``zero_grad()``, ``train()``, ``eval()`` or ``print``, and assigns
    only other names; or, where the recomputed statements read no ``.grad`` (``grad_free``), it
    sets a tensor's gradient (``W.grad = None``, a hand-written ``zero_grad()``) to what a forward
    computation gives, which changes nothing a forward computation reads."""
    if grad_free and _sets_grad(ctx, stmt):
        return True
    for node in ast.walk(stmt):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            func = node.value.func
            called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if called not in INERT_CALLS:
                return False
        if _stores_into(node, read):
            return False
    return True


def _stores_into(node: ast.AST, read: set[str]) -> bool:
    """``node`` stores into an object (an attribute, an item) or into one of the names ``read``."""
    if isinstance(node, ast.Attribute | ast.Subscript):
        return isinstance(node.ctx, ast.Store)
    return isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store) and node.id in read


INERT_CALLS = frozenset({"zero_grad", "train", "eval", "print"})
GRAD = "grad"
"""A tensor's gradient: what backward accumulates into, which no forward computation reads."""


def _sets_grad(ctx: RuleContext, stmt: ast.stmt) -> bool:
    """``stmt`` is ``<name>.grad = <value>`` (or several such targets), ``<value>`` ``None`` or a
    pure forward computation (``torch.zeros_like(w)``)."""
    if not isinstance(stmt, ast.Assign):
        return False
    targets = all(
        isinstance(t, ast.Attribute) and t.attr == GRAD and isinstance(t.value, ast.Name)
        for t in stmt.targets
    )
    value = stmt.value
    return targets and (
        (isinstance(value, ast.Constant) and value.value is None) or _forward_expression(ctx, value, set())
    )


def _reads_grad(ctx: RuleContext, statements: list[ast.stmt]) -> bool:
    """Some of ``statements``, or a function of the checked code they run (and what it runs), reads
    an attribute ``grad``."""
    pending: list[ast.AST] = list(statements)
    seen: set[int] = set()
    while pending:
        tree = pending.pop()
        if id(tree) in seen:
            continue
        seen.add(id(tree))
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr == GRAD:
                return True
            if isinstance(node, ast.Call):
                pending.extend(ctx.called_functions.get(node, ()))
    return False


def called_again(ctx: RuleContext, statements: list[ast.stmt], loop: ast.stmt) -> bool:
    """Every module (or forward of the checked code) the statements call, the same object reached
    the same way (``critic``, ``self.encoder``), is called again inside ``loop`` where it makes a
    graph that trains (not under ``no_grad``: a validation pass)."""
    learning = {id(node.site) for node in ctx.nodes if node.learns}

    def learned_call(node: ast.AST) -> bool:  # a module's forward that made a graph that trains
        called = node in ctx.module_calls or node in ctx.called_functions
        return isinstance(node, ast.Call) and called and id(node) in learning

    made = {_callee(ctx, c) for s in statements for c in ast.walk(s) if learned_call(c)}
    made.discard(None)
    again = {_callee(ctx, c) for c in ast.walk(loop) if learned_call(c)}
    return bool(made) and made <= again


def _callee(ctx: RuleContext, node: ast.AST) -> str | None:
    """The callee spelled as a chain of names (``critic``, ``self.encoder``), else None."""
    func = node.func if isinstance(node, ast.Call) else None
    chain = func
    while isinstance(chain, ast.Attribute):
        chain = chain.value
    return ctx.text(func) if isinstance(chain, ast.Name) and func is not None else None


def inline_derived(ctx: RuleContext, stmt: ast.Assign, cls: ast.ClassDef) -> Applicability:
    """Computing ``self.<attr> = <expression>``, run once by ``cls.__init__``, where ``self.<attr>``
    is read instead (rule 8): safe where the statement is a pure forward computation (rule 2), it is
    the only store of ``<attr>`` in the checked code and every read of it is ``self.<attr>`` in a
    method of ``cls``, and every attribute of ``self`` the expression reads is stored once and read
    nowhere else (nor named by a string, as ``getattr`` would, nor reached with every parameter at
    once other than by an optimizer's construction): those parameters reach the loss only through
    this value. Unsafe otherwise."""
    target = stmt.targets[0] if len(stmt.targets) == 1 else None
    constructor = ctx.function_of(stmt)
    if not (
        isinstance(target, ast.Attribute)
        and isinstance(constructor, ast.FunctionDef)
        and constructor.name == "__init__"  # Python runs it once per object, as it is built
        and ctx.parents.get(constructor) is cls
        and forward_only(ctx, stmt)
    ):
        return Applicability.UNSAFE
    inside_stmt = {id(n) for n in ast.walk(stmt)}
    read = {
        n.attr
        for n in ast.walk(stmt.value)
        if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "self"
    }
    if not read or not _methods_read(ctx, stmt, cls, target.attr):
        return Applicability.UNSAFE
    if _named_by_string(ctx, read | {target.attr}) or not _bulk_reads_only_train(ctx):
        return Applicability.UNSAFE
    for attr in read:
        stores = 0
        for node in ast.walk(ctx.module):
            if not isinstance(node, ast.Attribute) or node.attr != attr or id(node) in inside_stmt:
                continue
            if not isinstance(node.ctx, ast.Store) or stores:
                return Applicability.UNSAFE  # read elsewhere, or stored again
            stores += 1
    return Applicability.SAFE


def _named_by_string(ctx: RuleContext, attrs: set[str]) -> bool:
    """Some code may reach one of ``attrs`` by its name in a string: a call's argument, an index, a
    dict key or a comparison (``getattr(self, "v")``, ``state_dict()["fc.v"]``, ``name == "v"``),
    or ``getattr``/``setattr``/``delattr`` with a name computed at run time."""
    for node in ast.walk(ctx.module):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in REFLECTION
            and (len(node.args) < 2 or not isinstance(node.args[1], ast.Constant))
        ):
            return True
        spots: list[ast.expr] = []
        if isinstance(node, ast.Call):
            spots = [*node.args, *(kw.value for kw in node.keywords)]
        elif isinstance(node, ast.Subscript):
            spots = [node.slice]
        elif isinstance(node, ast.Dict):
            spots = [k for k in node.keys if k is not None]
        elif isinstance(node, ast.Compare):
            spots = [node.left, *node.comparators]
        for spot in spots:
            if (
                isinstance(spot, ast.Constant)
                and isinstance(spot.value, str)
                and any(spot.value == a or spot.value.endswith(f".{a}") for a in attrs)
            ):
                return True
    return False


REFLECTION = frozenset({"getattr", "setattr", "delattr", "hasattr"})
"""The builtins that reach an attribute by a name held in a string."""


def _bulk_reads_only_train(ctx: RuleContext) -> bool:
    """Every call that reaches a module's parameters all at once (``model.parameters()``,
    ``state_dict()``, ``apply(init)``) hands them to an optimizer's construction, directly or
    through a name read only there (``trainable = [p for p in model.parameters() if
    p.requires_grad]``): nothing else reads a parameter without naming it (an L2-SP penalty over
    ``self.parameters()`` against an anchor)."""
    inside = {id(n) for call in ctx.optimizer_calls for n in ast.walk(call) if n is not call}
    for node in ast.walk(ctx.module):
        if not (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in api.MODULE_BULK_METHODS
        ):
            continue
        if id(node) in inside:
            continue
        stmt = ctx.statement_of(node)
        if not (isinstance(stmt, ast.Assign) and [type(t) for t in stmt.targets] == [ast.Name]):
            return False
        name = stmt.targets[0]
        assert isinstance(name, ast.Name)
        scope = ctx.function_of(stmt) or ctx.module
        loads = [n for n in ast.walk(scope) if isinstance(n, ast.Name) and n.id == name.id and n is not name]
        if not loads or any(not isinstance(n.ctx, ast.Load) or id(n) not in inside for n in loads):
            return False
    return True


FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)

BINDERS = frozenset({"staticmethod", "classmethod"})
"""The builtins that make a method's first parameter something other than the instance."""


def _methods_read(ctx: RuleContext, stmt: ast.Assign, cls: ast.ClassDef, attr: str) -> bool:
    """``attr`` is stored only by ``stmt`` and read only as ``self.<attr>`` directly in methods of
    ``cls`` whose first parameter is ``self`` and which bind none of the names ``stmt`` reads."""
    globals_read = {n.id for n in ast.walk(stmt.value) if isinstance(n, ast.Name) and n.id != "self"}
    target = stmt.targets[0]
    for node in ast.walk(ctx.module):
        if not isinstance(node, ast.Attribute) or node.attr != attr or node is target:
            continue
        method = ctx.parents.get(node)
        while method is not None and not isinstance(
            method, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda
        ):
            method = ctx.parents.get(method)
        if not (
            isinstance(node.ctx, ast.Load)
            and isinstance(node.value, ast.Name)
            and node.value.id == "self"
            and isinstance(method, ast.FunctionDef)
            and ctx.parents.get(method) is cls
            and method.args.args
            and method.args.args[0].arg == "self"
            and not any(isinstance(d, ast.Name) and d.id in BINDERS for d in method.decorator_list)
        ):
            return False
        bound = {n.id for n in ast.walk(method) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        if bound & globals_read or {a.arg for a in method.args.args} & globals_read:
            return False
    return True


def retain_reused_gradient(ctx: RuleContext, event: SecondPass) -> Applicability | None:
    """``retain_graph=True`` on a gradient taken in a loop from a differentiable gradient built
    before it (rule 7): safe where no optimizer steps in the loop and nothing stepped between the
    passes; not offered otherwise (the parameters changed: the gradient must be taken again)."""
    loop = event.loop
    if loop is None or loop.key in ctx.stepping or event.stepped_between:
        return None
    return Applicability.SAFE


def retain_removal(site: RetainSite) -> Applicability | None:
    """Removing a ``retain_graph=True`` (rule 3)."""
    if site.unseen:
        return None
    return Applicability.DISPLAY_ONLY if site.reached_later else Applicability.SAFE


def sum_losses(ctx: RuleContext, event: SecondPass) -> Applicability:
    """Summing two losses that share a graph into one backward (rule 4): safe when each learns
    through a part of its own (two heads on a shared trunk) or neither does (several losses on one
    embedding), so the sum is what both mean. Where everything one of them learns through lies
    inside the graph of the other, which has a part of its own (an actor-critic's policy loss
    weighted by the critic's values), the other may use it as a baseline or a target, which
    programs detach: the sum would train it through that use too, so it is unsafe."""
    first, second = event.free.reached, event.reached

    def learns(nodes: frozenset[int]) -> bool:
        return any(ctx.nodes[n].learns for n in nodes)

    # Both learn through their own part (two heads), or neither does (several losses on the same
    # embedding): the sum is what they mean. One alone without a part of its own: a baseline,
    # unless what they share is the input of the other's own part (a VAE's KL term on the encoder
    # whose output the decoder reads).
    own_first, own_second = learns(first - second), learns(second - first)
    if own_first == own_second:
        return Applicability.SAFE
    own = (first - second) if own_first else (second - first)
    return Applicability.SAFE if _feeds_own_part(ctx, first & second, own) else Applicability.UNSAFE


def recompute_as_retained(
    ctx: RuleContext, event: SecondPass, statements: list[ast.stmt], between: list[ast.stmt], target: ast.stmt
) -> bool:
    """Rule 15: re-running ``statements`` right before the second backward (``target``) computes
    the tensors the program computed, and the second backward then sends what summing the two
    losses would send. ``between``: the statements after the first of ``statements`` and before
    ``target``; a loop around ``target`` and not around them would run more code between."""
    if not statements or not ctx.complete or event.stepped_between:
        return False
    if _loop_between(ctx, statements[0], target):
        return False
    if sum_losses(ctx, event) is not Applicability.SAFE:
        return False
    read = {
        n.id
        for stmt in statements
        for n in ast.walk(stmt)
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
    }
    scope = ctx.function_of(statements[0]) or ctx.module
    first_pass: ast.stmt | None = None
    for stmt in between:
        if stmt in statements:
            continue
        if _runs_first_pass(ctx, event, stmt):
            if first_pass is not None:
                return False
            first_pass = stmt
        elif first_pass is None and _clears_optimizer(ctx, stmt, scope):
            continue
        elif not forward_only(ctx, stmt) or _stored_names(stmt) & read:
            return False
    return first_pass is not None


def _loop_between(ctx: RuleContext, first: ast.stmt, target: ast.stmt) -> bool:
    """A loop encloses ``target`` but not ``first``: its other statements run between the two too."""
    current = ctx.parents.get(target)
    while isinstance(current, ast.stmt) and not isinstance(current, ast.FunctionDef | ast.AsyncFunctionDef):
        if isinstance(current, ast.For | ast.AsyncFor | ast.While) and not any(
            n is first for n in ast.walk(current)
        ):
            return True
        current = ctx.parents.get(current)
    return False


def _runs_first_pass(ctx: RuleContext, event: SecondPass, stmt: ast.stmt) -> bool:
    """``stmt`` is the first backward's call, or a call of functions (or lambdas) of the checked code
    whose body is only that backward, handed forward computations; each as the interpreter resolved
    the call."""
    if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)):
        return False
    call = stmt.value
    if call is not event.free.site:
        ran = ctx.called_functions.get(call, set())
        lambdas = ctx.called_lambdas.get(call, set())
        if not (ran or lambdas) or not all(_only_backward(func, event.free.site) for func in ran):
            return False
        if not all(fn.body is event.free.site for fn in lambdas):
            return False
    handed = [*call.args, *(kw.value for kw in call.keywords)]
    return all(_forward_expression(ctx, arg, set()) for arg in handed if not isinstance(arg, ast.Starred))


def _only_backward(func: ast.FunctionDef | ast.AsyncFunctionDef, site: ast.Call) -> bool:
    body = func.body[1:] if ast.get_docstring(func) is not None else func.body
    return (
        isinstance(func, ast.FunctionDef)
        and not func.decorator_list
        and len(body) == 1
        and isinstance(body[0], ast.Expr)
        and body[0].value is site
    )


def _clears_optimizer(ctx: RuleContext, stmt: ast.stmt, scope: ast.AST) -> bool:
    """``opt.zero_grad()`` of an optimizer the program built (its construction is known)."""
    if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)):
        return False
    func = stmt.value.func
    return (
        isinstance(func, ast.Attribute)
        and func.attr == "zero_grad"
        and owned_by(ctx, ctx.text(func.value), scope) is not None
    )


def _stored_names(stmt: ast.stmt) -> set[str]:
    return {
        n.id for n in ast.walk(stmt) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store | ast.Del)
    }


def _feeds_own_part(ctx: RuleContext, shared: frozenset[int], own: frozenset[int]) -> bool:
    """Every node of ``shared`` that learns lies below a node of ``own`` that learns: the shared part
    is what the own part is computed from (a trunk under a head), not a value the loss combines
    with its own part's output (a critic's values weighting an actor's log-probabilities)."""
    under_own = frozenset().union(*(ctx.nodes[n].below for n in own if ctx.nodes[n].learns))
    shared_learning = {n for n in shared if ctx.nodes[n].learns}
    return bool(shared_learning) and shared_learning <= under_own


def detach_in_first(
    ctx: RuleContext, event: SecondPass, *, steps_between: bool, trains_shared: bool | None = None
) -> Applicability | None:
    """Detaching the shared tensor where the first loss reads it (``fake.detach()`` in a GAN's
    discriminator loss): the first loss must still learn through a part of its own (the
    discriminator), else nothing of it would learn (and its backward would raise), and the
    optimizer that steps after it must not be built over the module that made the shared tensor
    (``trains_shared``, :func:`optimizer_trains`: a generator updated first would stop learning);
    safe where an optimizer steps between the two passes and is shown not to be (``trains_shared``
    False), unsafe otherwise (it stops the first loss's gradient at the shared part)."""
    if trains_shared or not any(ctx.nodes[n].learns for n in event.free.reached - event.reached):
        return None
    return Applicability.SAFE if steps_between and trains_shared is False else Applicability.UNSAFE


def detach_in_second(
    ctx: RuleContext, event: SecondPass, *, steps_between: bool, trains_shared: bool | None
) -> Applicability:
    """Detaching the shared tensor where the second loss reads it: safe where an optimizer steps
    between the passes, the second loss learns through a part of its own, and the optimizer that
    steps after it is shown not to be built over the module that made the shared tensor (a
    discriminator stepped after a generator that was updated first: it reads the fake batch as
    input); unsafe otherwise (a baseline or target the second loss may be meant to train)."""
    own = any(ctx.nodes[n].learns for n in event.reached - event.free.reached)
    return Applicability.SAFE if steps_between and own and trains_shared is False else Applicability.UNSAFE


def optimizer_trains(ctx: RuleContext, optimizer: str | None, made: ast.AST, scope: ast.AST) -> bool | None:
    """Whether the optimizer spelled ``optimizer`` (assigned in ``scope``, or at module level) was
    handed a parameter the graph of the value ``made`` assigns reads: ``optim_g =
    Adam(net_g.parameters())`` and ``fake = net_g(z)``, decided by the modules' identities
    (``ownership.py``), never their names. None where either is not shown (an optimizer handed in,
    a value whose graph reads no parameter, or one whose origin is not known).
    """
    owned = owned_by(ctx, optimizer, scope) if optimizer is not None else None
    if owned is None:
        return None
    upstream = {n.id for n in ctx.nodes if n.stmt is made or any(s is made for _, s in n.stmts)}
    upstream |= {below for n in list(upstream) for below in ctx.nodes[n].below}
    origins = upstream_origins(ctx.nodes, upstream)
    if not origins:
        return None
    return bool(ctx.ownership.linked(origins) & owned)


def clears_first_gradient(ctx: RuleContext, event: SecondPass, second: str, between: list[ast.stmt]) -> bool:
    """The optimizer spelled ``second``, which steps after the second backward, calls ``zero_grad()``
    between the two backwards, and the first loss's graph reads a parameter it owns (a GAN's
    discriminator loss reaching the generator through the fake batch, then ``opt_g.zero_grad()``):
    the program throws away what the first loss sends there. Summed into one backward, the first
    loss's gradient would reach that optimizer's step too, and the two gradients may cancel (rule 4:
    it changes what trains)."""
    cleared = any(
        isinstance(stmt, ast.Expr)
        and isinstance(stmt.value, ast.Call)
        and isinstance(stmt.value.func, ast.Attribute)
        and stmt.value.func.attr == "zero_grad"
        and ctx.text(stmt.value.func.value) == second
        for stmt in between
    )
    scope = ctx.function_of(event.free.site) or ctx.module
    owned = owned_by(ctx, second, scope) if cleared else None
    origins = upstream_origins(ctx.nodes, event.free.reached)
    return bool(owned and origins and ctx.ownership.linked(origins) & owned)


def owned_by(ctx: RuleContext, optimizer: str, scope: ast.AST) -> frozenset[int] | None:
    """The origins the optimizer spelled ``optimizer`` (assigned in ``scope``, or at module level)
    was handed, on every run of its construction; None where that is not known."""
    owned: set[int] = set()
    built = False
    for where in (scope, ctx.module):
        for node in ast.walk(where):
            if not (isinstance(node, ast.Assign) and [ctx.text(t) for t in node.targets] == [optimizer]):
                continue
            for call in ast.walk(node.value):
                if call in ctx.ownership.constructed:
                    handed = ctx.ownership.constructed[call]
                    if handed is None:
                        return None
                    owned |= handed
                    built = True
        if built:
            return frozenset(owned)
    return None


def backward_once_steps_each(ctx: RuleContext, event: SecondPass, optimizers: list[str]) -> Applicability:
    """Rule 11's one backward, then every optimizer's step, in place of a loop that clears,
    backwards and steps each optimizer in turn over one loss built before it: safe where the loop
    names its optimizers one by one (``optimizers``), each built by the program over parameters
    known and apart from the others', together every parameter the graph reads (but those of
    modules that hold none), and nothing but the optimizers sees the gradients. Each optimizer then
    steps on exactly what its turn of the loop would hand it over a kept graph: its own parameters'
    gradient of that one loss, cleared right before; the turns only differed in the gradients left
    behind in the others', which no one reads. Unsafe otherwise."""
    scope = ctx.function_of(event.site) or ctx.module
    owned = [owned_by(ctx, name, scope) for name in optimizers]
    origins = upstream_origins(ctx.nodes, event.reached)
    if not ctx.complete or origins is None or len(set(optimizers)) != len(optimizers):
        return Applicability.UNSAFE
    linked = [ctx.ownership.linked(o) if o is not None else None for o in owned]
    if any(o is None or o & ctx.ownership.several for o in linked):
        return Applicability.UNSAFE
    known = [o for o in linked if o is not None]
    if any(a & b for i, a in enumerate(known) for b in known[i + 1 :]):
        return Applicability.UNSAFE  # two optimizers over one parameter: each turn stepped it
    needed = ctx.ownership.linked(origins) - ctx.ownership.parameterless
    if not needed <= frozenset().union(*known):
        return Applicability.UNSAFE
    if not gradient_unseen(ctx.nodes, event.reached, frozenset(), ctx.ownership):
        return Applicability.UNSAFE
    return Applicability.SAFE


def read_backward_grads(ctx: RuleContext, event: SecondPass, cleared_by: str | None) -> Applicability:
    """Reading from ``.grad`` the gradients a ``.backward()`` just left there, instead of asking
    ``autograd.grad`` for them again (rule 1: it only stops re-running a pass over a freed graph):
    safe where ``.grad`` held nothing before that backward, so what it holds after it is exactly the
    gradient asked for: the optimizer ``cleared_by`` cleared it right before (with nothing that
    accumulates into ``.grad`` between, which the caller shows), and it owns every parameter the
    backward's graph reads; and nothing else sees those gradients as they accumulate (a hook, code
    the checker does not follow). Unsafe otherwise: ``.grad`` may hold earlier gradients too."""
    scope = ctx.function_of(event.free.site) or ctx.module
    owned = owned_by(ctx, cleared_by, scope) if cleared_by is not None else None
    origins = upstream_origins(ctx.nodes, event.free.reached)
    if not ctx.complete or owned is None or not origins:
        return Applicability.UNSAFE
    origins = ctx.ownership.linked(origins)
    if not origins - ctx.ownership.parameterless <= owned:
        return Applicability.UNSAFE  # a parameter no clear reaches: `.grad` may hold more
    for use in ctx.ownership.uses:
        touches = use.origins is None or bool(use.origins & origins) or bool(use.roots & event.free.reached)
        if use.made == LASTING and touches:
            return Applicability.UNSAFE  # a hook or code not followed sees the gradients
    return Applicability.SAFE


def clear_between_removed(
    ctx: RuleContext, event: SecondPass, before: str | None, between: str, *, untouched: bool
) -> Applicability | None:
    """Removing an optimizer's ``zero_grad()`` (``between``) and the second backward of the same
    tensor right after it (rule 1): the second backward would leave in ``.grad`` what the first left
    there, where ``.grad`` held nothing before the first (the optimizer ``before`` cleared it right
    before it, or ``untouched``: nothing before it ever added to it), ``between`` owns every
    parameter the graph reads (so the clear left nothing else behind), and no hook or code the
    checker does not follow sees the gradients (:func:`read_backward_grads`, for each optimizer).
    Not offered otherwise: a gradient held from before would be stepped with the new one."""
    if before is None and not untouched:
        return None
    cleared = [between] if before is None else [before, between]
    if any(read_backward_grads(ctx, event, name) is not Applicability.SAFE for name in cleared):
        return None
    return Applicability.SAFE


def built_once_untrained(ctx: RuleContext, detached: list[Value], restored: list[Value]) -> bool:
    """No optimizer owns a parameter the graph of the values ``detached`` reads, and nothing else
    sees a gradient there (rule 9, :func:`ownership.cut_keeps_training`)."""
    upstream = frozenset().union(*(maybe_of(value) for value in detached))
    kept = frozenset().union(*(tensor_roots(value) for value in restored))
    return bool(ctx.complete and upstream) and cut_keeps_training(ctx.nodes, upstream, kept, ctx.ownership)


def detach_built_once(
    ctx: RuleContext,
    detached: list[Value],
    restored: list[Value],
    reached: frozenset[int],
    freed_at: int | None = None,
) -> Applicability:
    """Detaching values built once before a loop that only reads them, in the loop whose backward
    reaches ``reached`` (rule 9): safe where no optimizer owns a parameter their graph reads and
    nothing else sees a gradient there (:func:`ownership.cut_keeps_training`), or where the
    backward still reaches, through the loop's own forward pass, every parameter an optimizer owns
    that it reached through them, and nothing else sees a gradient there (rule 13,
    :func:`ownership.cut_keeps_owned`); ``restored``: those detached into leaves that still require
    grad (a PINN's collocation times), whose own gradients stay the same. ``freed_at``: the tick of
    the first backward through them; safe too where no optimizer that owns a parameter their graph
    reads steps at or after it (:func:`_no_step_after`)."""
    if built_once_untrained(ctx, detached, restored):
        return Applicability.SAFE
    upstream = frozenset().union(*(maybe_of(value) for value in detached))
    kept = frozenset().union(*(tensor_roots(value) for value in restored))
    if freed_at is not None and _no_step_after(ctx, upstream, kept, freed_at):
        return Applicability.SAFE
    if not (ctx.complete and upstream):
        return Applicability.UNSAFE
    return detach_keeps_owned(ctx, detached, reached, own_nodes(detached), kept)


def _no_step_after(ctx: RuleContext, upstream: frozenset[int], kept: frozenset[int], freed_at: int) -> bool:
    """Rule 9 where an optimizer owns what the graph ``upstream`` reads but no step at or after the
    first backward through it (tick ``freed_at``) changes any of it (an encoder an earlier loop
    trained, whose latents a flow's loop reads): the gradient a later backward would send there
    would lie in ``.grad`` and never be applied, so cutting it changes no tensor any optimizer
    updates; and nothing else sees a gradient there. Shown only where every entry point ran to its
    end and what each step changed is known."""
    origins = upstream_origins(ctx.nodes, upstream) if upstream else None
    if not ctx.complete or origins is None:
        return False
    origins = ctx.ownership.linked(origins)
    stepped = ctx.ownership.stepped_since(freed_at)
    if stepped is None or stepped & origins or any(owned is None for owned in ctx.ownership.optimizers):
        return False
    owners = [call for call, owned in ctx.ownership.constructed.items() if owned is None or owned & origins]
    if not all(_only_stepped_here(ctx, call) for call in owners):
        return False  # handed on, an optimizer may be stepped by code the checker does not follow
    return gradient_unseen(ctx.nodes, upstream, kept, ctx.ownership)


OPTIMIZER_CALLS = frozenset({"step", "zero_grad"})


def _binds_locally(func: ast.AST, name: str) -> bool:
    """``func`` assigns ``name`` and declares it neither ``global`` nor ``nonlocal``: a local."""
    declared = any(isinstance(n, ast.Global | ast.Nonlocal) and name in n.names for n in ast.walk(func))
    stored = any(
        isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store) for n in ast.walk(func)
    )
    return stored and not declared


def _only_stepped_here(ctx: RuleContext, construction: ast.AST) -> bool:
    """The optimizer built at ``construction`` is bound to a name, once, and every read of that
    name in its scope (and the functions nested in it, or the whole module for a module-level name)
    calls its ``step()`` or ``zero_grad()``: no other code is handed it, so every step it takes is
    one the interpreter ran."""
    stmt = ctx.statement_of(construction)
    if not (
        isinstance(stmt, ast.Assign)
        and stmt.value is construction
        and len(stmt.targets) == 1
        and isinstance(stmt.targets[0], ast.Name)
    ):
        return False
    name = stmt.targets[0].id
    scope = ctx.function_of(stmt) or ctx.module
    for node in ast.walk(scope):
        if not (isinstance(node, ast.Name) and node.id == name) or node is stmt.targets[0]:
            continue
        inner = ctx.function_of(node)
        if inner is not None and inner is not scope and _binds_locally(inner, name):
            continue  # another variable of the same spelling, local to a nested function
        attribute = ctx.parents.get(node)
        call = ctx.parents.get(attribute) if attribute is not None else None
        if not (
            isinstance(node.ctx, ast.Load)
            and isinstance(attribute, ast.Attribute)
            and attribute.attr in OPTIMIZER_CALLS
            and isinstance(call, ast.Call)
            and call.func is attribute
        ):
            return False
    return True


def detach_keeps_owned(
    ctx: RuleContext,
    detached: list[Value],
    reached: frozenset[int],
    cut: frozenset[int],
    kept: frozenset[int] = frozenset(),
) -> Applicability:
    """Detaching module outputs that later iterations only read (built once before the loop, or
    stored in a replay buffer), which cuts the nodes ``cut`` out of the failing backward that
    reaches ``reached`` (rule 13): safe where their graph reads parameters only through modules'
    forward calls, the backward still reaches every parameter an optimizer owns that it reached
    before (:func:`ownership.cut_keeps_owned`), and nothing else sees a gradient there."""
    upstream = frozenset().union(*(maybe_of(value) for value in detached))
    if (
        ctx.complete
        and upstream
        and _module_outputs(ctx, upstream)
        and cut_keeps_owned(ctx.nodes, reached, cut, ctx.ownership)
        and gradient_unseen(ctx.nodes, upstream, kept, ctx.ownership)
    ):
        return Applicability.SAFE
    return Applicability.UNSAFE


def _module_outputs(ctx: RuleContext, upstream: frozenset[int]) -> bool:
    """The graph ``upstream`` reads parameters only through modules' forward calls (a policy's
    log-probabilities, a model's predictions on anchor inputs, an embedding of a token): each of
    its nodes that reads a parameter directly is the call of a module, never an op on the
    parameter itself (``self.enc.weight.norm()``, a parameter transform, rule 8)."""
    return all(
        not node.learns or node.origins == frozenset() or node.site in ctx.module_calls
        for node in (ctx.nodes[n] for n in upstream if 0 <= n < len(ctx.nodes))
    )


def cut_starves_training(
    ctx: RuleContext, backward: ast.AST, reached: frozenset[int], cut: frozenset[int], loop: ast.AST | None
) -> bool:
    """Cutting the nodes ``cut`` (those of the values a fix detaches, or every node of a backward it
    deletes) out of the ``backward`` that reaches ``reached`` leaves it no path to a parameter an
    optimizer it trains owns (rule 10, :func:`ownership.cut_starves_owned`): such a fix is not
    offered. The optimizers stepped in ``loop`` or after the backward in its own function count."""
    return cut_starves_owned(ctx.nodes, reached, cut, ctx.ownership, _stepped_owned(ctx, backward, loop))


def _stepped_owned(ctx: RuleContext, backward: ast.AST, loop: ast.AST | None) -> frozenset[int]:
    """What the optimizers stepped in ``loop``, or after ``backward`` in its own function, were
    handed (``actor_opts[i].step()``: every optimizer that construction built); those not known
    add nothing."""
    func = ctx.function_of(backward)
    line = ctx.line_of(backward)
    places = [(loop, 0)] if loop is not None else []
    places.append((func if func is not None else ctx.module, line))
    found: set[int] = set()
    for place, after in places:
        scope = (ctx.function_of(place) or ctx.module) if place is loop else place
        for node in ast.walk(place):
            if not (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "step"
                and ctx.line_of(node) > after
            ):
                continue
            receiver = node.func.value
            while isinstance(receiver, ast.Subscript):
                receiver = receiver.value
            owned = owned_by(ctx, ctx.text(receiver), scope)
            found |= owned or frozenset()
    return frozenset(found)


def only_added(ctx: RuleContext, reached: frozenset[int], cut: frozenset[int]) -> bool:
    """Every node of the backward that leads to ``cut`` only adds, sums or reshapes (its backward
    saves nothing: ``total_loss = loss + self.reg_loss``): the values cut are terms of the loss, not
    inputs of what it computes (old log-probabilities inside a ratio). Detached, such a term is a
    constant: the fix would silently drop it from training (rule 10), where the parameters it reads
    are owned by an optimizer."""
    above = [n for n in reached - cut if ctx.nodes[n].below & cut]
    return bool(above) and not any(ctx.nodes[n].saves for n in above)


def own_nodes(values: list[Value]) -> frozenset[int]:
    """The nodes of the tensors in ``values`` themselves: where detaching them cuts a graph."""
    return frozenset().union(*(tensor_roots(value) for value in values))


def same_sites(ctx: RuleContext, reached: frozenset[int], made: frozenset[int]) -> frozenset[int]:
    """The nodes of ``reached`` made at the source site of one of ``made``, on any iteration: what a
    fix that edits that site cuts every time it runs."""
    sites = {id(ctx.nodes[n].site) for n in made}
    return frozenset(n for n in reached if id(ctx.nodes[n].site) in sites)


def detach_untrained_store(ctx: RuleContext, makers: list[ast.stmt], carried: list[Value]) -> bool:
    """Storing detached what a method of the checked code computes and keeps on its object (a
    GP's cached Cholesky factor, built from kernel hyperparameters no optimizer owns) changes
    nothing that trains (rule 9, for state kept between steps): the value stored is the same, and
    neither its graph as the failing backward reaches it (``carried``) nor the graph of anything
    the statements that compute it (``makers``) made on any of their runs, for any object, reads a
    parameter an optimizer owns, nor does anything else see a gradient there
    (:func:`ownership.cut_keeps_training`)."""
    made = {
        node.id
        for node in ctx.nodes
        if any(node.stmt is stmt or any(s is stmt for _, s in node.stmts) for stmt in makers)
    }
    upstream = frozenset().union(
        made, *(ctx.nodes[n].below for n in made), *(maybe_of(value) for value in carried)
    )
    if not ctx.complete or not made or not all(maybe_of(value) for value in carried):
        return False
    return cut_keeps_training(ctx.nodes, upstream, frozenset(), ctx.ownership)


def detach_carried(
    ctx: RuleContext, loop: Loop, entering: list[Value], wanted: Applicability, *, recurrent: bool
) -> Applicability:
    """Detaching what a loop carries into its next iteration, at the top of each one (rule 4):
    ``wanted`` where every iteration is a training step (an optimizer steps in the loop, or the loop
    is the repeated calls of a training-step method) and what enters the loop carries no graph (a
    zero initial state), so the cut falls only between steps. Unsafe inside one step (a decoder's
    time steps), or where the value entering the loop has a graph (an encoder's output): the first
    cut would stop the gradient the loss sends back to what made it. And only for a recurrence (a
    state computed from itself, ``h = cell(x, h)``, or through a name the step computed from it,
    ``out, h = rnn(x, self.state)`` then ``self.state = h``: truncated backpropagation through
    time; never through an item taken out of a list, where which item comes out is not known); a
    value only kept from an earlier step (a latent refreshed every k steps) is meant to be
    recomputed, and detaching it stops what made it from learning in the steps between."""
    if not recurrent:
        return Applicability.UNSAFE
    stepping = loop.method is not None or loop.key in ctx.stepping
    entry_graph = any(maybe_of(value) for value in entering)
    return wanted if stepping and not entry_graph else Applicability.UNSAFE


def update_between_steps(
    ctx: RuleContext,
    event: SecondPass,
    update: ast.stmt,
    updated: NNModule,
    entering: Value | None,
    *,
    last: bool,
) -> Applicability:
    """Running an update in place of a module's parameters (a target network's soft update) under
    ``torch.no_grad()`` (rule 4, for a state carried between steps): safe where the loop is a
    training loop, the update runs in its body after the failing backward's own statement (so the
    graph it ties the parameters to is read only by later steps: the cut falls between steps, as
    truncated backpropagation through time does), the module entered the loop carrying no such
    graph, no optimizer owns a parameter of the updated module, the failing backward still reaches,
    through the step's own forward pass, every parameter an optimizer owns that it reached before
    (:func:`ownership.cut_keeps_owned`), and nothing else sees a gradient in the graph the update
    made; ``last``: no backward runs after the update in the iteration (another loss of the same
    step would read the updated target). Unsafe otherwise."""
    loop = event.loop
    if not last:
        return Applicability.UNSAFE
    body = loop.node.body if loop is not None and isinstance(loop.node, ast.For | ast.While) else None
    if loop is None or body is None or loop.key not in ctx.stepping or not ctx.complete:
        return Applicability.UNSAFE
    if not isinstance(entering, NNModule) or entering.carries or updated.origins is None:
        return Applicability.UNSAFE
    where, backward = _body_position(ctx, body, update), _body_position(ctx, body, event.site)
    if where is None or backward is None or where <= backward:
        return Applicability.UNSAFE
    origins = ctx.ownership.linked(updated.origins)
    if any(owned is None or owned & origins for owned in ctx.ownership.optimizers):
        return Applicability.UNSAFE
    cut = frozenset(updated.carries)
    kept = cut_keeps_owned(ctx.nodes, event.reached, cut, ctx.ownership)
    if not kept or not gradient_unseen(ctx.nodes, cut, frozenset(), ctx.ownership):
        return Applicability.UNSAFE
    return Applicability.SAFE


def _body_position(ctx: RuleContext, body: list[ast.stmt], node: ast.AST) -> int | None:
    """The index of the statement of ``body`` that holds ``node``."""
    current: ast.AST | None = node
    while current is not None:
        for index, stmt in enumerate(body):
            if stmt is current:
                return index
        current = ctx.parents.get(current)
    return None


def detach_history(
    ctx: RuleContext, event: SecondPass, histories: list[Holder], cut: frozenset[int], *, last: bool
) -> Applicability:
    """Keeping detached copies in a history a loop appends to after each step's backward and reads
    in later steps (earlier losses weighting the next ones) (rule 4, for values stored between
    steps): safe where every iteration is a training step, each history entered the loop holding no
    graph, the failing backward, cut at what the histories hold (``cut``), still reaches through the
    step's own forward pass every parameter an optimizer owns that it reached before
    (:func:`ownership.cut_keeps_owned`), and nothing else sees a gradient there. The copies hold the
    same values; only the gradient later steps would send back into earlier steps' graphs is cut, as
    truncated backpropagation through time cuts it; ``last``: no backward runs after the appends in
    the iteration (another loss of the same step would read what this step appended). Unsafe
    otherwise."""
    loop = event.loop
    if (
        not last
        or loop is None
        or loop.key not in ctx.stepping
        or not ctx.complete
        or not cut
        or not histories
    ):
        return Applicability.UNSAFE
    if any(holder not in event.entry or maybe_of(event.entry[holder]) for holder in histories):
        return Applicability.UNSAFE
    kept = cut_keeps_owned(ctx.nodes, event.reached, cut, ctx.ownership)
    if not kept or not gradient_unseen(ctx.nodes, cut, frozenset(), ctx.ownership):
        return Applicability.UNSAFE
    return Applicability.SAFE


def updated_within_step(ctx: RuleContext, loop: Loop, value: Value) -> bool:
    """Part of ``value``'s graph was made in a loop nested inside ``loop`` (a recurrent state stepped
    over a sequence by an inner loop, or in a forward that loops over time steps)."""
    for node_id in maybe_of(value):
        keys = [key for key, _ in ctx.nodes[node_id].loops]
        if loop.key in keys and keys.index(loop.key) < len(keys) - 1:
            return True
    return False


def detach_stored(
    ctx: RuleContext, loop: Loop | None, carried: list[Value], *, memo: bool = False, recurrent: bool = True
) -> Applicability:
    """Storing a state detached where an object's own method updates it (rule 4): safe where it is
    stored once per training step; unsafe where it is updated again from itself within the step (a
    spiking neuron's membrane over the time steps of one forward): the cut would stop the gradient
    the step's own loss sends back through the earlier time steps. A store that does not read the
    state (``recurrent`` False: a replay memory's priorities written item by item, after the step's
    backward) cuts nothing within the step by being repeated by an inner loop; what the step stores
    and reads back itself is never stored detached (:func:`cuts_own_step`). Unsafe too where it is
    a memo (:func:`stored_once`)."""
    within = loop is not None and any(updated_within_step(ctx, loop, value) for value in carried)
    if memo or (within and recurrent):
        return Applicability.UNSAFE
    return Applicability.SAFE


def chained_within_step(ctx: RuleContext, event: SecondPass, store: ast.Assign) -> bool:
    """The state ``store`` keeps (``self.<attr> = <local>``) is updated more than once within the
    failing step: a node the step made where the method computes ``<local>`` lies below another
    made there by another run of the method (the forward called twice before one backward). Stored
    detached, the second run would cut the gradient the step sends through the first."""
    func = ctx.function_of(store)
    if func is None or not isinstance(store.value, ast.Name):
        return True
    local = store.value.id
    defs = [
        stmt
        for stmt in ast.walk(func)
        if isinstance(stmt, ast.Assign)
        and stmt.lineno < store.lineno
        and any(isinstance(n, ast.Name) and n.id == local for t in stmt.targets for n in ast.walk(t))
    ]
    own = event.reached - event.free.reached
    made: dict[int, int] = {}
    for node_id in own:
        node = ctx.nodes[node_id]
        runs = [serial for serial, s in node.stmts if any(s is d for d in defs)]
        if any(node.stmt is d for d in defs):
            runs.append(node.frame)
        if runs:
            made[node_id] = runs[-1]
    return any(
        made.get(below, run) != run for node_id, run in made.items() for below in ctx.nodes[node_id].below
    )


def read_only_before_store(ctx: RuleContext, store: ast.Assign, attr: str) -> bool:
    """``self.<attr> = <local>`` (the local computed from ``self.<attr>``) is its method's last word
    on the state within a step (rule 4): every read of an attribute ``<attr>`` in the checked code,
    on any object, lies in the same method, in a statement that ends before the store begins, and
    neither the store nor those reads sit in a loop of the method (whose next turn would read what
    this one stored); the method calls nothing of the checked code after the store, and nothing
    names the attribute by a string. Stored detached, it then cuts only what the next step reads."""
    func = ctx.function_of(store)
    if not isinstance(func, ast.FunctionDef) or _named_by_string(ctx, {attr}):
        return False
    if any(isinstance(n, ast.For | ast.While | ast.AsyncFor) for n in _ancestors_within(ctx, store, func)):
        return False
    for node in ast.walk(ctx.module):
        if not (isinstance(node, ast.Attribute) and node.attr == attr and isinstance(node.ctx, ast.Load)):
            continue
        stmt = ctx.statement_of(node)
        if ctx.function_of(node) is not func or stmt is None:
            return False
        if (stmt.end_lineno or stmt.lineno) >= store.lineno:
            return False
    later = [n for n in ast.walk(func) if isinstance(n, ast.Call) and n.lineno > store.lineno]
    return not any(ctx.called_functions.get(call) for call in later)


def _ancestors_within(ctx: RuleContext, node: ast.AST, func: ast.AST) -> list[ast.AST]:
    found: list[ast.AST] = []
    current = ctx.parents.get(node)
    while current is not None and current is not func:
        found.append(current)
        current = ctx.parents.get(current)
    return found


def cuts_own_step(ctx: RuleContext, event: SecondPass, stmt: ast.stmt) -> bool:
    """Storing detached what ``stmt`` stores would cut the current step's own gradient (rule 4):
    the value it stored (a node the first backward did not reach) is read back by the backward
    that fails, and it trains, itself (a recurrent cell's new state, read again by the step's
    output) or through the graph it was made from that the first backward did not free either (a
    KV cache's slots written with this step's keys and read by its attention; a meta-model's
    weights after this step's virtual update)."""
    own = event.reached - event.free.reached
    for node_id in own:
        node = ctx.nodes[node_id]
        if node.stmt is not stmt and all(s is not stmt for _, s in node.stmts):
            continue
        if node.learns or any(ctx.nodes[below].learns for below in node.below & own):
            return True
    return False


def cut_where_read_holds(ctx: RuleContext, event: SecondPass, stmt: ast.stmt) -> bool:
    """Cutting the previous step's state where ``stmt`` reads it cuts every path from the failing
    backward to the freed graph: each node it reaches that leads to a freed node was made at
    ``stmt``, or leads to a node made there (a recurrent cell's state, read by the step only to
    make the new one). A state the step also reads elsewhere (a virtual copy's weights, read by its
    forward before its update stores them) still brings the freed graph in."""
    freed = event.reached & event.free.reached
    made_here = {
        node_id
        for node_id in event.reached - freed
        if ctx.nodes[node_id].stmt is stmt or any(s is stmt for _, s in ctx.nodes[node_id].stmts)
    }
    return bool(made_here) and all(
        node_id in made_here or ctx.nodes[node_id].below & made_here
        for node_id in event.reached - freed
        if ctx.nodes[node_id].below & freed
    )


def stored_once(ctx: RuleContext, stmt: ast.stmt, attr: str) -> bool:
    """``stmt`` stores ``self.<attr>`` (or an item of it) only under a test of that same state
    (``if "chol" not in self._memo:``, ``if self.cache is None:``): a memo, filled once and read on
    every later step. Stored detached, it would keep the value of the first step's parameters and
    stop them learning through it (rule 4): its carried graph is meant to be rebuilt, not cut."""
    current: ast.AST | None = ctx.parents.get(stmt)
    while current is not None and not isinstance(current, ast.FunctionDef | ast.AsyncFunctionDef):
        if isinstance(current, ast.If) and any(
            isinstance(n, ast.Attribute)
            and n.attr == attr
            and isinstance(n.value, ast.Name)
            and n.value.id == "self"
            for n in ast.walk(current.test)
        ):
            return True
        current = ctx.parents.get(current)
    return False


def repeats_sequence(ctx: RuleContext, loop: ast.stmt | None) -> bool:
    """A ``for`` loop whose body reads nothing of its iteration: its target is read only by
    ``print`` (the builtin: the module does not rebind it; ``for epoch in range(epochs)``) and it
    draws no new inputs (``torch.randint``, a distribution's ``sample``, ``next(batches)``), so
    every iteration re-runs the same sequence."""
    if not isinstance(loop, ast.For) or loop.orelse:
        return False
    targets = {n.id for n in ast.walk(loop.target) if isinstance(n, ast.Name)}
    printed: set[int] = set()
    for stmt in loop.body:
        for node in ast.walk(stmt):
            if not isinstance(node, ast.Call):
                continue
            called = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if called in api.RANDOM_CREATION_FUNCS or called in api.RANDOM_METHODS or called == "next":
                return False  # draws new inputs (or takes the next item) on every iteration
            if (
                isinstance(node.func, ast.Name)
                and node.func.id == "print"
                and builtin_unshadowed("print", ctx.module)
            ):
                printed |= {id(n) for n in ast.walk(node)}
    return not any(
        isinstance(n, ast.Name) and n.id in targets and id(n) not in printed
        for stmt in loop.body
        for n in ast.walk(stmt)
    )


def reset_state(
    ctx: RuleContext, loop: Loop, carried: list[Value], entering: list[Value], initialisers: list[ast.stmt]
) -> Applicability | None:
    """Re-initialising carried state at the top of each iteration (rule 5): safe where the loop
    re-runs the same sequence (:func:`repeats_sequence`), the state is stepped within each
    iteration (:func:`updated_within_step`), and what re-initialises it is what the state was when
    the loop began: a ``None`` (``entering``), or pure forward statements that made it without a
    graph (``initialisers``, rule 2); unsafe where the loop reads something of its iteration (a
    stream read in chunks, whose state is meant to flow on); not offered otherwise."""
    if any(maybe_of(value) for value in entering):
        return None  # what enters the loop has a graph: re-running it is the pre-loop rule's fix
    if initialisers and recompute(ctx, initialisers, Applicability.SAFE) is None:
        return None
    if not initialisers and not all(isinstance(v, Const) and v.value is None for v in entering):
        return None
    within = bool(carried) and all(updated_within_step(ctx, loop, value) for value in carried)
    return Applicability.SAFE if within and repeats_sequence(ctx, loop.node) else Applicability.UNSAFE


def refill_memo(ctx: RuleContext, attrs: set[str]) -> bool:
    """Emptying, at the start of each iteration, what objects keep in ``self.<attr>`` for ``attrs``
    (a cache, or the key that lets it serve) makes the next read compute it again from the current
    parameters and inputs (rule 14): safe where every function of the checked code that stores
    into one of them (but ``__init__``, which the fix does not run) is a memo's fill: it only
    computes (:func:`_computes`' statements, a pure forward computation, no random draw) and stores
    into those attributes, or items of them, values that never read them (a memo filled from its
    inputs, not a recurrent state computed from its previous value: that one is cut, rule 5), and
    nothing else changes them (a call on them, ``self.cache.update(...)``, is not shown). Re-run,
    the fill computes what the memo stands for: the same value the program would compute without
    the cache, at the step's own parameters."""
    fills: dict[int, ast.FunctionDef] = {}
    methods = _methods_defined(ctx.module)
    for node in ast.walk(ctx.module):
        stored = isinstance(getattr(node, "ctx", None), ast.Store | ast.Del)
        if stored and _memo_target(node, attrs, receiver=None) and not _memo_target(node, attrs):
            return False  # stored from outside the object's methods (``model._memo[k] = v``)
        if _memo_target(node, attrs) and stored:
            func = ctx.function_of(node)
            if not isinstance(func, ast.FunctionDef):
                return False  # stored at module level or in a lambda: not shown
            if func.name != "__init__":
                fills[id(func)] = func
        elif _changed_by_call(ctx, node, attrs, methods):
            return False
    if not fills:
        return False
    return all(_fills_memo(ctx, func, attrs) for func in fills.values())


def _memo_target(node: ast.AST, attrs: set[str], receiver: str | None = "self") -> bool:
    """``self.<attr>`` or an item of it (``self._memo["chol"]``), ``attr`` one of ``attrs``; with
    ``receiver`` None, ``<anything>.<attr>``."""
    while isinstance(node, ast.Subscript):
        node = node.value
    return (
        isinstance(node, ast.Attribute)
        and node.attr in attrs
        and (receiver is None or (isinstance(node.value, ast.Name) and node.value.id == receiver))
    )


def _changed_by_call(ctx: RuleContext, node: ast.AST, attrs: set[str], methods: frozenset[str]) -> bool:
    """``self.<attr>.<method>(...)`` for a method that may change it (``update``, ``setdefault``),
    outside ``__init__``; ``clear()`` and reads (``get``, ``keys``) leave it a memo, unless the
    checked code's classes define a method of that name (``methods``)."""
    if not (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and _memo_target(node.func.value, attrs, receiver=None)
    ):
        return False
    func = ctx.function_of(node)
    reads = node.func.attr in MEMO_READS and node.func.attr not in methods
    return not reads and not (isinstance(func, ast.FunctionDef) and func.name == "__init__")


MEMO_READS = frozenset({"clear", "get", "keys", "values", "items", "size", "dim", "__contains__"})
"""What these methods do on a dict or a tensor (empty it, read it) fills no cache; a class of the
checked code that defines one of them may do anything in it, so there the call is not shown to read."""


def _methods_defined(module: ast.Module) -> frozenset[str]:
    """The names of the methods the checked code's classes define."""
    return frozenset(
        item.name
        for node in ast.walk(module)
        if isinstance(node, ast.ClassDef)
        for item in node.body
        if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef)
    )


def _fills_memo(ctx: RuleContext, func: ast.FunctionDef, attrs: set[str]) -> bool:
    if isinstance(func, ast.AsyncFunctionDef) or func.decorator_list:
        return False
    body = func.body[1:] if ast.get_docstring(func) is not None else func.body
    fresh = _fresh_locals(ctx, func)
    return bool(body) and all(_memo_statement(ctx, stmt, attrs, fresh) for stmt in body)


def _memo_statement(ctx: RuleContext, stmt: ast.stmt, attrs: set[str], fresh: frozenset[str]) -> bool:
    if isinstance(stmt, ast.If):
        return _forward_expression(ctx, stmt.test, set()) and all(
            _memo_statement(ctx, s, attrs, fresh) for s in [*stmt.body, *stmt.orelse]
        )
    if isinstance(stmt, ast.Return):
        return _computing_statement(ctx, stmt, set(), fresh)  # hands back what the memo holds
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
        return False
    read = stmt.value if isinstance(stmt, ast.Assign) else stmt
    if any(_memo_target(n, attrs) for n in ast.walk(read)):
        return False  # computed from what the memo held: a recurrent state, not a memo
    if not isinstance(stmt, ast.Assign):
        return _computing_statement(ctx, stmt, set(), fresh)
    flat = [e for t in stmt.targets for e in (t.elts if isinstance(t, ast.Tuple | ast.List) else [t])]
    stores = [t for t in flat if _memo_target(t, attrs)]
    if not stores:
        return _computing_statement(ctx, stmt, set(), fresh)
    local = all(_memo_target(t, attrs) or _names_only(t) for t in flat)
    return local and _forward_expression(ctx, stmt.value, set())


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


def built_for_turns(ctx: RuleContext, statements: list[ast.stmt], loop: ast.stmt) -> bool:
    """Rule 11's shape: ``statements`` run once per iteration of a loop around ``loop``, whose
    iterations each step another optimizer in turn (``optimizers[i].step()`` in ``for i in
    range(2)``: the peers of mutual learning, MADDPG's agents, each stepped on one forward pass
    of all of them)."""
    return _steps_in_turn(loop) and any(_encloses(ctx, stmt, loop) for stmt in statements)


def hooks_registered_again(ctx: RuleContext, stmt: ast.stmt, loop: ast.stmt) -> Applicability:
    """Re-running, right before ``loop``, the statement ``stmt`` that registered the forward hooks
    removed before it (rule 16): safe where ``stmt`` only builds objects whose constructors only
    register hooks that store what they are handed, ``loop`` runs a module's forward for its hooks
    alone and reads what ``stmt`` binds; unsafe otherwise (rule 2: it re-runs constructors)."""
    targets = stmt.targets if isinstance(stmt, ast.Assign) else []
    bound = {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
    calls = [n for n in ast.walk(stmt) if isinstance(n, ast.Call)]
    read = {n.id for n in ast.walk(loop) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    if not (
        ctx.complete
        and calls
        and bound & read
        and all(_builds_hook_holder(ctx, call) for call in calls)
        and _forward_for_hooks(ctx, loop)
    ):
        return Applicability.UNSAFE
    return Applicability.SAFE


def _builds_hook_holder(ctx: RuleContext, call: ast.Call) -> bool:
    """``call`` builds an object of a class of the checked code with no base class, whose
    ``__init__`` only stores the handles of forward hooks it registers with methods of its own that
    only store what they are handed."""
    ran = ctx.called_functions.get(call, set())
    if len(ran) != 1:
        return False
    (init,) = ran
    cls = ctx.parents.get(init)
    if not (isinstance(cls, ast.ClassDef) and init.name == "__init__" and not cls.bases and not cls.keywords):
        return False
    methods = {f.name: f for f in cls.body if isinstance(f, ast.FunctionDef)}
    body = [s for s in init.body if not _is_docstring(s)]
    return bool(body) and all(_stores_hook_handle(s, methods) for s in body)


def _stores_hook_handle(stmt: ast.stmt, methods: dict[str, ast.FunctionDef]) -> bool:
    """``self.<handle> = <module>.register_forward_hook(self.<method>)``, the method only storing
    on ``self`` what it is handed."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and is_self_attribute(stmt.targets[0])):
        return False
    call = stmt.value
    if not (
        isinstance(call, ast.Call)
        and isinstance(call.func, ast.Attribute)
        and call.func.attr == "register_forward_hook"
        and not any(isinstance(n, ast.Call) for n in ast.walk(call.func.value))
        and len(call.args) == 1
        and not call.keywords
        and is_self_attribute(call.args[0])
    ):
        return False
    hook = methods.get(getattr(call.args[0], "attr", ""))
    return hook is not None and _only_stores_arguments(hook)


def _only_stores_arguments(func: ast.FunctionDef) -> bool:
    """Every statement of ``func`` is ``self.<attr> = <one of its parameters>``."""
    params = {a.arg for a in func.args.args[1:]}
    body = [s for s in func.body if not _is_docstring(s)]
    return bool(body) and all(
        isinstance(s, ast.Assign)
        and len(s.targets) == 1
        and is_self_attribute(s.targets[0])
        and isinstance(s.value, ast.Name)
        and s.value.id in params
        for s in body
    )


def _is_docstring(stmt: ast.stmt) -> bool:
    return (
        isinstance(stmt, ast.Expr)
        and isinstance(stmt.value, ast.Constant)
        and isinstance(stmt.value.value, str)
    )


def _forward_for_hooks(ctx: RuleContext, loop: ast.stmt) -> bool:
    """``loop`` calls a module's forward as a statement of its own, its value discarded."""
    return any(
        isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and stmt.value in ctx.module_calls
        for stmt in ast.walk(loop)
    )


def forward_expression(ctx: RuleContext, expr: ast.expr) -> bool:
    """Every call in ``expr`` is a pure forward computation (rule 2), with no random draw."""
    return not isinstance(expr, ast.Lambda) and _forward_expression(ctx, expr, set())


def retain_for_second_loss(ctx: RuleContext, event: SecondPass, *, steps_spared: bool) -> Applicability:
    """Rule 17: ``retain_graph=True`` on the first of two losses' backwards keeps what the second
    backward needs, and sends what the program wrote: safe where the two are different losses whose
    sum would be safe (:func:`sum_losses`), the first pass is a ``.backward()``, every step between
    spared the second graph (``steps_spared``), and no code the checker does not follow was handed
    a parameter or a tensor that graph reads (:func:`_unfollowed_sees`). Unsafe otherwise."""
    first = event.free.site
    backward = isinstance(first.func, ast.Attribute) and first.func.attr == "backward"
    if not (ctx.complete and backward and steps_spared) or event.same_tensor:
        return Applicability.UNSAFE
    if sum_losses(ctx, event) is not Applicability.SAFE or _unfollowed_sees(ctx, event.reached):
        return Applicability.UNSAFE
    return Applicability.SAFE


UNFOLLOWED = frozenset({"unknown code", "a module changed"})
"""The gradient uses the interpreter records for code it does not follow (``ownership.py``)."""


def _unfollowed_sees(ctx: RuleContext, graph: frozenset[int]) -> bool:
    """Code the checker does not follow was handed a parameter the graph ``graph`` reads or one of
    its tensors (or what it was handed is not known): it may change them in place."""
    origins = upstream_origins(ctx.nodes, graph)
    if origins is None:
        return True
    origins = ctx.ownership.linked(origins)
    return any(
        use.how in UNFOLLOWED
        and (use.origins is None or bool(use.origins & origins) or bool(use.roots & graph))
        for use in ctx.ownership.uses
    )


def detach_terms_of_sums(ctx: RuleContext, event: SecondPass, lists: list[Value]) -> bool:
    """Rule 18: detaching, at the start of each iteration of a training loop, the items the lists
    ``lists`` carried into it changes nothing that trains where they enter the failing backward only
    as terms of sums (:func:`_adds_terms`), every freed node the backward reaches lies among them or
    below them, and nothing else sees a gradient there."""
    loop = event.loop
    if not ctx.complete or loop is None or loop.key not in ctx.stepping:
        return False
    old = own_nodes(lists) & event.reached
    made_them = frozenset().union(*(ctx.nodes[n].below for n in old)) | old
    if not old or not event.conflict <= made_them:
        return False
    only_old: set[int] = set()
    for node_id in sorted(event.reached - made_them):
        node = ctx.nodes[node_id]
        if not node.below & old:
            continue
        if node.below <= made_them | only_old:
            only_old.add(node_id)  # computed from the earlier items alone: a constant, detached
        elif not _adds_terms(ctx, node.site):
            return False
    cut = made_them | only_old
    return not any(use.roots & cut for use in ctx.ownership.uses)


def _adds_terms(ctx: RuleContext, site: ast.AST) -> bool:
    """The op at ``site`` hands each input the gradient it receives times a fixed number, whatever
    the other inputs hold: ``a + b``, ``a - b``, the builtin ``sum``, ``w * t`` or ``t / w`` for a
    number ``w`` that was the same constant on every run; or it computes one term of such a sum
    from one item alone (:func:`_term_of_one_item`)."""
    if isinstance(site, ast.BinOp | ast.AugAssign) and isinstance(site.op, ast.Add | ast.Sub):
        return True
    if ctx.constant_factors.get(site) is not None:
        return True
    return _builtin_sum(ctx, site) or _term_of_one_item(ctx, site)


def _builtin_sum(ctx: RuleContext, site: ast.AST) -> bool:
    """``sum(...)``, run as Python's builtin (no function of the checked code by that name)."""
    return (
        isinstance(site, ast.Call)
        and isinstance(site.func, ast.Name)
        and site.func.id == "sum"
        and site in ctx.forward_calls
        and site not in ctx.called_functions
    )


def _term_of_one_item(ctx: RuleContext, site: ast.AST) -> bool:
    """``site`` lies in the element of ``sum(<element> for <name> in <container>)`` (or of a list
    comprehension it sums), one ``for`` over a whole container named by a chain of attributes, no
    condition, whose element reads only ``<name>``, what the checked code's imports bind (``torch``,
    ``F``) and constants, through torch ops and tensor methods: each term of that sum reads one item
    alone."""
    current: ast.AST | None = site
    while current is not None and not isinstance(current, ast.GeneratorExp | ast.ListComp):
        if isinstance(current, ast.stmt | ast.Lambda):
            return False
        current = ctx.parents.get(current)
    if not isinstance(current, ast.GeneratorExp | ast.ListComp) or len(current.generators) != 1:
        return False
    loop = current.generators[0]
    summed = ctx.parents.get(current)
    if loop.ifs or loop.is_async or not isinstance(loop.target, ast.Name) or not chain_of_names(loop.iter):
        return False
    if not (isinstance(summed, ast.Call) and summed.args == [current] and _builtin_sum(ctx, summed)):
        return False
    if not any(n is site for n in ast.walk(current.elt)):
        return False
    readable = {loop.target.id} | imported_once(ctx.module)
    for node in ast.walk(current.elt):
        if isinstance(node, ast.Name) and node.id not in readable:
            return False
        if isinstance(node, ast.Call) and (node not in ctx.forward_calls or node in ctx.called_functions):
            return False
        if isinstance(node, NOT_FORWARD):
            return False
    return True


def chain_of_names(node: ast.expr) -> bool:
    """``rewards`` or ``policy.rewards``: a name, or attributes of one (never a call or an index)."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name)


def detach_unapplied(ctx: RuleContext, event: SecondPass, made: ast.AST) -> bool:
    """Rule 19: detaching, where the second loss reads it, the value the statement ``made``
    assigns changes nothing the optimizers step on: with the nodes made there cut, the second
    backward still reaches a node that learns, every parameter it no longer reaches is cleared by an
    optimizer's ``zero_grad()`` before any step changes it, after every run of that backward
    (:meth:`Ownership.stepped_uncleared`), and nothing else sees a gradient there."""
    cut = frozenset(
        n for n in event.reached if ctx.nodes[n].stmt is made or any(s is made for _, s in ctx.nodes[n].stmts)
    )
    if not ctx.complete or not cut:
        return False
    kept = reached_avoiding(ctx.nodes, event.reached, cut)
    lost = event.reached - kept
    changed = upstream_origins(ctx.nodes, lost)
    if not changed or not any(ctx.nodes[n].learns for n in kept):
        return False
    if ctx.ownership.stepped_uncleared(event.site, ctx.ownership.linked(changed), _cleared_right_before(ctx)):
        return False
    return gradient_unseen(ctx.nodes, lost, frozenset(), ctx.ownership)


def _cleared_right_before(ctx: RuleContext) -> Callable[[ast.AST, ast.AST], bool]:
    """Whether the ``zero_grad()`` call ``clear`` and the ``step()`` call ``step`` are statements of
    their own in one block, the clear first: wherever the step runs, the clear ran before it."""

    def before(clear: ast.AST, step: ast.AST) -> bool:
        places = _places_in_one_block(ctx, clear, step)
        return places is not None and places[0] < places[1]

    return before


def _places_in_one_block(ctx: RuleContext, earlier: ast.AST, later: ast.AST) -> tuple[int, int] | None:
    """Where the calls ``earlier`` and ``later`` stand in one block, each a statement of its own
    (``opt.zero_grad()``, ``opt.step()``): their statements' indices; None otherwise."""
    first, then = ctx.statement_of(earlier), ctx.statement_of(later)
    block = ctx.block_of(then) if then is not None else None
    if first is None or then is None or block is None:
        return None
    if not all(isinstance(s, ast.Expr) and s.value is c for s, c in ((first, earlier), (then, later))):
        return None
    indices = [next((i for i, s in enumerate(block) if s is stmt), None) for stmt in (first, then)]
    return (indices[0], indices[1]) if indices[0] is not None and indices[1] is not None else None


def retain_after_clear(ctx: RuleContext, event: SecondPass) -> Applicability:
    """Rule 20: ``retain_graph=True`` on the first of two ``.backward()`` calls of one loss, where a
    ``zero_grad()`` of every parameter the graph reads runs right before the second, after every
    run of the first (:func:`_cleared_between_runs`), and nothing changes a parameter between: the
    second replaces what the first left, and the kept graph computes it. Unsafe otherwise."""
    first, second = event.free.site, event.site
    backwards = all(isinstance(c.func, ast.Attribute) and c.func.attr == "backward" for c in (first, second))
    if not (ctx.complete and backwards and event.same_tensor) or event.stepped_between:
        return Applicability.UNSAFE
    read = upstream_origins(ctx.nodes, event.reached)
    if read is None or _unfollowed_sees(ctx, event.reached):
        return Applicability.UNSAFE
    needed = ctx.ownership.linked(read) - ctx.ownership.parameterless
    return Applicability.SAFE if _cleared_between_runs(ctx, first, second, needed) else Applicability.UNSAFE


def _cleared_between_runs(ctx: RuleContext, first: ast.AST, second: ast.AST, needed: frozenset[int]) -> bool:
    """After every run of the backward ``first``, before the next run of ``second``, a clear ran
    whose parameters cover ``needed``, and it is the statement right before ``second``'s in that
    block (:func:`_right_before`): wherever the second runs, the clear ran just before it."""
    last_first: int | None = None
    cleared: list[ast.AST] = []
    seen = False
    for index, (what, site, origins) in enumerate(ctx.ownership.timeline):
        if what == BACKWARD and site is first:
            last_first, cleared = index, []
        elif what == CLEAR and last_first is not None and origins is not None:
            if needed <= ctx.ownership.linked(origins):
                cleared.append(site)
        elif what == BACKWARD and site is second:
            if last_first is None or not any(_right_before(ctx, clear, second) for clear in cleared):
                return False
            seen = True
    return seen


def _right_before(ctx: RuleContext, clear: ast.AST, call: ast.AST) -> bool:
    """``clear``'s statement stands right before ``call``'s in one block (:func:`_places_in_one_block`)."""
    places = _places_in_one_block(ctx, clear, call)
    return places is not None and places[0] == places[1] - 1
