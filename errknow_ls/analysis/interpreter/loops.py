"""Loops: a body runs twice (so what one iteration leaves for the next is seen), once per way its
loop-invariant ``if`` chains can go; what each iteration carries into the next is noted."""

from __future__ import annotations

import ast
from functools import partial
from weakref import WeakKeyDictionary

from errknow_ls.analysis.events import Loop
from errknow_ls.analysis.interpreter.base import (
    SOME_BRANCH,
    BudgetExceeded,
    Frame,
    InterpreterBase,
    LoopContext,
    func_node,
)
from errknow_ls.analysis.interpreter.statements import chain_else, chain_of
from errknow_ls.analysis.source import BACKWARD_NAMES, called_names
from errknow_ls.analysis.state import Holder, State, join_all
from errknow_ls.analysis.values import (
    ITERATOR,
    MAX_ITEMS,
    UNKNOWN,
    Const,
    NNModule,
    Number,
    Obj,
    Opaque,
    Seq,
    Tensor,
    Unknown,
    Value,
    element,
    maybe_of,
    nodes_of,
    nth,
    tensors_in,
)

MAX_UNROLLED_LOOPS = 3

MAX_NESTED_REPEATS = 2
"""Loops nested in this many (across calls) run a second iteration only where the first did more
than compute forward (see ``Loops._forward_only_deep``)."""

Progress = tuple[int, int, int, int]
"""See ``Loops._progress``."""

MAX_CHOICES = 6
"""Runs of one loop, one per way its loop-invariant ``if`` chains can go, at the most."""


