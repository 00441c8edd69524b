"""Backward: what a backward or ``autograd.grad`` frees or retains, the second pass through a freed
graph and what it goes through (the observation the rules read), and whether a retain is needed."""

from __future__ import annotations

import ast
from collections.abc import Sequence

from errknow_ls.analysis.events import Loop, RetainSite, SavedRead, SecondPass
from errknow_ls.analysis.interpreter.base import (
    CACHE_SITE,
    CACHED_X,
    InterpreterBase,
    LoopContext,
    func_node,
    is_generator,
)
from errknow_ls.analysis.ownership import BACKWARD
from errknow_ls.analysis.state import Entry, Free, Holder, Place, Retain
from errknow_ls.analysis.values import (
    UNKNOWN,
    UNSEEN,
    Const,
    GradFn,
    GraphNode,
    NNModule,
    Obj,
    Seq,
    Tensor,
    Unknown,
    Value,
    identities_of,
    maybe_of,
    nodes_of,
    tensors_in,
)


class Backward(InterpreterBase):
    """Runs backwards and observes second passes."""

    def autograd_grad(self, node: ast.Call, args: list[Value], kwargs: dict[str, Value]) -> Value:
        outputs = args[0] if args else kwargs.get("outputs", UNKNOWN)
        create = flag(kwargs.get("create_graph"), positional=args[5] if len(args) > 5 else None)
        inputs = args[1] if len(args) > 1 else kwargs.get("inputs", UNKNOWN)
        over = maybe_of(outputs)  # the graph it runs; one unknown code made may be any
        self.note_gradient_use(inputs, "`autograd.grad`", through=None if UNSEEN in over else over)
        reach = self._stopping_at(outputs, inputs)
        if reach is None and _explicit_inputs(node):
            # grad w.r.t. a few named tensors runs (and frees) only the part of the graph that
            # leads to them; which part that is we cannot tell, so nothing counts as freed.
            kwargs = {**kwargs, "inputs": UNKNOWN}
        elif (
            reach is None
            and not tensors_in(inputs)
            and flag(kwargs.get("allow_unused"), positional=args[6] if len(args) > 6 else None) is not True
        ):
            # Inputs we cannot see: it runs (and frees) the part of the graph that leads to them,
            # which part not known; only the outputs' own nodes surely run, as every input is
            # reached through them.
            reach = frozenset(t.root for t in tensors_in(outputs) if t.root is not None)
        self.backward_call(node, outputs, kwargs, receiver_expr(node, 0), args[3:5], reach)
        if create is True and not self.no_grad:
            graph = nodes_of(outputs)
            return Seq(self.new_node(node, graph, saves=True), "tuple")
        return Seq(Tensor(grad=False), "tuple")

    def backward_call(  # noqa: PLR0917
        self,
        node: ast.Call,
        tensors: Value,
        kwargs: dict[str, Value],
        receiver: ast.expr | None,
        positional: Sequence[Value] = (),
        reach: frozenset[int] | None = None,
    ) -> Value:
        """``reach``: the nodes it runs, where its ``inputs`` stop it short of the whole graph."""
        if self.state.dead:
            return Const(None)  # an argument raised: this backward never runs
        if reach is None and "inputs" in kwargs and kwargs["inputs"] is not UNKNOWN:
            reach = self._stopping_at(tensors, kwargs["inputs"])
        roots = [t for t in tensors_in(tensors) if t.grad or t.nodes]
        may = maybe_of(tensors)
        if not roots:
            self._note_unknown_reach([tensors])  # a backward of what unknown code gave back
            if _not_known(tensors):
                self._note_unseen_backward()
            return Const(None)
        reached = frozenset().union(*(t.nodes for t in roots))
        if reach is not None:
            reached &= reach
        self.ownership.timeline.append((BACKWARD, node, None))
        retain = _retains(kwargs, positional)
        if reach is None and "inputs" in kwargs and retain is False:
            retain = None  # only the part of the graph that leads to `inputs` runs and is freed
        self._raised = False
        self._check_second_pass(node, receiver, roots, reached)
        if self._raised:
            # torch raised here: this backward freed nothing a later finding may lean on. What
            # follows is still checked, as it runs once this one is fixed.
            return Const(None)
        self._note_retained_reach(node, reached, may)
        self.tick += 1
        loops = tuple(self.loop_stack)
        if retain is False:
            label = ast.unparse(receiver) if receiver is not None else "tensor"
            free = Free(
                node,
                roots[0].root,
                loops,
                self.tick,
                label,
                reached,
                self._home(),
                self._entered(receiver),
                frozenset().union(*(identities_of(t) for t in roots)),
                self._operands(receiver),
            )
            for node_id in reached:
                self.state.freed[node_id] = free
        elif retain is True and (site := self._retain_site(node)) is not None:
            for node_id in may:  # what it may keep alive, known or through unknown code
                self.state.retained[node_id] = Retain(site, loops)
            self._note_retain_site(site, roots)
        return Const(None)

    def _stopping_at(self, outputs: Value, inputs: Value) -> frozenset[int] | None:
        """The nodes a backward of ``outputs`` runs when it stops at ``inputs`` that are all made by
        ops (not leaves): those above an input, not the inputs' own graphs. None when that is not
        known (a leaf among them, or inputs we cannot see)."""
        if isinstance(inputs, Seq) and inputs.some_of:
            # Some of these items, which ones not known: what it runs for any of them.
            each = [self._stopping_at(outputs, item) for item in inputs.some_of]
            known = [reach for reach in each if reach is not None]
            return frozenset.intersection(*known) if len(known) == len(each) else None
        stops = tensors_in(inputs)
        if not stops or not _only_tensors(inputs) or any(not t.nodes for t in stops):
            return None
        below = frozenset().union(*(t.nodes for t in stops))
        tops = self._tops_of(below)  # each input's own node
        return frozenset(n for n in nodes_of(outputs) - below if self.nodes[n].below & tops)

    def _check_second_pass(
        self, node: ast.Call, receiver: ast.expr | None, roots: list[Tensor], reached: frozenset[int]
    ) -> None:
        conflict = frozenset(n for n in reached if n in self.state.freed and self.nodes[n].saves)
        if not conflict:
            return
        free = self.state.freed[min(conflict, key=lambda n: self.state.freed[n].tick)]
        if id(free) in self._raised_by:
            return  # the same freed graph, reached again after it raised: one bug, said once
        self._guarded = frozenset()
        self._entry = {}
        self._spelled = {}
        event = SecondPass(node, node, receiver, conflict, free, roots=tuple(t.root for t in roots))
        self._observe(event, roots)
        event.report, event.frame = self._report_site(node, free.tick)
        if event.carried_over and event.carried:
            inside = self._inside_stateful_method(node, free.tick, event.carried)
            if inside is not None:
                event.report, event.frame, event.loop, event.carried = inside
        event.reached = reached
        event.guarded, event.entry, event.spelled = self._guarded, self._entry, self._spelled
        event.cache_sites = self._cache_sites(event.carried)
        event.module, event.local = self._home(), self._local_call(node, free)
        event.entered = self._entered(receiver)
        event.stepped_between = self.step_tick >= free.tick
        event.stepped_origins = self.ownership.stepped_since(free.tick)
        event.removed_hooks = tuple(self.hook_registrations[i] for i in sorted(self.state.hooks_removed))
        self.events.append(event)
        self._raised = True
        self._raised_by.add(id(free))

    def _observe(self, event: SecondPass, roots: list[Tensor]) -> None:
        """What the second pass goes through: the same tensor as the first, a graph carried across
        iterations, a graph built before the loop that freed it (rules decide what it means)."""
        node, free, conflict = event.site, event.free, event.conflict
        current = dict(self.loop_stack)
        same_root = any(t.root is not None and t.root == free.root for t in roots)
        reached = frozenset().union(*(t.nodes for t in roots))
        wrapped = free.site is not node and _thin_wrapper(roots, reached, free)
        repeated = free.site is node  # the same call, on an earlier iteration
        # The tensor the first pass backwarded, reached again from another call (handed back by a
        # function, kept over a loop, updated in place in between): the same object on some path.
        again = not repeated and any(identities_of(t) & free.identities for t in roots)
        # The same expression over the same values (`scaler.scale(loss)`, `outputs[6].sum()`):
        # the same loss computed again, not another loss that shares its graph.
        computed_again = (
            not repeated
            and event.receiver is not None
            and free.operands is not None
            and ast.unparse(event.receiver) == free.label
            and self._operands(event.receiver) == free.operands
        )
        event.same_tensor = same_root or wrapped or again or computed_again
        if event.same_tensor and repeated and _made_on_an_earlier_iteration(self.nodes, conflict, current):
            event.same_tensor = False  # built on the first pass of the loop only, kept for the next
        if event.same_tensor:
            event.loop = self._freeing_loop(free, current) if repeated else None
            self._note_loop_entry(event)
            return
        for node_id in sorted(conflict):
            for key, iteration in self.nodes[node_id].loops:
                if key in current and current[key] > iteration:
                    context = self.loops[key]
                    names = {k: v for k, v in context.carried.items() if nodes_of(v) & conflict}
                    self._guarded = frozenset(k for k in names if _needs_guard(context, k))
                    self._entry = {k: context.entry[k] for k in names if k in context.entry}
                    self._spelled = _spell_attributes(names, context.entry, self.state.heap)
                    event.carried_over, event.loop, event.carried = True, context.loop, names
                    return
                if key not in current and key in dict(free.loops):
                    if dict(self.state.freed[node_id].loops).get(key) == iteration:
                        # Made and freed on the last iteration of a loop that has ended: that
                        # iteration's loss and this one share the graph, nothing is carried over.
                        continue
                    event.carried_over, event.loop = True, self.loops[key].loop
                    return
        event.loop = self._freeing_loop(free, current)
        event.loop_walks_tensors = event.loop is not None and self.loops[event.loop.key].over_tensors
        if not event.loop_walks_tensors:
            self._note_loop_entry(event)

    def _cache_sites(self, carried: dict[Holder, Value]) -> dict[Place, ast.Call]:
        """The carried inversions a transform kept, with the call that gave it its cache."""
        sites: dict[Place, ast.Call] = {}
        for holder in carried:
            if isinstance(holder, Place) and holder.attribute == CACHED_X:
                site = self.state.heap.get(Place(holder.object_id, CACHE_SITE))
                if isinstance(site, Const) and isinstance(site.value, ast.Call):
                    sites[holder] = site.value
        return sites

    def _note_loop_entry(self, event: SecondPass) -> None:
        """The names that held the freed graph when ``event.loop`` started."""
        if event.loop is not None:
            entry = self.loops[event.loop.key].entry
            self._entry = {k: v for k, v in entry.items() if nodes_of(v) & event.conflict}

    def _local_call(self, node: ast.Call, free: Free) -> ast.expr | None:
        """Where this backward, or the one that freed, runs in another module of the project: the
        call in the checked text through which it runs now (the backward itself when it is here)."""
        if self._home() is None:
            return node if free.module is not None else None
        for index, frame in enumerate(self.frames[:-1]):
            if frame.module is None and self.frames[index + 1].module is not None:
                return self.frames[index + 1].call_site
        return None

    def _operands(self, receiver: ast.expr | None) -> tuple[tuple[str, Value], ...] | None:
        """What the names and attributes of names ``receiver`` reads hold now, read without running
        code (None: one is not bound here, or is an attribute of something not the checked code's
        own object)."""
        if receiver is None:
            return None
        held: list[tuple[str, Value]] = []
        for place in _read_places(receiver):
            value = self._peek(place)
            if value is None:
                return None
            held.append((ast.unparse(place), value))
        return tuple(held)

    def _peek(self, place: ast.Name | ast.Attribute) -> Value | None:
        if isinstance(place, ast.Name):
            frame = self.frames[-1] if self.frames else None
            closure = frame.closure if frame is not None and frame.closure is not None else {}
            return self.state.env.get(place.id, closure.get(place.id, self.globals.get(place.id)))
        owner = self._peek(place.value) if isinstance(place.value, ast.Name) else None
        if isinstance(owner, Obj):
            stored = self.state.heap.get(Place(owner.oid, place.attr))
            return owner if stored is None and place.attr in owner.cls.methods else stored
        return owner  # a method or attribute of a value the name holds: that value decides

    def _entered(self, receiver: ast.expr | None) -> Entry | None:
        """Running in another module of the project: the call in the checked text that entered it,
        and the argument there that ``receiver`` is bound to. None when the backward does not run in
        the very function that call ran, or ``receiver`` is not one of its parameters."""
        if self._home() is None:
            return None
        for index, frame in enumerate(self.frames[:-1]):
            entered = self.frames[index + 1]
            if frame.module is None and entered.module is not None and entered.call_site is not None:
                if index + 1 != len(self.frames) - 1:
                    return None  # deeper: the tensor passes through calls not followed here
                method = entered.bound is not None
                bound = bound_argument(entered.call_site, entered.func, receiver, method=method)
                if receiver is not None and bound is None:
                    return None
                return Entry(entered.call_site, bound, frame.serial, entered.serial)
        return None
        for index, frame in enumerate(self.frames[:-1]):
            entered = self.frames[index + 1]
            if frame.module is None and entered.module is not None and entered.call_site is not None:
                method = entered.bound is not None
                direct = index + 1 == len(self.frames) - 1  # the backward runs in the function entered
                bound = (
                    bound_argument(entered.call_site, entered.func, receiver, method=method)
                    if direct
                    else None
                )
                return Entry(entered.call_site, bound)
        return None

    def _freeing_loop(self, free: Free, current: dict[int, int]) -> Loop | None:
        for key, iteration in free.loops:
            if key in current and current[key] > iteration:
                return self.loops[key].loop
        return None

    def _report_site(self, node: ast.Call, freed_at: int) -> tuple[ast.expr, int]:
        """The backward itself, or the call in the innermost frame that was running when it freed;
        with the serial of the frame whose code holds that place."""
        deepest = -1
        for index, frame in enumerate(self.frames):
            if frame.start < freed_at:
                deepest = index
        if 0 <= deepest < len(self.frames) - 1:
            site = self.frames[deepest + 1].call_site
            if site is not None:
                return site, self.frames[deepest].serial
        return node, self.frames[-1].serial if self.frames else 0

    def _inside_stateful_method(
        self, node: ast.Call, freed_at: int, carried: dict[Holder, Value]
    ) -> tuple[ast.expr, int, Loop, dict[Holder, Value]] | None:
        """A loop calls a method of an object that keeps the graph on itself between calls
        (``trainer.training_step(x)`` storing ``self.context``): the bug is in the method, so report
        there, as if its calls were the loop, with the state spelled ``self.context``."""
        deepest = max((i for i, f in enumerate(self.frames) if f.start < freed_at), default=-1)
        if not 0 <= deepest < len(self.frames) - 1:
            return None
        method = self.frames[deepest + 1]
        places = [key for key in carried if isinstance(key, Place)]
        if (
            method.bound is None
            or len(places) != len(carried)  # a name of the loop carries it too
            or {place.object_id for place in places} != {method.bound}
            or method.func is None
        ):
            return None
        fn = func_node(method.func)
        if fn is None:
            return None
        inner = self.frames[deepest + 2].call_site if deepest + 2 < len(self.frames) else None
        report = inner if inner is not None else node
        loop = Loop(self._new_key(), None, method=fn, frame=method.serial)
        spelled: dict[Holder, str] = {place: place.describe() for place in places}
        self._guarded = frozenset(spelled.values())  # None until the first call stores it
        self._entry = {spelled[k]: v for k, v in self._entry.items() if k in spelled}
        self._spelled = {}
        return report, method.serial, loop, {spelled[place]: carried[place] for place in places}

    def _read_saved(self, grad_fn: GradFn, expr: ast.expr) -> None:
        """Reading what a node saved raises where a backward without ``retain_graph`` freed it."""
        self.saved_reads += 1
        free = self.state.freed.get(grad_fn.node)
        made = self.nodes[grad_fn.node]
        if free is None or self.state.dead or not (made.saves and made.every_input_grad):
            return
        tensor = (
            expr.value.value
            if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Attribute)
            else expr
        )
        self.events.append(SavedRead(expr, free, tensor))

    def _note_unknown_reach(self, given: list[Value]) -> None:
        """A retained graph handed to code we do not follow may be backwarded there: whether the
        retain is needed is unknown."""
        reached = frozenset().union(*(maybe_of(v) for v in given)) & self.state.retained.keys()
        for node_id in reached:
            site = self.retain_sites.get(id(self.state.retained[node_id].site))
            if site is not None:
                site.unseen = True

    def _note_unseen_backward(self) -> None:
        """A backward of a value not known: a retained graph may hold parts the checker did not
        see made (a loss of a module it does not follow), and this backward may go through them;
        whether each retain is needed is unknown."""
        for retain in self.state.retained.values():
            site = self.retain_sites.get(id(retain.site))
            if site is not None:
                site.unseen = True

    def _note_retained_reach(self, node: ast.Call, reached: frozenset[int], may: frozenset[int]) -> None:
        """A backward that reaches (``reached``) or may reach (``may``, through unknown code) what
        an earlier retain kept: the retain is needed, or, where the reach is only possible,
        whether it is needed is unknown."""
        loops = tuple(self.loop_stack)
        for node_id in (reached | may) & self.state.retained.keys():
            retain = self.state.retained[node_id]
            site = self.retain_sites.get(id(retain.site))
            if site is not None and (node_id == UNSEEN or node_id not in reached):
                site.unseen = True  # the graphs may share what we cannot see, or may not
                continue
            if site is None or (retain.site is node and retain.loops == loops):
                continue
            # Another backward, or this one at a later iteration (a graph carried from one
            # iteration to the next, which the retain is what lets run): removing it raises.
            site.reached_later = True
            made_before_loop = all(k != site.loop.key for k, _ in self.nodes[node_id].loops)
            # The same iteration of the retain's loop, deeper in it too: a Hessian-vector product
            # run once before a conjugate-gradient loop and then at each of its steps, each of whose
            # `grad(kl, create_graph=True)` goes through the graph of `kl` the product before kept.
            kept_in = _iteration_of(site.loop.key, retain.loops)
            same_iteration = kept_in is not None and kept_in == _iteration_of(site.loop.key, loops)
            # A generator that yields what it retained: its consumer backwards it in the same step.
            if retain.loops == loops or same_iteration or made_before_loop or is_generator(site.loop.func):
                site.justified = True

    def _retain_site(self, node: ast.Call) -> ast.Call | None:
        """The call that says ``retain_graph=True`` in so many words: here, or in a caller."""
        if _explicit_retain(node):
            return node
        for frame in reversed(self.frames):
            if frame.call_site is not None and _explicit_retain(frame.call_site):
                return frame.call_site
        return None

    def training_retains(self) -> list[RetainSite]:
        """The retains noted inside training loops: loops in which an optimizer steps (or
        parameters are updated in place under ``no_grad``)."""
        return [
            site for site in self.retain_sites.values() if site.loop.key in self.stepping and not site.foreign
        ]

    def _note_retain_site(self, node: ast.Call, roots: list[Tensor]) -> None:
        """Remember a retain inside a loop of this frame whose graph the iteration built."""
        if not self.loop_stack:
            return
        key, iteration = self.loop_stack[-1]
        rebuilt = any(
            all((key, iteration) in self.nodes[top].loops for top in self._tops(t)) for t in roots if t.nodes
        )
        if rebuilt and id(node) not in self.retain_sites:
            self.retain_sites[id(node)] = RetainSite(
                node, self.loops[key].loop, foreign=self._home() is not None
            )

    def _tops(self, tensor: Tensor) -> frozenset[int]:
        """The nodes a backward from ``tensor`` starts at: its own (its root), or, for a value that
        may be one of several tensors (a sum built in a loop, joined over its iterations), each of
        theirs: the nodes no other of its nodes leads to."""
        if tensor.root is not None:
            return frozenset({tensor.root})
        return self._tops_of(tensor.nodes)

    def _tops_of(self, nodes: frozenset[int]) -> frozenset[int]:
        """The nodes of ``nodes`` that no other of them leads to."""
        return nodes - frozenset().union(*(self.nodes[n].below for n in nodes))


def _not_known(tensors: Value) -> bool:
    """``tensors`` (what a backward was given) holds a value the checker does not know."""
    if isinstance(tensors, Seq):
        return any(_not_known(item) for item in (tensors.items or (tensors.item,)))
    return isinstance(tensors, Unknown)


def _iteration_of(key: int, loops: tuple[tuple[int, int], ...]) -> int | None:
    """Which iteration of the loop ``key`` the loops running (``loops``) are in (None: not in it)."""
    return next((iteration for k, iteration in loops if k == key), None)


def _spell_attributes(
    carried: dict[Holder, Value], entry: dict[Holder, Value], heap: dict[Place, Value]
) -> dict[Place, str]:
    """``self.records`` of object 7 -> ``recorder.records`` where a name at the loop's start holds
    object 7, or ``self.collector.features`` where that name's attribute does, or ``body[0].mem``
    where it is a module of the container ``body`` (:attr:`NNModule.members`)."""
    owners: dict[int, str] = {}
    for holder, value in entry.items():
        if isinstance(holder, str):
            _name_objects(owners, value, holder)
    for place, value in heap.items():
        if place.object_id in owners:
            _name_objects(owners, value, f"{owners[place.object_id]}.{place.attribute}")
    return {
        place: f"{owners[place.object_id]}.{place.attribute}"
        for place in carried
        if isinstance(place, Place) and place.object_id in owners
    }