class Loops(InterpreterBase):
    """Runs ``for`` and ``while`` loops."""

    def exec_loop(
        self,
        stmt: ast.stmt,
        body: list[ast.stmt],
        orelse: list[ast.stmt],
        *,
        target: ast.expr | None = None,
        items: Value = UNKNOWN,
        test: ast.expr | None = None,
    ) -> None:
        """Run the loop once for each way its loop-invariant ``if`` chains can go (taking one branch
        at every iteration, as the program does), and join the runs.

        A run that went both ways on a flag of an object (``if self.tuning:`` in a method the loop
        calls) that no code sets outside a constructor is done again, once per way the flag goes:
        the flag is the same on every call, so a path that takes it on one call and not on the
        next cannot happen. What the first run observed is dropped, also where the budget (or
        Python's stack) stops that run before it ends: it may hold such a path, and the runs that
        would replace it are not made."""
        choices = self._invariant_choices(stmt, body) if self.frames else [{}]
        start, seen, events = self.state.copy(), self._flag_tests, len(self.events)
        raised = set(self._raised_by)
        self._flag_tests = {}
        run = partial(
            self._exec_choices, stmt=stmt, body=body, orelse=orelse, target=target, items=items, test=test
        )

        def split_flags() -> list[dict[int, int]]:
            flags = self._flags_to_split()
            if not flags or len(choices) * len(flags) > MAX_CHOICES:
                return []
            del self.events[events:]
            self._raised_by = raised
            return flags

        try:
            try:
                run(choices)
            except (BudgetExceeded, RecursionError):
                split_flags()
                raise
            flags = split_flags()
            if flags:
                self.state = start
                run([{**c, **f} for c in choices for f in flags])
        finally:
            self._flag_tests = {**seen, **self._flag_tests}

    def _flags_to_split(self) -> list[dict[int, int]]:
        """Every combination of the ways the flags a run tested can go (see ``exec_loop``)."""
        options: list[dict[int, int]] = [{}]
        for key, (stmt, oid) in self._flag_tests.items():
            if oid is None or key in self._forced or len(chain_of(stmt)) != 1:
                continue
            tested = stmt.test.operand if isinstance(stmt.test, ast.UnaryOp) else stmt.test
            assert isinstance(tested, ast.Attribute)  # _note_flag_test saw to it
            if {tested.attr, "*"} & self.attributes_set_anywhere():
                continue
            if len(options) * 2 <= MAX_CHOICES:
                options = [{**o, key: way} for o in options for way in (0, 1)]
        return options if len(options) > 1 else []

    def attributes_set_anywhere(self) -> frozenset[str]:
        """Attribute names set outside constructors by the checked code or any module it read."""
        read = len(self.trees)
        known = self._settable
        if known is None or known[0] != read:
            stored = (_attributes_stored_in(tree) for tree in self.trees.values())
            found = self._attributes_set().union(*stored)
            known = self._settable = (read, found)
        return known[1]

    def _exec_choices(
        self,
        choices: list[dict[int, int]],
        *,
        stmt: ast.stmt,
        body: list[ast.stmt],
        orelse: list[ast.stmt],
        target: ast.expr | None,
        items: Value,
        test: ast.expr | None,
    ) -> None:
        if len(choices) <= 1:
            self._exec_loop(stmt, body, orelse, target=target, items=items, test=test)
            return
        start, ends = self.state, []
        for choice in choices:
            self.state = start.copy()
            saved = self._forced
            self._forced = {**saved, **choice}
            try:
                self._exec_loop(stmt, body, orelse, target=target, items=items, test=test)
            finally:
                self._forced = saved
            ends.append(self.state)
        self.state = join_all(ends, self.twin)

    def _invariant_choices(self, loop: ast.stmt, body: list[ast.stmt]) -> list[dict[int, int]]:
        """For the ``if`` chains in the loop's body whose tests read only names and attributes the
        loop never assigns (a configuration flag), every combination of the branch each takes."""
        # chains without an `else`: where none of their branches runs, what an earlier iteration
        # left stays, and only a consistent path tells whether that can happen (a chain with an
        # `else` always runs a branch: splitting on it costs a run and shows little)
        # chains of the very same tests (`if cfg.loss == "hinge": ... elif ...` at each of the
        # losses it picks) go the same way: their tests read what the loop never changes
        groups: dict[tuple[str, ...], list[ast.If]] = {}
        for chain in self._invariant_chains(loop, body):
            if id(chain) not in self._forced and not self._changed_by_methods(chain, loop):
                groups.setdefault(_tests_of(chain), []).append(chain)
        # a choice that says one thing equals two constants (`opt.task == "semantic"` in one
        # chain, `== "depth"` in another) cannot happen, and is not made
        chains_by_id = {id(c): c for chains in groups.values() for c in chains}
        options: list[dict[int, int]] = [{}]
        for chains in groups.values():
            tests = [test for test, _ in chain_of(chains[0])]
            exhaustive = self._exhaustive(tests)
            every_way = list(range(len(tests) + (0 if exhaustive else 1)))  # the last: none runs
            # too many to fix each branch: one of them, or none of them
            for ways in (every_way, [] if exhaustive else [SOME_BRANCH, len(tests)]):
                extended = [{**o, **{id(c): i for c in chains}} for o in options for i in ways]
                extended = [o for o in extended if _consistent(o, chains_by_id)]
                if extended and len(extended) <= MAX_CHOICES:
                    options = extended
                    break
        return options

    def _invariant_chains(self, loop: ast.stmt, body: list[ast.stmt]) -> list[ast.If]:
        """The ``if`` chains without an ``else`` in the loop's body whose tests the loop leaves
        alone: found once per loop (a loop runs at every call of its function)."""
        known = self._invariant_memo.get(loop)
        if known is None:
            assigned = _assigned_in(loop)
            known = [s for s in _ifs_in(body) if not chain_else(s) and self._invariant(s, assigned)]
            self._invariant_memo[loop] = known
        return known

    def _changed_by_methods(self, chain: ast.If, loop: ast.stmt) -> bool:
        """A test of the chain reads an attribute of an object of code not read whose method the
        loop calls (``scheduler.last_epoch``, which ``scheduler.step()`` advances): not the same at
        every iteration."""
        receivers = _method_receivers(loop)
        for test, _ in chain_of(chain):
            for node in ast.walk(test):
                if (
                    isinstance(node, ast.Attribute)
                    and isinstance(node.value, ast.Name)
                    and node.value.id in receivers
                ):
                    owner = self.eval(node.value)  # a name: reading it changes nothing
                    if not isinstance(owner, Obj | NNModule):
                        return True
        return False

    def _invariant(self, stmt: ast.If, assigned: frozenset[str]) -> bool:
        for test, _ in chain_of(stmt):
            for node in ast.walk(test):
                if isinstance(node, ast.Call | ast.NamedExpr | ast.Await | ast.Yield):
                    return False
                if isinstance(node, ast.Name) and node.id in assigned:
                    return False
                if isinstance(node, ast.Attribute) and {node.attr, "*"} & self._attributes_set():
                    return False
                if isinstance(node, ast.Subscript):
                    return False
        return True

    def _attributes_set(self) -> frozenset[str]:
        """Attribute names this unit's code assigns outside constructors (whose objects' flags
        may change while a loop runs)."""
        return _attributes_stored_in(self.module)

    def _exec_loop(
        self,
        stmt: ast.stmt,
        body: list[ast.stmt],
        orelse: list[ast.stmt],
        *,
        target: ast.expr | None = None,
        items: Value = UNKNOWN,
        test: ast.expr | None = None,
    ) -> None:
        frame = self.frames[-1]
        context = self._enter_loop(stmt, items)
        loop = context.loop
        forever = test is not None and _is_true(test)
        # A `for` runs its body at least once on a witness path, unless what it walks is known
        # to be empty: skipping a loop over data we cannot see would need that data to be empty,
        # which is no more shown than its being full. A `while` may not run at all.
        skips = test is not None or (isinstance(items, Seq) and items.items == () and items.least == 0)
        exits = [self.state.copy()] if skips and not forever else []
        iterations, walked = self._planned(frame, items)
        start_tick, first_tick = self.tick, None
        first: tuple[State, Progress] | None = None
        try:
            for iteration in range(iterations + 1):
                if iteration >= self._iterations(iteration, iterations, start_tick, first_tick, loop.key):
                    break
                if walked and iteration >= walked:
                    break  # no object after the list's last
                context.iteration = iteration
                if iteration:
                    context.carried = self._carried(loop.key, iteration, include_env=True)
                self.loop_stack.append((loop.key, iteration))
                try:
                    if test is not None:
                        self.eval(test)
                    if target is not None:
                        self.assign(target, nth(items, iteration))
                    if first is not None and first == (self.state, self._progress()):
                        # This iteration starts where the first did, and the first made nothing
                        # (no node, no backward, no event, no hook): it would run the same, and
                        # end, break and continue as the first did.
                        break
                    started = (self.state.copy(), self._progress())
                    self.exec_block(body)
                finally:
                    self.loop_stack.pop()
                if iteration == 0 and started[1] == self._progress():
                    first = started
                self.state = join_all([self.state, *context.continues], self.twin)
                context.continues.clear()
                if not forever and (not walked or iteration == walked - 1):
                    exits.append(self.state.copy())  # a list of objects known ends after its last
                first_tick = self.tick if iteration == 0 else first_tick
                if self.state.dead or (iteration == 0 and self._forward_only_deep(stmt, started)):
                    break
        finally:
            frame.loops.pop()
        if not exits and not context.breaks:
            # `while True:` that never breaks: nothing runs after it, but what the objects hold
            # stays (a generator's caller goes on with them).
            self.state.dead = True
            return
        normal = join_all(exits, self.twin)
        if orelse and not normal.dead:
            self.state = normal
            self.exec_block(orelse)
            normal = self.state
        self.state = join_all([normal, *context.breaks], self.twin)

    def _planned(self, frame: Frame, items: Value) -> tuple[int, int]:
        """How many times a loop's body runs (twice; once where loops nest deep), and how many
        objects a list it walks holds, each its own iteration (:func:`_objects_walked`)."""
        unrolled = sum(1 for ctx in frame.loops if ctx.loop.node is not None)
        if unrolled > MAX_UNROLLED_LOOPS:
            return 1, 0
        walked = _objects_walked(items)
        return max(2, walked), walked

    def _enter_loop(self, stmt: ast.stmt, items: Value) -> LoopContext:
        """A new loop of the current frame, running from now on."""
        frame = self.frames[-1]
        loop = Loop(self._new_key(), stmt, frame=frame.serial, func=func_node(frame.func))
        # A collection of tensors (``for loss in losses``), each of which an iteration may backward;
        # not the batches an object's own iterator makes, one per step.
        iterator = isinstance(items, Seq) and items.kind == ITERATOR
        over = not iterator and any(t.grad for t in tensors_in(element(items)))
        entry: dict[Holder, Value] = dict(self.state.env.items())
        entry.update(self.state.heap.items())
        context = LoopContext(loop, entry=entry, over_tensors=over, first_node=len(self.nodes))
        context.counter = _counter(stmt, items)
        self.loops[loop.key] = context
        frame.loops.append(context)
        return context

    def _forward_only_deep(self, stmt: ast.stmt, started: tuple[State, Progress]) -> bool:
        """The first iteration of a loop nested in at least ``MAX_NESTED_REPEATS`` others (across the
        calls that run it: an epoch's loop, a batch's, then a model's loop over its layers) only
        computed forward into local names: no backward, no event, no hook, nothing stored on an
        object, in a container or freed; each name it changed holds a tensor (or what code not
        followed made of one), a module, a number (``h = block(h)``), or a list of tensors and
        numbers that hold no graph (``samples.append(decoder(z).data)``). A second iteration would
        run the same code on what the first made, for a graph one link longer; the loops around it
        still run twice. A loop whose own body calls a backward by name runs twice all the same
        (``if prev is not None: prev.backward()`` backwards from the second iteration on)."""
        if sum(len(frame.loops) for frame in self.frames) <= MAX_NESTED_REPEATS or _calls_backward(stmt):
            return False
        before, progress = started
        now = self.state
        if self._progress()[1:] != progress[1:] or now.heap != before.heap or now.freed != before.freed:
            return False
        return all(
            isinstance(value, Tensor | Opaque | NNModule | Number | Const | Unknown)
            or _graph_free_list(value)
            for name, value in now.env.items()
            if before.env.get(name) is not value
        )

    def _progress(self) -> Progress:
        """What the interpreter made so far outside the state: graph nodes, backwards, events, hooks."""
        return (len(self.nodes), self.tick, len(self.events), len(self.forward_hooks))

    def _iterations(
        self, iteration: int, planned: int, start_tick: int, first_tick: int | None, key: int
    ) -> int:
        """Two runs of a body find what one iteration leaves for the next; a third is needed when
        the first did no backward at all (``if prev is not None: ... backward()``), or when the
        second freed a graph the first made and something still holds it for the next (a target
        network's soft update outside ``no_grad``: the first backward runs before any update)."""
        if planned < 2 or first_tick is None or iteration < planned:
            return planned  # (asked before each iteration: only the last planned one decides)
        if first_tick <= start_tick or self._kept_for_a_third(key):
            return planned + 1
        return planned

    def _kept_for_a_third(self, key: int) -> bool:
        """A node made on the loop's first iteration, freed on its second, still carried by a
        module's parameters (:attr:`NNModule.carries`) into the next."""
        held = frozenset().union(
            *(
                v.carries
                for v in [*self.state.env.values(), *self.state.heap.values()]
                if isinstance(v, NNModule)
            )
        )
        return any(
            (key, 0) in self.nodes[node_id].loops and (key, 1) in free.loops
            for node_id, free in self.state.freed.items()
            if node_id in held
        )

    def _carried(self, key: int, iteration: int, include_env: bool) -> dict[Holder, Value]:
        """Names and places whose values at the top of ``iteration`` hold nodes made in the iteration
        before."""
        start = self.loops[key].first_node
        previous = {n.id for n in self.nodes[start:] if (key, iteration - 1) in n.loops}
        carried: dict[Holder, Value] = {}
        if not previous:  # the iteration before made no node: nothing can hold one
            return carried
        if include_env:
            for name, value in self.state.env.items():
                if nodes_of(value) & previous:
                    carried[name] = value
        for place, value in self.state.heap.items():
            if nodes_of(value) & previous:
                carried[place] = value
        return carried