def _name_objects(owners: dict[int, str], value: Value, spelled: str) -> None:
    """Spell the object ``value`` is, or the objects a container of modules holds, from ``spelled``,
    unless they are spelled already."""
    if isinstance(value, Obj):
        owners.setdefault(value.oid, spelled)
    elif isinstance(value, NNModule) and value.members is not None:
        for key, member in value.members:
            if isinstance(member, Obj):
                owners.setdefault(member.oid, f"{spelled}[{key!r}]")


def _needs_guard(context: LoopContext, holder: Holder) -> bool:
    """A carried name (or place) that may be None (or unset) when the loop starts needs ``is not
    None``."""
    return not isinstance(context.entry.get(holder), Tensor | Seq)


def _only_tensors(value: Value) -> bool:
    """``value`` is a tensor, or a sequence of nothing but tensors."""
    if isinstance(value, Tensor):
        return True
    if isinstance(value, Seq):
        parts = value.items if value.items is not None else (value.item,)
        return bool(parts) and all(_only_tensors(part) for part in parts)
    return False


def flag(value: Value | None, positional: Value | None = None) -> bool | None:
    """True/False for a constant flag, None when it is an expression we cannot decide."""
    chosen = value if value is not None else positional
    if chosen is None:
        return False
    if isinstance(chosen, Const):
        return bool(chosen.value) if chosen.value is not None else False
    return None


def _retains(kwargs: dict[str, Value], positional: Sequence[Value]) -> bool | None:
    """Whether a backward keeps its graph: ``retain_graph``, else ``create_graph``."""
    if "**" in kwargs:
        return None
    # `retain_variables` is retain_graph's spelling before torch 0.4 (later ones reject it).
    given = kwargs.get("retain_graph", kwargs.get("retain_variables"))
    retain = flag(given, positional[0] if positional else None)
    if given is not None or positional:
        return retain
    create = flag(kwargs.get("create_graph"), positional[1] if len(positional) > 1 else None)
    return create if create is not False else False


def _read_places(expr: ast.expr) -> list[ast.Name | ast.Attribute]:
    """The names and the attributes of names (``self.loss``, ``saved.features``) ``expr`` reads."""
    return [
        n
        for n in ast.walk(expr)
        if isinstance(n, ast.Name) or (isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name))
    ]


def _thin_wrapper(roots: list[Tensor], reached: frozenset[int], free: Free) -> bool:
    """``scaler.scale(loss).backward()`` then ``loss.backward()``: one op apart, the same loss."""
    linked = free.root in reached or any(t.root is not None and t.root in free.reached for t in roots)
    return linked and len(free.reached ^ reached) <= 1


def _made_on_an_earlier_iteration(
    nodes: Sequence[GraphNode], conflict: frozenset[int], current: dict[int, int]
) -> bool:
    """Whether a node of ``conflict`` was made inside a loop running now, on an earlier iteration."""
    return any(
        key in current and current[key] > iteration
        for node_id in conflict
        for key, iteration in nodes[node_id].loops
    )