_BACKWARD_IN: WeakKeyDictionary[ast.stmt, bool] = WeakKeyDictionary()


def _calls_backward(loop: ast.stmt) -> bool:
    """The loop's own text calls a backward by name (worked out once per loop)."""
    known = _BACKWARD_IN.get(loop)
    if known is None:
        known = _BACKWARD_IN[loop] = bool(called_names(loop) & BACKWARD_NAMES)
    return known


def _ifs_in(body: list[ast.stmt]) -> list[ast.If]:
    """The ``if`` chains of a loop's body (not those nested in definitions, nor the elifs of one)."""
    found: list[ast.If] = []
    pending = list(body)
    while pending:
        stmt = pending.pop(0)
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        if isinstance(stmt, ast.If):
            found.append(stmt)
            for _, block in chain_of(stmt):
                pending.extend(block)
            pending.extend(chain_else(stmt))
            continue
        for field_name in ("body", "orelse", "finalbody", "handlers"):
            pending.extend(getattr(stmt, field_name, []) or [])
        if isinstance(stmt, ast.ExceptHandler):
            pending.extend(stmt.body)
    return found


_ASSIGNED: WeakKeyDictionary[ast.AST, frozenset[str]] = WeakKeyDictionary()


_RECEIVERS: WeakKeyDictionary[ast.AST, frozenset[str]] = WeakKeyDictionary()


def _method_receivers(loop: ast.AST) -> frozenset[str]:
    """Names a method is called on in ``loop`` (``scheduler`` of ``scheduler.step()``)."""
    found = _RECEIVERS.get(loop)
    if found is None:
        found = _RECEIVERS[loop] = frozenset(
            node.func.value.id
            for node in ast.walk(loop)
            if isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name)
        )
    return found


def _assigned_in(node: ast.AST) -> frozenset[str]:
    """Names bound anywhere in ``node`` (assignments, loop targets, with-as, imports, definitions),
    worked out once per node (a loop is entered again at every call of its function)."""
    found = _ASSIGNED.get(node)
    if found is None:
        found = _ASSIGNED[node] = _names_assigned(node)
    return found


def _names_assigned(node: ast.AST) -> frozenset[str]:
    names: set[str] = set()
    for child in ast.walk(node):
        if isinstance(child, ast.Name) and isinstance(child.ctx, ast.Store | ast.Del):
            names.add(child.id)
        elif isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(child.name)
        elif isinstance(child, ast.alias):
            names.add((child.asname or child.name).split(".")[0])
        elif isinstance(child, ast.Global | ast.Nonlocal):
            names.update(child.names)
    return frozenset(names)


_STORED: WeakKeyDictionary[ast.AST, frozenset[str]] = WeakKeyDictionary()