def _explicit_inputs(node: ast.Call) -> bool:
    """``grad(loss, [head.weight, head.bias])``: a literal list of named tensors, not all parameters."""
    inputs = (
        node.args[1]
        if len(node.args) > 1
        else next((k.value for k in node.keywords if k.arg == "inputs"), None)
    )
    if not isinstance(inputs, ast.List | ast.Tuple) or not inputs.elts:
        return False
    return all(isinstance(e, ast.Attribute | ast.Name) for e in inputs.elts)


def _explicit_retain(node: ast.Call) -> bool:
    return any(
        kw.arg == "retain_graph" and isinstance(kw.value, ast.Constant) and kw.value.value is True
        for kw in node.keywords
    )


def receiver_expr(node: ast.Call, arg_index: int | None) -> ast.expr | None:
    """The expression of the tensor being backwarded."""
    if arg_index is None:
        return node.func.value if isinstance(node.func, ast.Attribute) else None
    if len(node.args) > arg_index:
        return node.args[arg_index]
    for kw in node.keywords:
        if kw.arg in ("tensors", "outputs", "loss"):
            return kw.value
    return None


def bound_argument(
    call: ast.Call, func: ast.AST | None, receiver: ast.expr | None, *, method: bool
) -> ast.expr | None:
    """The argument of ``call`` that the parameter ``receiver`` names is bound to, by Python's rules
    for plain positional and keyword arguments of a function; None where it is not a parameter,
    where a ``*args`` / ``**kwargs`` at the call leaves it open, or for a method."""
    if not isinstance(receiver, ast.Name) or not isinstance(func, ast.FunctionDef | ast.AsyncFunctionDef):
        return None
    if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        return None
    if method:
        return None  # ``obj.m(x)`` and ``Cls.m(obj, x)`` bind ``self`` differently: not told apart here
    positional = [a.arg for a in (*func.args.posonlyargs, *func.args.args)]
    for keyword in call.keywords:
        if keyword.arg == receiver.id and receiver.id not in (a.arg for a in func.args.posonlyargs):
            return keyword.value
    if receiver.id in positional:
        index = positional.index(receiver.id)
        if index < len(call.args):
            return call.args[index]
    return None