def _attributes_stored_in(tree: ast.Module) -> frozenset[str]:
    """``_attributes_stored`` of a module, walked once per top-level statement: a unit's module is
    a new tree over the statements other units share (a walk per unit cost a tenth of a check)."""
    return frozenset().union(*(_attributes_stored_once(stmt) for stmt in tree.body))


def _attributes_stored_once(tree: ast.AST) -> frozenset[str]:
    found = _STORED.get(tree)
    if found is None:
        found = _STORED[tree] = frozenset(_attributes_stored(tree))
    return found


def _attributes_stored(node: ast.AST) -> set[str]:
    """Attribute names assigned in ``node`` outside ``__init__`` methods (``*``: by ``setattr``)."""
    found: set[str] = set()
    pending = [node]
    while pending:
        child = pending.pop()
        if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef) and child.name == "__init__":
            continue
        if isinstance(child, ast.Attribute) and isinstance(child.ctx, ast.Store | ast.Del):
            found.add(child.attr)
        elif isinstance(child, ast.Call) and isinstance(child.func, ast.Name) and child.func.id == "setattr":
            found.add("*")
        pending.extend(ast.iter_child_nodes(child))
    return found


_TESTS: WeakKeyDictionary[ast.If, tuple[str, ...]] = WeakKeyDictionary()


def _consistent(choice: dict[int, int], chains: dict[int, ast.If]) -> bool:
    """No two chains of ``choice`` say the same thing is equal to two constants, or equal to one
    and not to it (``if opt.task == "semantic": ...`` and ``if opt.task == "depth": ...`` never
    both run)."""
    equal: dict[str, object] = {}
    unequal: set[tuple[str, object]] = set()
    for key, chosen in choice.items():
        chain = chain_of(chains[key])
        facts: list[tuple[ast.expr, bool]] = []
        if chosen != SOME_BRANCH:  # the tests before the branch taken failed, its own held
            facts = [(test, index == chosen) for index, (test, _) in enumerate(chain[: chosen + 1])]
        for test, holds in facts:
            found = _equality(test)
            if found is None:
                continue
            subject, constant, equals = found
            if equals is holds:
                if subject in equal and equal[subject] != constant:
                    return False
                equal[subject] = constant
            else:
                unequal.add((subject, constant))
    return not any(equal.get(subject, _NOTHING) == constant for subject, constant in unequal)


_NOTHING = object()


def _equality(test: ast.expr) -> tuple[str, object, bool] | None:
    """``x == "a"`` (or ``!=``, or the constant first): what is compared (its tree's dump), the
    constant, and whether the test holds when they are equal."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return None
    if not isinstance(test.ops[0], ast.Eq | ast.NotEq):
        return None
    left, right = test.left, test.comparators[0]
    if isinstance(left, ast.Constant) and not isinstance(right, ast.Constant):
        left, right = right, left
    if not isinstance(right, ast.Constant) or isinstance(left, ast.Constant):
        return None
    return ast.dump(left), right.value, isinstance(test.ops[0], ast.Eq)


def _tests_of(chain: ast.If) -> tuple[str, ...]:
    """The tests of an ``if`` chain, each as its tree's dump (worked out once per chain)."""
    found = _TESTS.get(chain)
    if found is None:
        found = _TESTS[chain] = tuple(ast.dump(test) for test, _ in chain_of(chain))
    return found


def _counter(stmt: ast.stmt, items: Value) -> str | None:
    """The name a ``for`` over a range counts with, where nothing in its body binds it again."""
    if not (isinstance(stmt, ast.For) and isinstance(stmt.target, ast.Name)):
        return None
    if not isinstance(items, Seq) or items.kind != "range":
        return None
    name = stmt.target.id
    if any(name in _assigned_in(part) for part in (*stmt.body, *stmt.orelse)):
        return None
    return name


def _is_true(test: ast.expr) -> bool:
    return isinstance(test, ast.Constant) and bool(test.value)


def _objects_walked(items: Value) -> int:
    """How many objects of the checked code's classes a ``for`` walks, each its own, where it walks
    a list of nothing else (``for cell in [a, b, c]: cell.reset()``, ``for i, cell in
    enumerate(self.cells)``, a container's modules walked as a list): each gets an iteration, so
    that what the body does to the third is done too (0: not such a walk)."""
    if not isinstance(items, Seq) or items.kind not in ("list", "tuple") or items.items is None:
        return 0
    objects = [_objects_in(item) for item in items.items]
    if len(objects) > MAX_ITEMS or not all(objects) or len(set(objects)) != len(objects):
        return 0
    return len(objects)


def _objects_in(item: Value) -> frozenset[int]:
    """The objects an item of a walk is, or holds as a tuple's items (``(i, cell)``)."""
    parts = item.items or () if isinstance(item, Seq) and item.kind == "tuple" else (item,)
    return frozenset(part.oid for part in parts if isinstance(part, Obj))


def _graph_free_list(value: Value) -> bool:
    """A list or tuple whose items are all tensors, numbers, constants or unknown values, holding
    no graph and reaching none through unknown code: nothing a later iteration could backward
    through."""
    if not isinstance(value, Seq):
        return False
    items = (value.item, *(value.items or ()))
    return all(isinstance(item, Tensor | Number | Const | Unknown) for item in items) and not maybe_of(value)
