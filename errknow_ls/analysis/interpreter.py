"""An abstract interpreter over Python's AST that follows autograd graphs through a program.

Tensors are sets of graph nodes (one per creating site and loop iteration). A backward frees the
nodes it reaches unless it retains the graph; a later backward that reaches a freed node that
saved tensors is what torch rejects with "Trying to backward through the graph a second time".
Loop bodies run twice, so a node made in one iteration and reached in the next is seen; branches
run separately and join; calls into functions and methods of the same module are followed.
"""

from __future__ import annotations

import ast
import itertools
import threading
import weakref
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace

from errknow_ls.analysis import torch_api as api
from errknow_ls.analysis.events import Loop, Observation, RetainSite, SavedRead, SecondPass
from errknow_ls.analysis.modules import PARSED, FolderState, ModuleSource, digest, says_the_same
from errknow_ls.analysis.names import constant_assignments, raises_name_error
from errknow_ls.analysis.state import Free, Retain, State, join_all
from errknow_ls.analysis.values import (
    KEYED_CONTAINERS,
    MAX_ITEMS,
    NUMBER,
    UNKNOWN,
    UNSEEN,
    Choice,
    Class,
    ClassInfo,
    Const,
    Func,
    GradFn,
    GraphNode,
    Instance,
    Kwargs,
    ModuleRef,
    NNModule,
    Number,
    Obj,
    Opaque,
    Partial,
    Ref,
    Seq,
    Tensor,
    Value,
    element,
    has_grad,
    join,
    maybe_of,
    nodes_of,
    nth,
    tensors_in,
    touches_parameters,
)

FROZEN = "__errknow_frozen__"
"""Heap key of a local module's ``requires_grad_(False)``."""
MAX_CALL_DEPTH = 6
MAX_UNROLLED_LOOPS = 3
STEP_BUDGET = 8_000
"""Statements one entry point may execute (more when its unit's budget is larger); what was found
before the budget runs out stands, and the stop is reported."""
UNIT_BUDGET = 8_000
"""Statements all entry points of one unit (the module body, a function, a class) may execute
together, at most (see ``checker.unit_budget``). Eleven times what the most demanding of the
labelled programs needs (716); 3 of the 283 units of the 7,948-file benchmark corpus reach it,
where 25,000 let them take 44% of its interpretation time."""
FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef
MODULE_DEFINITIONS = (
    ast.Import,
    ast.ImportFrom,
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
    ast.Assign,
    ast.AnnAssign,
)
"""What is read of another module of the project: what it defines, not what it runs."""
MAX_CHOICES = 6
"""Runs of one loop, one per way its loop-invariant ``if`` chains can go, at the most."""
MAX_MODULES = 64
"""Modules of the project one unit may read (each read once)."""


@dataclass(frozen=True, slots=True)
class _ImportEffects:
    """The interpreter before it read a module: what the read changed is measured from here."""

    serial: int
    total_steps: int
    steps: int
    modules: int
    read_again: int
    looked: int
    read: int
    classes: dict[str, ClassInfo]
    forward_calls: set[ast.AST]
    module_calls: set[ast.AST]
    others: tuple[object, ...]


@dataclass(frozen=True, slots=True)
class _ImportRun:
    """What reading a module did: the modules read (it first, then those it imported), each with
    the hash of its text and its names; the steps it took; the classes and forward calls it made."""

    modules: tuple[tuple[str, str, dict[str, Value], ast.Module], ...]
    earlier: tuple[tuple[str, str, dict[str, Value]], ...]
    """Modules read before it that it imports, as they were: a replay needs them so."""
    looked_in: tuple[tuple[str, str], ...]
    """The folders where its imports found nothing, and what each held: a replay needs them so."""
    read: tuple[tuple[str, str], ...]
    """What it added to the check's reads (modules and folders), in order."""
    steps: int
    classes: tuple[tuple[str, ClassInfo], ...]
    forward_calls: frozenset[ast.AST]
    module_calls: frozenset[ast.AST]


class _ImportMemo:
    """Module reads by the modules they came from (while those are in use: one check's), by
    module key and text hash."""

    def __init__(self) -> None:
        self._by_source: weakref.WeakKeyDictionary[ModuleSource, dict[tuple[object, ...], _ImportRun]] = (
            weakref.WeakKeyDictionary()
        )
        self._lock = threading.Lock()

    def get(self, source: ModuleSource | None) -> dict[tuple[object, ...], _ImportRun] | None:
        if source is None:
            return None
        with self._lock:
            try:
                return self._by_source.setdefault(source, {})
            except TypeError:  # a source that cannot be referred to weakly is not remembered
                return None


_IMPORT_MEMO = _ImportMemo()


class BudgetExceeded(Exception):
    """An entry point took too many steps; what was found before stands."""


@dataclass(slots=True)
class Frame:
    serial: int
    func: FunctionNode | ast.Lambda | None
    call_site: ast.Call | None
    start: int
    returns: list[tuple[Value, State]] = field(default_factory=list)
    loops: list[LoopContext] = field(default_factory=list)
    closure: dict[str, Value] | None = None
    stmt: ast.stmt | None = None
    yields: list[Value] = field(default_factory=list)
    bound: int | None = None
    """The object a method runs on (its ``oid``)."""
    module: str | None = None
    """The other module of the project whose code this frame runs (None: the checked text)."""


@dataclass(slots=True)
class LoopContext:
    loop: Loop
    iteration: int = 0
    breaks: list[State] = field(default_factory=list)
    continues: list[State] = field(default_factory=list)
    carried: dict[str, Value] = field(default_factory=dict)
    entry: dict[str, Value] = field(default_factory=dict)
    over_tensors: bool = False
    """The loop walks a collection of tensors (``for loss in losses``)."""
    first_node: int = 0
    """How many graph nodes existed when the loop started: only later ones can be its own."""


class Interpreter:
    """Runs entry points (the module body, functions, methods) and collects events."""

    def __init__(  # noqa: PLR0915 (one assignment per attribute, each documented)
        self, module: ast.Module, budget: int = UNIT_BUDGET, modules: ModuleSource | None = None
    ) -> None:
        self.module = module
        self.budget = budget
        self.modules = modules
        """Where the project's own modules are read from (None: imports stay unknown)."""
        self.namespaces: dict[str, dict[str, Value]] = {}
        """The project's modules read so far, by key: their names."""
        self.trees: dict[str, ast.Module] = {}
        """The project's modules read so far, by key: their code."""
        self.read: dict[str, str] = {}
        """Each module read, by key: the hash of the text read (what the outcome depends on)."""
        self.nodes: list[GraphNode] = []
        self.events: list[Observation] = []
        self.retain_sites: dict[int, RetainSite] = {}
        self.classes: dict[str, ClassInfo] = {}
        self.globals: dict[str, Value] = {}
        self.state = State()
        self.frames: list[Frame] = []
        self.loop_stack: list[tuple[int, int]] = []
        self.loops: dict[int, LoopContext] = {}
        self.no_grad = False
        self.tick = 0
        self.step_tick = -1
        """``tick`` when an optimizer last stepped (or parameters were last updated in place)."""
        self.steps = 0
        self.total_steps = 0
        self.stopped: str | None = None
        """What stopped the last entry point before its end (a budget, Python's stack), if anything."""
        self._serial = itertools.count(1)
        self._closures: dict[int, dict[str, Value]] = {}
        self._current_stmt: ast.stmt | None = None
        self._guarded: frozenset[str] = frozenset()
        self._entry: dict[str, Value] = {}
        self._spelled: dict[str, str] = {}
        self.forward_hooks: list[Value] = []
        """Functions registered with ``register_forward_hook``; every module call runs them."""
        self.forward_calls: set[ast.AST] = set()
        """Calls resolved as a forward computation: a torch op, a tensor method, a module's forward
        (what a fix may re-run; see rules/fix_safety.py)."""
        self.module_calls: set[ast.AST] = set()
        """Calls of a library module (``nn.LSTMCell``): what they give back may be a tensor or a
        tuple of them, which the analysis does not tell apart."""
        self.called_functions: dict[ast.AST, set[ast.FunctionDef | ast.AsyncFunctionDef]] = {}
        """The functions and methods of the checked code each call site ran."""
        self._in_hook = False
        self._raised = False
        self._raised_by: set[int] = set()
        """The frees (by id) a reported second pass went through: a later pass through the same one
        is the same bug (a grad of the failed grad's result)."""
        self._conditional = 0
        self._module_running = False
        """The module body runs from its top: its names are bound as far as the run got."""
        """Depth of expression parts that may not be evaluated (see ``_maybe_evaluated``)."""
        self._forced: dict[int, int] = {}
        """``if`` chains (by id) whose branch the current run of a loop has chosen."""
        self._set_attributes: frozenset[str] | None = None
        self._read_again: list[str] = []
        """Modules an import found already read (see ``_remember``)."""
        self._looked_in: list[str] = []
        """The folders where imports found nothing, in order, once per miss (see ``_remember``)."""
        self._dead_reads = 0
        """Module reads that a NameError ended (see ``_remember``)."""
        self._invariant_memo: dict[ast.stmt, list[ast.If]] = {}
        """Each loop's loop-invariant ``if`` chains (see ``_invariant_chains``)."""
        self.stepping: set[int] = set()
        """Loops (by key) in which an optimizer stepped or parameters were updated in place."""

    # ----------------------------------------------------------------- entry points

    def run_module(self, relevant: bool) -> None:
        """Run the module body as a script (only definitions when nothing in it can backward)."""
        self.state = State()
        frame = Frame(next(self._serial), None, None, self.tick)
        with self._frame(frame):
            if relevant:
                self._module_running = True
                try:
                    self._run_guarded(lambda: self.exec_block(self.module.body))
                finally:
                    self._module_running = False
            else:
                constants = {id(stmt) for stmt in constant_assignments(self.module)}
                for stmt in self.module.body:
                    definition = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
                    if isinstance(stmt, ast.Import | ast.ImportFrom | definition) or id(stmt) in constants:
                        self.exec_stmt(stmt)
        self.globals = dict(self.state.env)

    def forget_module_graphs(self) -> None:
        """Before running functions on their own: a module-level name that holds a graph holds it
        at some point of the module's run, and when an unknown caller calls the function is not
        known; such names are unknown (reached through the module's own calls, they are known)."""
        self.globals = {
            name: Opaque(maybe_of(value)) if nodes_of(value) else value
            for name, value in self.globals.items()
        }

    def run_function(self, func: FunctionNode) -> None:
        """Run a module-level function with unknown arguments."""
        self.state = State()
        self._run_guarded(lambda: self.call_function(Func(func), [], {}, None, unknown_args=True))

    def run_method(self, info: ClassInfo, method: FunctionNode) -> None:
        """Build an instance with unknown arguments, then call ``method`` once: what one call does
        (two backwards in one step) is proven whoever calls it. Only a framework known to call a
        method step after step (Lightning's ``training_step``) has it run as its steps."""
        if info.lightning and method.name == api.LIGHTNING_STEP:
            self._run_steps(info, method)
            return
        self.state = State()

        def body() -> None:
            obj = self.instantiate(info, [], {}, None, unknown_args=True)
            home = info.homes.get(method.name)
            self.call_function(Func(method, obj, module=home), [], {}, None, unknown_args=True)

        self._run_guarded(body)

    def _run_steps(self, info: ClassInfo, method: FunctionNode) -> None:
        """Build an instance, then call ``method`` as the framework does, step after step."""
        self.state = State()

        def body() -> None:
            obj = self.instantiate(info, [], {}, None, unknown_args=True)
            loop = Loop(self._new_key(), None, method=method)
            context = LoopContext(loop, first_node=len(self.nodes))
            start_tick = self.tick
            context.entry = {f"self.{attr}#{oid}": v for (oid, attr), v in self.state.heap.items()}
            context.entry["self"] = obj
            self.loops[loop.key] = context
            self.stepping.add(loop.key)  # the framework steps the optimizers after each call
            iteration, first_tick = 0, None
            while iteration < self._iterations(2, start_tick, first_tick):
                context.iteration = iteration
                if iteration:
                    context.carried = self._carried(loop.key, iteration, include_env=False)
                self.loop_stack.append((loop.key, iteration))
                try:
                    home = info.homes.get(method.name)
                    self.call_function(Func(method, obj, module=home), [], {}, None, unknown_args=True)
                finally:
                    self.loop_stack.pop()
                first_tick = self.tick if iteration == 0 else first_tick
                iteration += 1

        self._run_guarded(body)

    def _run_guarded(self, body: object) -> None:
        self.steps = 0
        self.forward_hooks = []
        self.stopped = None
        try:
            body()  # type: ignore[operator]
        except BudgetExceeded as exc:
            self.stopped = str(exc)
        except RecursionError:
            self.stopped = "calls nested deeper than Python's stack allows"
        finally:
            self.loop_stack.clear()
            self.no_grad = False

    @contextmanager
    def _maybe_evaluated(self, maybe: bool = True) -> Iterator[None]:
        """Evaluate a part of an expression that runs only on some paths (a branch of ``a if c else
        b``, the operands after the first of ``or``): a NameError there does not end the path."""
        self._conditional += maybe
        try:
            yield
        finally:
            self._conditional -= maybe

    @contextmanager
    def _frame(self, frame: Frame) -> Iterator[Frame]:
        self.frames.append(frame)
        try:
            yield frame
        finally:
            self.frames.pop()

    # ----------------------------------------------------------------- statements

    def exec_block(self, stmts: Sequence[ast.stmt]) -> None:
        for stmt in stmts:
            if self.state.dead:
                return
            self.exec_stmt(stmt)

    def exec_stmt(self, stmt: ast.stmt) -> None:  # noqa: PLR0915
        self.steps += 1
        self.total_steps += 1
        if self.steps > max(STEP_BUDGET, self.budget) or self.total_steps > self.budget:
            limit = self.budget if self.total_steps > self.budget else max(STEP_BUDGET, self.budget)
            raise BudgetExceeded(f"stopped after {limit:,} interpreted statements, the budget")
        self._current_stmt = stmt
        if self.frames:
            self.frames[-1].stmt = stmt
        match stmt:
            case ast.Expr(value=value):
                self.eval(value)
            case ast.Assign(targets=targets, value=value):
                result = self.eval(value)
                for target in targets:
                    self.assign(target, result)
            case ast.AnnAssign(target=target, value=value):
                if value is not None:  # a bare annotation binds nothing (and is not evaluated
                    self.assign(target, self.eval(value))  # in a function)
            case ast.AugAssign(target=target, op=op, value=value):
                current = self.eval(target)
                if self.no_grad and isinstance(current, Tensor) and current.grad and not current.nodes:
                    self._note_step()  # `w -= lr * w.grad` under no_grad: a hand-written optimizer
                self.assign(target, self.binop(current, self.eval(value), op, stmt))
            case ast.If(test=test, body=body, orelse=orelse):
                chosen = self._forced.get(id(stmt))
                if chosen is None:
                    self.exec_if(test, body, orelse)
                else:
                    self.exec_chosen(stmt, chosen)
            case (
                ast.For(target=target, iter=iterable, body=body, orelse=orelse)
                | ast.AsyncFor(target=target, iter=iterable, body=body, orelse=orelse)
            ):
                self.exec_loop(stmt, body, orelse, target=target, items=self.eval(iterable))
                self._note_freezing_loop(target, iterable, body)
            case ast.While(test=test, body=body, orelse=orelse):
                self.exec_loop(stmt, body, orelse, test=test)
            case ast.With(items=items, body=body) | ast.AsyncWith(items=items, body=body):
                self.exec_with(items, body)
            case (
                ast.Try(body=body, handlers=handlers, orelse=orelse, finalbody=final)
                | ast.TryStar(body=body, handlers=handlers, orelse=orelse, finalbody=final)
            ):
                self.exec_try(body, handlers, orelse, final)
            case ast.Return(value=value):
                result = self.eval(value) if value is not None else Const(None)
                if not self.state.dead:  # evaluating the value may have raised
                    self.frames[-1].returns.append((result, self.state.copy()))
                self.state.dead = True
            case ast.Break():
                self._loop_context().breaks.append(self.state.copy()) if self._in_loop() else None
                self.state.dead = True
            case ast.Continue():
                self._loop_context().continues.append(self.state.copy()) if self._in_loop() else None
                self.state.dead = True
            case ast.Raise():
                self.state.dead = True
            case ast.FunctionDef() | ast.AsyncFunctionDef():
                closure = self.state.env if self.frames and self.frames[-1].func is not None else None
                scope = id(closure) if closure is not None else None
                self.state.env[stmt.name] = Func(stmt, None, scope, self._home())
                if closure is not None:
                    self._closures[id(closure)] = closure
            case ast.ClassDef():
                self.define_class(stmt)
            case ast.Import(names=names):
                for alias in names:
                    bound = alias.asname or alias.name.split(".")[0]
                    name = alias.name if alias.asname else bound
                    self.state.env[bound] = self._import(name, 0) or Ref(name)
            case ast.ImportFrom(module=module, names=names, level=level):
                self._import_from(module, names, level)
            case ast.Delete(targets=targets):
                for target in targets:
                    if isinstance(target, ast.Name):
                        self.state.env.pop(target.id, None)
                    elif isinstance(target, ast.Subscript) and isinstance(target.slice, ast.Slice):
                        self.assign_place(target.value, Seq(UNKNOWN, "list", ()))  # del xs[:]
            case ast.Assert(test=test, msg=msg):
                self.eval(test)
                if msg is not None:
                    with self._maybe_evaluated():  # the message only when the test fails
                        self.eval(msg)
            case ast.Match(subject=subject, cases=cases):
                self.eval(subject)
                self.exec_branches([case.body for case in cases], fallthrough=True)
            case _:
                for child in ast.iter_child_nodes(stmt):
                    if isinstance(child, ast.expr):
                        self.eval(child)

    # ----------------------------------------------------------------- the project's modules

    def _home(self) -> str | None:
        """The other module whose code runs now (None: the checked text)."""
        return self.frames[-1].module if self.frames else None

    def _import_from(self, module: str | None, names: list[ast.alias], level: int) -> None:
        loaded = self._import(module or "", level) if module or level else None
        namespace = self.namespaces.get(loaded.key, {}) if loaded is not None else {}
        for alias in names:
            if alias.name == "*":
                self.state.env.update((k, v) for k, v in namespace.items() if not k.startswith("_"))
                continue
            value = namespace.get(alias.name)
            if value is None and loaded is not None:  # `from pkg import module`
                value = self._import(f"{module}.{alias.name}" if module else alias.name, level)
            self.state.env[alias.asname or alias.name] = value or Ref(f"{module or ''}.{alias.name}")

    def _import(self, name: str, level: int) -> ModuleRef | None:
        """Read the project's module that ``import`` would load: its imports, definitions and
        module-level assignments (under no_grad: nothing of it is a graph of the checked run)."""
        if self.modules is None or len(self.namespaces) >= MAX_MODULES:
            return None
        found = self.modules.find(self._home(), name, level)
        if found is None:  # a module made later in one of these folders may be what it finds
            for folder, names in self.modules.looked_in(self._home(), name, level):
                self._looked_at(folder, self.modules.folder_state(folder, names))
            return None
        if found.key in self.namespaces:
            self._read_again.append(found.key)
            return ModuleRef(found.key)
        said = digest(found.text)
        if self._replay(found.key, said):
            return ModuleRef(found.key)
        tree = PARSED.parse(found)
        if tree is None:
            return None
        before = self._import_effects()
        self.read[found.key] = said
        self.trees[found.key] = tree
        namespace = self.namespaces[found.key] = {}  # before running it: an import cycle ends here
        saved, saved_no_grad, saved_stmt = self.state, self.no_grad, self._current_stmt
        self.state, self.no_grad = State(), True
        try:
            with self._frame(Frame(next(self._serial), None, None, self.tick, module=found.key)):
                for stmt in tree.body:
                    if isinstance(stmt, MODULE_DEFINITIONS):
                        self.exec_stmt(stmt)
            namespace.update(self.state.env)
            self._dead_reads += self.state.dead  # a NameError ended it: what it did is not replayed
        finally:
            self.state, self.no_grad, self._current_stmt = saved, saved_no_grad, saved_stmt
        self._remember(found.key, said, before)
        return ModuleRef(found.key)

    # A module's read is the same in every unit of a check that reads it first (the same text,
    # the same modules found for its imports): where it made nothing but its names, classes and
    # steps, the next unit replays it. Performance only: a replay leaves the interpreter as the
    # run would have (the same steps, serial numbers, names, classes and forward calls).

    def _serial_now(self) -> int:
        now = next(self._serial)
        self._serial = itertools.count(now)
        return now

    def _looked_at(self, folder: str, held: FolderState) -> None:
        """An import found nothing in ``folder``, which held this: the check stands while it holds
        the same."""
        known = self.read.get(folder)
        self.read[folder] = (held if known is None else held.joined(FolderState.of(known))).said()
        self._looked_in.append(folder)

    def _import_effects(self) -> _ImportEffects:
        return _ImportEffects(
            self._serial_now(),
            self.total_steps,
            self.steps,
            len(self.namespaces),
            len(self._read_again),
            len(self._looked_in),
            len(self.read),
            dict(self.classes),
            set(self.forward_calls),
            set(self.module_calls),
            self._other_effects(),
        )

    def _other_effects(self) -> tuple[object, ...]:
        """What reading a module changes only when it runs code (a call, a loop, a backward)."""
        return (
            len(self.nodes),
            len(self.events),
            len(self.retain_sites),
            len(self.loops),
            self.tick,
            self.step_tick,
            len(self.stepping),
            len(self.forward_hooks),
            len(self._closures),
            len(self.called_functions),
            len(self._raised_by),
            self._raised,
            id(self.globals),
            self._dead_reads,
            self._conditional,
            self._module_running,
        )

    def _remember(self, key: str, said: str, before: _ImportEffects) -> None:
        memo = _IMPORT_MEMO.get(self.modules)
        if memo is None:
            return
        added = list(self.namespaces)[before.modules :]
        serials = self._serial_now() - before.serial
        steps = self.total_steps - before.total_steps
        classes = tuple((n, c) for n, c in self.classes.items() if before.classes.get(n) is not c)
        if (
            serials != len(added)  # only the modules' own frames: no call, object or loop
            or self.steps - before.steps != steps
            or len(self.namespaces) >= MAX_MODULES
            or self._other_effects() != before.others
            or any(k not in self.read or k not in self.trees for k in added)
            or any(n in before.classes for n, _ in classes)  # it replaced no class known before
        ):
            return
        earlier = dict.fromkeys(k for k in self._read_again[before.read_again :] if k not in added)
        if any(k not in self.read for k in earlier):
            return
        memo[self._memo_key(key, said)] = _ImportRun(
            tuple((k, self.read[k], dict(self.namespaces[k]), self.trees[k]) for k in added),
            tuple((k, self.read[k], dict(self.namespaces[k])) for k in earlier),
            tuple((k, self.read[k]) for k in dict.fromkeys(self._looked_in[before.looked :])),
            tuple(self.read.items())[before.read :],
            steps,
            classes,
            frozenset(self.forward_calls - before.forward_calls),
            frozenset(self.module_calls - before.module_calls),
        )

    def _memo_key(self, key: str, said: str) -> tuple[object, ...]:
        """What a read depends on besides the texts: whether a NameError in it may end a path."""
        return (key, said, bool(self._conditional), self._module_running)

    def _replay(self, key: str, said: str) -> bool:
        """Replay the remembered read of the module at ``key`` (whose text hashes to ``said``),
        where it would run the same now; False when it must run."""
        memo = _IMPORT_MEMO.get(self.modules)
        run = memo.get(self._memo_key(key, said)) if memo is not None else None
        if run is None or self.modules is None:
            return False
        if len(self.namespaces) + len(run.modules) >= MAX_MODULES:
            return False
        if any(name in self.classes for name, _ in run.classes):
            return False
        if (
            self.steps + run.steps > max(STEP_BUDGET, self.budget)
            or self.total_steps + run.steps > self.budget
        ):
            return False  # the budget runs out inside: running it stops where it would
        for other, other_said, namespace in run.earlier:  # it finds them read, with these names
            if self.read.get(other) != other_said or self.namespaces.get(other) != namespace:
                return False
        if not all(says_the_same(self.modules, folder, held) for folder, held in run.looked_in):
            return False
        for other, other_said, _, _ in run.modules:
            if other in self.namespaces:
                return False
            if other != key:
                text = self.modules.text(other)
                if text is None or digest(text) != other_said:
                    return False
        for key_read, said_then in run.read:
            self.read.setdefault(key_read, said_then)
        for other, _, namespace, tree in run.modules:
            self.trees[other] = tree
            self.namespaces[other] = dict(namespace)
        for folder, held in run.looked_in:
            self._looked_at(folder, FolderState.of(held))
        self._serial = itertools.count(self._serial_now() + len(run.modules))
        self.steps += run.steps
        self.total_steps += run.steps
        for name, info in run.classes:
            self.classes[name] = info
        self.forward_calls |= run.forward_calls
        self.module_calls |= run.module_calls
        return True

    def exec_if(self, test: ast.expr, body: list[ast.stmt], orelse: list[ast.stmt]) -> None:
        chain = _elif_chain(test, body, orelse)
        if chain is not None and self._exhaustive([t for t, _ in chain]):
            # `if k % 2 == 0: ... elif k % 2 == 1: ...`: one branch always runs, none is skipped
            for chain_test, _ in chain:
                self.eval(chain_test)
            self.exec_branches([block for _, block in chain], fallthrough=False)
            return
        value = self.eval(test)
        if isinstance(value, Const) and isinstance(value.value, bool | int | type(None)):
            self.exec_block(body if value.value else orelse)
            return
        self.exec_branches([body, orelse], fallthrough=False)

    def _exhaustive(self, tests: list[ast.expr]) -> bool:
        """One of ``tests`` always holds: by their form (``_exhaustive``), or because they compare
        one name with every constant it can hold (``stage`` taken from a tuple of stage names)."""
        if _exhaustive(tests):
            return True
        tested = _tested_constants(tests)
        if tested is None:
            return False
        first = tests[0]
        assert isinstance(first, ast.Compare)  # _tested_constants saw to it
        subject = first.left if not isinstance(first.left, ast.Constant) else first.comparators[0]
        value = self.eval(subject)  # a name or attributes: reading it again changes nothing
        if isinstance(value, Const):
            return any(value.value == constant for constant in tested[1])
        return isinstance(value, Choice) and value.values <= tested[1]

    def exec_branches(self, blocks: list[list[ast.stmt]], fallthrough: bool) -> None:
        start = self.state
        outcomes = []
        for block in blocks:
            self.state = start.copy()
            self.exec_block(block)
            outcomes.append(self.state)
        if fallthrough:
            outcomes.append(start)
        self.state = join_all(outcomes, self.twin)

    def exec_chosen(self, stmt: ast.If, chosen: int) -> None:
        """An ``if``/``elif`` chain whose branch this path has chosen: the same at every iteration
        of the loop whose run chose it (its tests read nothing the loop changes)."""
        chain = _chain_of(stmt)
        for index, (test, _) in enumerate(chain[: chosen + 1]):
            truth = _truth(self.eval(test))
            if truth is (index != chosen):  # a test known to go the other way: not this path
                self.state.dead = True
                return
        if chosen < len(chain):
            self.exec_block(chain[chosen][1])
        else:
            self.exec_block(_chain_else(stmt))

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
        at every iteration, as the program does), and join the runs."""
        choices = self._invariant_choices(stmt, body) if self.frames else [{}]
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
        chains = [s for s in self._invariant_chains(loop, body) if id(s) not in self._forced]
        options: list[dict[int, int]] = [{}]
        for chain in chains:
            tests = [test for test, _ in _chain_of(chain)]
            count = len(tests) + (0 if self._exhaustive(tests) else 1)  # +1: none of them runs
            if len(options) * count <= MAX_CHOICES:
                options = [{**o, id(chain): i} for o in options for i in range(count)]
        return options

    def _invariant_chains(self, loop: ast.stmt, body: list[ast.stmt]) -> list[ast.If]:
        """The ``if`` chains without an ``else`` in the loop's body whose tests the loop leaves
        alone: found once per loop (a loop runs at every call of its function)."""
        known = self._invariant_memo.get(loop)
        if known is None:
            assigned = _assigned_in(loop)
            known = [s for s in _ifs_in(body) if not _chain_else(s) and self._invariant(s, assigned)]
            self._invariant_memo[loop] = known
        return known

    def _invariant(self, stmt: ast.If, assigned: frozenset[str]) -> bool:
        for test, _ in _chain_of(stmt):
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
        if self._set_attributes is None:
            self._set_attributes = frozenset(_attributes_stored(self.module))
        return self._set_attributes

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
        loop = Loop(self._new_key(), stmt, frame=frame.serial, func=_func_node(frame.func))
        over = any(t.grad for t in tensors_in(element(items)))
        entry = {**self.state.env, **{f"self.{attr}#{oid}": v for (oid, attr), v in self.state.heap.items()}}
        context = LoopContext(loop, entry=entry, over_tensors=over, first_node=len(self.nodes))
        self.loops[loop.key] = context
        frame.loops.append(context)
        forever = test is not None and _is_true(test)
        # A `for` runs its body at least once on a witness path, unless what it walks is known
        # to be empty: skipping a loop over data we cannot see would need that data to be empty,
        # which is no more shown than its being full. A `while` may not run at all.
        skips = test is not None or (isinstance(items, Seq) and items.items == () and items.least == 0)
        exits = [self.state.copy()] if skips and not forever else []
        unrolled = sum(1 for ctx in frame.loops if ctx.loop.node is not None)
        iterations = 2 if unrolled <= MAX_UNROLLED_LOOPS else 1
        start_tick, first_tick = self.tick, None
        try:
            for iteration in range(3):
                if iteration >= self._iterations(iterations, start_tick, first_tick):
                    break
                context.iteration = iteration
                if iteration:
                    context.carried = self._carried(loop.key, iteration, include_env=True)
                self.loop_stack.append((loop.key, iteration))
                try:
                    if test is not None:
                        self.eval(test)
                    if target is not None:
                        self.assign(target, nth(items, iteration))
                    self.exec_block(body)
                finally:
                    self.loop_stack.pop()
                self.state = join_all([self.state, *context.continues], self.twin)
                context.continues.clear()
                if not forever:
                    exits.append(self.state.copy())
                first_tick = self.tick if iteration == 0 else first_tick
                if self.state.dead:
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

    def exec_with(self, items: list[ast.withitem], body: list[ast.stmt]) -> None:
        saved = self.no_grad
        for item in items:
            value = self.eval(item.context_expr)
            qualname = _call_qualname(item.context_expr, value)
            if qualname in api.NO_GRAD_CONTEXTS or _is_grad_disabled(item.context_expr, qualname):
                self.no_grad = True
            elif qualname in api.GRAD_CONTEXTS:
                self.no_grad = False
            if item.optional_vars is not None:
                self.assign(item.optional_vars, UNKNOWN)
        try:
            self.exec_block(body)
        finally:
            self.no_grad = saved

    def exec_try(
        self,
        body: list[ast.stmt],
        handlers: list[ast.ExceptHandler],
        orelse: list[ast.stmt],
        final: list[ast.stmt],
    ) -> None:
        start = self.state.copy()
        self.exec_block(body)
        self.exec_block(orelse)
        after_body = self.state
        outcomes = [after_body]
        for handler in handlers:
            self.state = start.copy()
            if handler.name:
                self.state.env[handler.name] = UNKNOWN
            self.exec_block(handler.body)
            outcomes.append(self.state)
        self.state = join_all(outcomes, self.twin)
        if final:
            was_dead = self.state.dead
            self.state.dead = False
            self.exec_block(final)
            self.state.dead = self.state.dead or was_dead

    def define_class(self, stmt: ast.ClassDef) -> None:
        methods: dict[str, FunctionNode] = {}
        homes: dict[str, str | None] = {}
        is_module = layer = function = lightning = False
        for base in stmt.bases:
            base_value = self.eval(base)
            if isinstance(base_value, Class):
                methods.update(base_value.info.methods)
                homes.update(base_value.info.homes)
                is_module = is_module or base_value.info.is_module
                layer = layer or base_value.info.layer
                function = function or base_value.info.function
                lightning = lightning or base_value.info.lightning
            elif isinstance(base_value, Ref) and base_value.qualname in api.LIGHTNING_MODULES:
                is_module = lightning = True
            elif isinstance(base_value, Ref) and base_value.qualname.startswith(
                ("torch.nn", "pytorch_lightning", "lightning")
            ):
                is_module = True
                layer = layer or api.is_layer(base_value.qualname)
            elif isinstance(base_value, Ref) and base_value.qualname.endswith("autograd.Function"):
                function = True
        for child in stmt.body:
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                methods[child.name] = child
                homes[child.name] = self._home()
        fields = self._dataclass_fields(stmt)
        info = ClassInfo(stmt, methods, is_module, layer, function, fields, homes, lightning)
        self.classes[stmt.name] = info
        self.state.env[stmt.name] = Class(info)

    def _dataclass_fields(self, stmt: ast.ClassDef) -> tuple[tuple[str, ast.expr | None], ...] | None:
        """The fields of a class decorated with ``dataclasses.dataclass``, else None."""
        for decorator in stmt.decorator_list:
            target = decorator.func if isinstance(decorator, ast.Call) else decorator
            value = self.eval(target)
            if isinstance(value, Ref) and value.qualname == "dataclasses.dataclass":
                return tuple(
                    (child.target.id, child.value)
                    for child in stmt.body
                    if isinstance(child, ast.AnnAssign) and isinstance(child.target, ast.Name)
                )
        return None

    # ----------------------------------------------------------------- assignment

    def assign(self, target: ast.expr, value: Value) -> None:
        match target:
            case ast.Name(id=name):
                self.state.env[name] = value
            case ast.Tuple(elts=elts) | ast.List(elts=elts):
                self._unpack(elts, value)
            case ast.Starred(value=inner):
                self.assign(inner, Seq(element(value)))
            case ast.Attribute(value=base, attr=attr):
                owner = self.eval(base)
                if isinstance(owner, Obj):
                    self.state.heap[(owner.oid, attr)] = value
                elif attr == "requires_grad" and isinstance(base, ast.Name) and isinstance(owner, Tensor):
                    grad = not (isinstance(value, Const) and not value.value)
                    self.state.env[base.id] = Tensor(owner.nodes, grad, owner.root)
            case ast.Subscript(value=base, slice=index):
                container = self.eval(base)
                key = self.eval(index)
                if isinstance(container, Seq) and container.keys is not None and isinstance(key, Const):
                    self.assign_place(base, _with_key(container, key.value, value))
                elif isinstance(container, Tensor) and isinstance(value, Tensor) and value.grad:
                    # `buffer[idx] = w[idx]`: an index_put on the buffer, whose backward saved the
                    # indices; the buffer now has that graph
                    self.assign_place(base, self.op_node(target, [container, value, key], saves=True))
                elif isinstance(container, Seq | Tensor) or container is UNKNOWN:
                    updated = _with_item(container, value)
                    if updated is not None:
                        self.assign_place(base, updated)

    def assign_place(self, target: ast.expr, value: Value) -> None:
        """Store back into a name or attribute (for ``xs.append(v)``, ``xs[i] = v``)."""
        if isinstance(target, ast.Name | ast.Attribute):
            self.assign(target, value)

    def _unpack(self, elts: list[ast.expr], value: Value) -> None:
        if isinstance(value, Seq) and value.items is not None and len(value.items) == len(elts):
            for elt, item in zip(elts, value.items, strict=True):
                self.assign(elt, item)
            return
        # Unpacking a tensor walks its first dimension: every part is a view into the same graph.
        item = element(value)
        for elt in elts:
            self.assign(elt, item)

    # ----------------------------------------------------------------- expressions

    def eval(self, expr: ast.expr) -> Value:
        match expr:
            case ast.Constant(value=value):
                return Const(value)
            case ast.Name(id=name):
                return self.lookup(name)
            case ast.Attribute(value=base, attr=attr):
                return self.attribute(self.eval(base), attr, expr)
            case ast.Call():
                return self.call(expr)
            case ast.BinOp(left=left, op=op, right=right):
                return self.binop(self.eval(left), self.eval(right), op, expr)
            case ast.UnaryOp(op=unary, operand=operand):
                operand_value = self.eval(operand)
                if isinstance(unary, ast.Not):
                    return _const_not(operand_value)
                return self.op_node(expr, [operand_value], saves=False)
            case ast.BoolOp(op=op, values=operands):
                return self.bool_op(isinstance(op, ast.And), operands)
            case ast.Compare(left=first, comparators=comparators):
                compared = [self.eval(first), *(self.eval(c) for c in comparators)]
                return _compare_const(expr, compared)
            case ast.IfExp(test=test, body=body, orelse=orelse):
                return self.if_exp(test, body, orelse)
            case ast.Tuple(elts=elts) | ast.List(elts=elts) | ast.Set(elts=elts):
                items = tuple(self.eval(e) for e in elts)
                kind = "tuple" if isinstance(expr, ast.Tuple) else "list"
                return Seq(_join_many(list(items)) if items else UNKNOWN, kind, items)
            case ast.Dict(keys=keys, values=values):
                for key in keys:
                    if key is not None:
                        self.eval(key)
                evaluated = tuple(self.eval(v) for v in values)
                known = evaluated if len(evaluated) <= MAX_ITEMS else None
                constant = [k.value for k in keys if isinstance(k, ast.Constant)]
                named = tuple(constant) if known is not None and len(constant) == len(keys) else None
                if named is not None and len(set(named)) != len(named):
                    named, known = None, None  # a key given twice: the last wins, not worth following
                return Seq(_join_many(list(evaluated)), "dict", known, keys=named)
            case ast.Subscript(value=base, slice=index):
                return self.subscript(self.eval(base), self.eval(index), index, expr)
            case (
                ast.ListComp(elt=elt, generators=gens)
                | ast.SetComp(elt=elt, generators=gens)
                | (ast.GeneratorExp(elt=elt, generators=gens))
            ):
                return self.list_comprehension(gens, elt)
            case ast.DictComp(value=elt, generators=gens):
                return Seq(self.comprehension(gens, elt), "dict")
            case ast.Lambda():
                if not self.frames or self.frames[-1].func is None:
                    return Func(expr, module=self._home())
                scope = self.state.env  # a lambda in a function reads that function's names
                self._closures[id(scope)] = scope
                return Func(expr, None, id(scope), self._home())
            case ast.Starred(value=inner):
                return self.eval(inner)
            case ast.NamedExpr(target=target, value=value):
                result = self.eval(value)
                self.assign(target, result)
                return result
            case ast.Yield(value=inner) | ast.YieldFrom(value=inner):
                yielded = self.eval(inner) if inner is not None else Const(None)
                if self.frames:
                    self.frames[-1].yields.append(
                        element(yielded) if isinstance(expr, ast.YieldFrom) else yielded
                    )
                return UNKNOWN
            case ast.Await(value=inner):
                return self.eval(inner)
            case ast.JoinedStr(values=values):
                for part in values:
                    self.eval(part)
                return UNKNOWN
            case ast.FormattedValue(value=inner):
                self.eval(inner)
                return UNKNOWN
            case ast.Slice(lower=lower, upper=upper, step=step):
                for bound in (lower, upper, step):
                    if bound is not None:
                        self.eval(bound)
                return UNKNOWN
        return UNKNOWN

    def bool_op(self, conjunction: bool, operands: list[ast.expr]) -> Value:
        """``a and b`` / ``a or b`` as Python evaluates them: an operand whose truth is known and
        ends the evaluation (a false one in ``and``, a true one in ``or``) is the value, and what
        follows it is not evaluated; one whose truth is known and does not end it is not the
        value; one whose truth is not known may be the value or not."""
        given: list[Value] = []
        certain = True
        for index, operand in enumerate(operands):
            with self._maybe_evaluated(not certain):
                value = self.eval(operand)
            truth = _truth(value)
            if index == len(operands) - 1 or truth is None:
                given.append(value)
                certain = False
            elif truth is not conjunction:  # `False and …`, `True or …`: the evaluation ends
                given.append(value)
                break
        return _join_many(given)

    def if_exp(self, test: ast.expr, body: ast.expr, orelse: ast.expr) -> Value:
        truth = _truth(self.eval(test))
        if truth is not None:  # a known test: only that branch is evaluated
            return self.eval(body if truth else orelse)
        with self._maybe_evaluated():  # one of the two, as the test says
            return join(self.eval(body), self.eval(orelse))

    def list_comprehension(self, generators: list[ast.comprehension], elt: ast.expr) -> Seq:
        """Two items when one ``for`` walks something whose items we know not: ``[crit(h(f), y) for h
        in heads]`` makes one loss per head, and a later ``for loss in losses`` sees them apart."""
        if len(generators) != 1 or generators[0].ifs:
            return Seq(self.comprehension(generators, elt), "list")
        iterable = self.eval(generators[0].iter)
        known = isinstance(iterable, Seq) and iterable.items is not None
        count = (
            min(len(iterable.items), MAX_ITEMS)
            if known and isinstance(iterable, Seq) and iterable.items
            else 2
        )
        items = tuple(self.comprehension(generators, elt, nth(iterable, i)) for i in range(count))
        return Seq(_join_many(list(items)), "list", items if items else None)

    def comprehension(
        self, generators: list[ast.comprehension], elt: ast.expr, first: Value | None = None
    ) -> Value:
        saved = dict(self.state.env)
        for index, gen in enumerate(generators):
            if index == 0 and first is not None:
                self.assign(gen.target, first)
                continue
            with self._maybe_evaluated(index > 0):  # the first iterable is always evaluated
                self.assign(gen.target, element(self.eval(gen.iter)))
            with self._maybe_evaluated():
                for cond in gen.ifs:
                    self.eval(cond)
        with self._maybe_evaluated():  # only for an item the iterables give
            result = self.eval(elt)
        self.state.env = {**saved, **{k: v for k, v in self.state.env.items() if k in saved}}
        return result

    def lookup(self, name: str) -> Value:
        if name in self.state.env:
            return self.state.env[name]
        frame = self.frames[-1] if self.frames else None
        if frame is not None and frame.closure is not None and name in frame.closure:
            return frame.closure[name]
        if name in self.globals:
            return self.globals[name]
        if name in ("True", "False", "None"):
            return Const({"True": True, "False": False, "None": None}[name])
        home = self._home()
        tree = self.module if home is None else self.trees.get(home)
        module_names = self.globals if self._module_running and home is None else None
        if frame is not None and frame.func is None and module_names is not None:
            module_names = self.state.env  # module-level code reads the module's names directly
        if tree is not None and raises_name_error(name, tree, module_names):
            self._name_error()
        return UNKNOWN

    def _name_error(self) -> None:
        """Reading a name bound nowhere raises NameError: the path ends here. What a retained graph
        was kept for after this point is not seen."""
        if self._conditional:
            return  # a part of an expression that may not be evaluated
        self.state.dead = True
        for site in self.retain_sites.values():
            site.unseen = True

    def attribute(self, owner: Value, attr: str, expr: ast.expr) -> Value:
        if isinstance(owner, Ref):
            return Ref(f"{owner.qualname}.{attr}")
        if isinstance(owner, ModuleRef):
            return self.namespaces.get(owner.key, {}).get(attr, UNKNOWN)
        if isinstance(owner, Obj):
            stored = self.state.heap.get((owner.oid, attr))
            if stored is not None:
                return stored
            method = owner.cls.methods.get(attr)
            if method is None and owner.cls.layer and api.is_parameter_name(attr):
                return Tensor(frozenset(), True)  # `self.weight` of a subclass of nn.Linear
            return Func(method, owner, module=owner.cls.homes.get(attr)) if method is not None else UNKNOWN
        if isinstance(owner, Class):
            method = owner.info.methods.get(attr)
            return Func(method, module=owner.info.homes.get(attr)) if method is not None else UNKNOWN
        if isinstance(owner, NNModule):
            return NNModule(attr, owner.frozen)
        if isinstance(owner, Tensor) and attr == "grad_fn" and owner.root is not None:
            return GradFn(owner.root)
        if isinstance(owner, GradFn) and (attr.startswith("_saved_") or attr in api.SAVED_TENSOR_ATTRIBUTES):
            self._read_saved(owner, expr)
            return UNKNOWN
        if isinstance(owner, Tensor):
            if attr in api.CUT_ATTRIBUTES:
                return Tensor(grad=False)
            if attr in api.VIEW_ATTRIBUTES:
                return self.op_node(expr, [owner], saves=False)
            if attr in api.SCALAR_ATTRIBUTES or attr.startswith("_"):
                return UNKNOWN
            if attr == "indices":
                return Tensor(grad=False)
            if attr == "values":  # `.values` of what max(), topk() or sort() give: that graph
                return Tensor(owner.nodes, owner.grad, None)
        return UNKNOWN

    def subscript(self, base: Value, index: Value, index_expr: ast.expr, expr: ast.expr) -> Value:
        if isinstance(base, NNModule) or (isinstance(base, Obj) and base.cls.is_module):
            return NNModule("item")  # model[0], self.heads["label"]: a submodule
        if isinstance(base, Tensor):
            return self.op_node(expr, [base], saves=False)
        if isinstance(base, Seq):
            if base.keys is not None and base.items is not None and isinstance(index, Const):
                if index.value in base.keys:
                    return base.items[base.keys.index(index.value)]
                return element(base)
            if base.items is not None and isinstance(index, Const) and isinstance(index.value, int):
                position = index.value
                if -len(base.items) <= position < len(base.items):
                    return base.items[position]
            if isinstance(index_expr, ast.Slice):
                return Seq(element(base), base.kind, _sliced(base.items, index_expr))
            return _choice_of(base) or element(base)
        return UNKNOWN

    def binop(self, left: Value, right: Value, op: ast.operator, expr: ast.AST) -> Value:
        if isinstance(left, Seq) and isinstance(right, Seq) and isinstance(op, ast.Add):
            return Seq(join(element(left), element(right)), left.kind)
        numbers = [
            isinstance(v, Number) or (isinstance(v, Const) and _is_number(v.value)) for v in (left, right)
        ]
        if all(numbers):
            return NUMBER
        saves = not isinstance(op, ast.Add | ast.Sub)  # even `w * 2` saves: torch raises on its second pass
        operands = [_as_operand(left), _as_operand(right)]
        if isinstance(left, Const) and isinstance(right, Const):
            return UNKNOWN
        return self.op_node(expr, operands, saves=saves)

    def op_node(self, site: ast.AST, inputs: Sequence[Value], *, saves: bool) -> Value:
        """The result of a differentiable op on ``inputs``: a new node when any input needs grad."""
        self.forward_calls.add(site)
        may = _may_reach(inputs)
        if not any(isinstance(v, Tensor | NNModule) or tensors_in(v) for v in inputs):
            return Opaque(may) if may and not self.no_grad else UNKNOWN
        graph = frozenset().union(*(nodes_of(v) for v in inputs))
        if self.no_grad or not any(has_grad(v) or isinstance(v, NNModule) for v in inputs):
            return Tensor(frozenset(), False)
        tensors = [v for v in inputs if isinstance(v, Tensor)]
        every = all(isinstance(v, Tensor | Const | Number) for v in inputs) and all(
            has_grad(t) for t in tensors
        )
        made = self.new_node(
            site, graph, saves=saves, learns=touches_parameters(list(inputs)), every_input_grad=every
        )
        return Tensor(made.nodes, made.grad, made.root, may - made.nodes) if may - made.nodes else made

    def new_node(
        self,
        site: ast.AST,
        inputs: frozenset[int],
        *,
        saves: bool,
        learns: bool = False,
        every_input_grad: bool = False,
    ) -> Tensor:
        node_id = len(self.nodes)
        stmt = self._current_stmt
        frame = self.frames[-1].serial if self.frames else 0
        site_expr = site if isinstance(site, ast.expr) else ast.Constant(None, lineno=0, col_offset=0)
        stmts = tuple((f.serial, f.stmt) for f in self.frames if f.stmt is not None)
        loops = tuple(self.loop_stack)
        node = GraphNode(
            node_id, site_expr, stmt, saves, loops, frame, stmts, inputs, learns, every_input_grad
        )
        self.nodes.append(node)
        return Tensor(inputs | {node_id}, True, node_id)

    def twin(self, node_id: int) -> int:
        """A copy of a graph node under a new id (see ``State.join``)."""
        twin_id = len(self.nodes)
        self.nodes.append(replace(self.nodes[node_id], id=twin_id))
        return twin_id

    # ----------------------------------------------------------------- calls

    def call(self, node: ast.Call) -> Value:
        func = node.func
        if isinstance(func, ast.Attribute):
            receiver = self.eval(func.value)
            args, kwargs = self._arguments(node)
            return self.call_method(receiver, func.attr, args, kwargs, node)
        callee = self.eval(func)
        args, kwargs = self._arguments(node)
        name = func.id if isinstance(func, ast.Name) else ""
        return self.call_value(callee, name, args, kwargs, node)

    def _arguments(self, node: ast.Call) -> tuple[list[Value], dict[str, Value]]:
        args = []
        for arg in node.args:
            value = self.eval(arg)
            args.append(Seq(element(value)) if isinstance(arg, ast.Starred) else value)
        kwargs: dict[str, Value] = {}
        for kw in node.keywords:
            value = self.eval(kw.value)
            if kw.arg is not None:
                kwargs[kw.arg] = value
            elif isinstance(value, Kwargs):
                kwargs.update(value.items)
            else:
                kwargs["**"] = value
        return args, kwargs

    def call_value(
        self, callee: Value, name: str, args: list[Value], kwargs: dict[str, Value], node: ast.Call
    ) -> Value:
        if isinstance(callee, Ref):
            return self.call_qualified(callee.qualname, args, kwargs, node)
        if isinstance(callee, Partial):
            merged = {**callee.kwargs, **kwargs}
            return self.call_value(callee.func, name, [*callee.args, *args], merged, node)
        if isinstance(callee, Func):
            return self.call_function(callee, args, kwargs, node)
        if isinstance(callee, Class):
            return self.instantiate(callee.info, args, kwargs, node)
        if isinstance(callee, Obj):
            return self.call_object(callee, args, kwargs, node)
        if isinstance(callee, NNModule):
            return self.call_module(args, kwargs, node, frozen=callee.frozen)
        if callee is UNKNOWN and name and name not in self.state.env and name not in self.globals:
            return self.call_builtin(name, args, kwargs, node)
        return self.unknown_call(args, kwargs)

    def call_method(
        self, receiver: Value, attr: str, args: list[Value], kwargs: dict[str, Value], node: ast.Call
    ) -> Value:
        if isinstance(receiver, Ref):
            return self.call_qualified(f"{receiver.qualname}.{attr}", args, kwargs, node)
        if isinstance(receiver, Tensor):
            return self.tensor_method(receiver, attr, args, kwargs, node)
        if isinstance(receiver, Instance):
            return self.library_method(receiver, attr, args, kwargs, node)
        if attr == "register_forward_hook" and args and isinstance(args[0], Func | Partial):
            self.forward_hooks.append(args[0])
            return UNKNOWN
        if isinstance(receiver, Class) and receiver.info.function and attr == "apply":
            # a custom autograd.Function: its backward needs what its forward saved
            return self.op_node(node, [*args, *kwargs.values()], saves=_saves_for_backward(receiver.info))
        if isinstance(receiver, Obj):
            return self.object_method(receiver, attr, args, kwargs, node)
        if isinstance(receiver, Seq) and attr in ("append", "extend", "insert", "add", "update"):
            return self._grow(receiver, attr, args, node)
        if isinstance(receiver, Seq) and attr == "clear" and isinstance(node.func, ast.Attribute):
            self.assign_place(node.func.value, Seq(UNKNOWN, receiver.kind, ()))
            return Const(None)
        if isinstance(receiver, Seq) and attr in ("pop", "get", "values", "items", "copy", "keys"):
            return _container_view(receiver, attr)
        if isinstance(receiver, NNModule):
            return self.module_method(receiver, attr, args, kwargs, node)
        return self.unknown_call([receiver, *args], kwargs)

    def object_method(
        self, receiver: Obj, attr: str, args: list[Value], kwargs: dict[str, Value], node: ast.Call
    ) -> Value:
        """A method of an object of a class defined in the checked code."""
        method = self.attribute(receiver, attr, node)
        if isinstance(method, Func | Obj | NNModule | Class):
            return self.call_value(method, attr, args, kwargs, node)
        if receiver.cls.lightning and attr == "manual_backward" and args:
            return self.backward_call(node, args[0], kwargs, _receiver_expr(node, 0), positional=args[1:])
        if receiver.cls.is_module and attr == "requires_grad_":
            frozen = bool(args) and isinstance(args[0], Const) and not args[0].value
            self.state.heap[(receiver.oid, FROZEN)] = Const(frozen)
            return receiver
        if receiver.cls.is_module and attr in api.MODULE_SELF_METHODS:
            return receiver  # model.to(device), model.eval(): the same module
        if receiver.cls.is_module and attr in ("parameters", "named_parameters", "buffers"):
            return self.module_method(NNModule(), attr, args, kwargs, node)
        return self.unknown_call(args, kwargs)

    def library_method(
        self, receiver: Instance, attr: str, args: list[Value], kwargs: dict[str, Value], node: ast.Call
    ) -> Value:
        """A method of a library object modelled on purpose; any other method is unknown."""
        qualname = receiver.qualname
        if qualname in api.LIBRARY_BACKWARD_CLASSES and attr == "backward" and args:
            return self.backward_call(node, args[0], kwargs, _receiver_expr(node, 0), positional=args[1:])
        if qualname in api.GRAD_SCALER_CLASSES and attr == "scale" and args:
            return self.op_node(node, args[:1], saves=True)
        if qualname in api.GRAD_SCALER_CLASSES and attr == "step":
            self._note_step()  # scaler.step(optimizer) steps the optimizer
            return UNKNOWN
        if qualname in api.LIBRARY_BACKWARD_CLASSES and attr in api.LIBRARY_PREPARE_METHODS:
            # accelerator.prepare(model, optimizer), fabric.setup(...): the same objects, wrapped
            return args[0] if len(args) == 1 else Seq(_join_many(args), "tuple", tuple(args))
        if qualname.startswith("torch.optim.") and attr == "step":
            self._note_step()
            closure = args[0] if args else kwargs.get("closure")
            if isinstance(closure, Func):
                # optimizer.step(closure) (LBFGS) runs the closure and gives back what it returned.
                return self.call_function(closure, [], {}, node)
            return UNKNOWN
        if qualname.startswith("torch.optim.") and attr in ("zero_grad", "add_param_group", "state_dict"):
            return UNKNOWN
        return self.unknown_call(args, kwargs)

    def module_method(
        self, module: NNModule, attr: str, args: list[Value], kwargs: dict[str, Value], node: ast.Call
    ) -> Value:
        """A method of a module, or of a parameter reached as ``model.weight``."""
        if attr == "requires_grad_":
            frozen = bool(args) and isinstance(args[0], Const) and not args[0].value
            frozen = frozen or _const_false(kwargs.get("requires_grad"))
            result = NNModule(module.label, frozen)
            self._rebind_receiver(node, result)
            return result
        if attr in api.MODULE_SELF_METHODS:
            return module
        if attr in ("parameters", "buffers"):
            return Seq(Tensor(frozenset(), attr == "parameters"), "list")
        if attr == "named_parameters":
            return Seq(Seq(UNKNOWN, "tuple", (UNKNOWN, Tensor(frozenset(), True))), "list")
        if (
            attr in ("values", "items") and module.label in KEYED_CONTAINERS
        ) or attr in api.SUBMODULE_METHODS:
            # a ModuleDict's modules, a ParameterDict's parameters, `children()`, `named_modules()`
            part = (
                Tensor(frozenset(), True)
                if module.label == "ParameterDict"
                else NNModule("item", module.frozen)
            )
            named = attr == "items" or attr.startswith("named_")
            return Seq(Seq(UNKNOWN, "tuple", (UNKNOWN, part)) if named else part, "list")
        if attr in ("forward", "__call__"):
            return self.call_module(args, kwargs, node)
        if attr in api.TENSOR_METHODS or attr in api.NO_SAVE_OPS:
            return self.tensor_method(Tensor(frozenset(), True), attr, args, kwargs, node)
        return self.unknown_call(args, kwargs)

    def _grow(self, container: Seq, attr: str, args: list[Value], node: ast.Call) -> Value:
        added = args[-1] if args else UNKNOWN
        many = attr in ("extend", "update")
        item = element(added) if many else added
        items = container.items
        if items is not None and attr == "append" and len(items) < MAX_ITEMS:
            items = (*items, added)
        elif items is not None and many and isinstance(added, Seq) and added.items is not None:
            items = (*items, *added.items)[:MAX_ITEMS]
        else:
            items = None
        assert isinstance(node.func, ast.Attribute)
        self.assign_place(node.func.value, Seq(join(element(container), item), container.kind, items))
        return Const(None)

    def tensor_method(
        self, receiver: Tensor, attr: str, args: list[Value], kwargs: dict[str, Value], node: ast.Call
    ) -> Value:
        if attr == "backward":
            return self.backward_call(node, receiver, kwargs, _receiver_expr(node, None), positional=args[1:])
        if attr.endswith("_") and not attr.endswith("__") and self._updates_parameter(node, receiver):
            self._note_step()  # `p.data.add_(p.grad, alpha=-lr)`: a hand-written optimizer
        if attr == "detach_":
            self._detach_in_place(receiver)
            self._rebind_receiver(node, Tensor(grad=False))
            return Tensor(grad=False)
        if attr in api.CUT_METHODS or attr in api.INTEGER_CASTS:
            if attr not in api.RANDOM_METHODS:
                self.forward_calls.add(node)  # reads the tensor: a fix may re-run it
            return Tensor(grad=False)
        if attr in ("type", "to") and any(_integer_dtype(v) for v in [*args, *kwargs.values()]):
            return Tensor(grad=False)  # an integer tensor cannot carry a graph
        if attr in api.NUMBER_METHODS:
            self.forward_calls.add(node)  # t.size(0), t.item(): reads the tensor
            return NUMBER
        if attr in api.SCALAR_METHODS:
            if attr not in api.EFFECT_METHODS:
                self.forward_calls.add(node)
            return UNKNOWN
        if attr == "requires_grad_":
            off = args and isinstance(args[0], Const) and not args[0].value
            result = Tensor(receiver.nodes, not off, receiver.root)
            self._rebind_receiver(node, result)
            return result
        op_result = self.op_node(node, [receiver, *args], saves=attr not in api.NO_SAVE_OPS)
        if attr.endswith("_") and not attr.endswith("__"):
            self._rebind_receiver(node, op_result)
        return op_result

    def _updates_parameter(self, node: ast.Call, receiver: Tensor) -> bool:
        """An in-place op on a parameter under ``no_grad``, or on its ``.data``."""
        if self.no_grad and receiver.grad and not receiver.nodes:
            return True
        func = node.func
        if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Attribute)):
            return False
        owner_expr = func.value.value
        if func.value.attr != "data" or not isinstance(owner_expr, ast.Name):
            return False
        owner = self.state.env.get(owner_expr.id)
        return isinstance(owner, Tensor) and owner.grad and not owner.nodes

    def _detach_in_place(self, tensor: Tensor) -> None:
        """``t.detach_()`` changes the tensor object itself: every name, attribute and container
        item that holds it (``for s in state: s.detach_()``) now holds a leaf without a graph."""
        if not tensor.nodes:
            return
        cut = Tensor(grad=False)
        self.state.env = {k: _replace_tensor(v, tensor, cut) for k, v in self.state.env.items()}
        self.state.heap = {k: _replace_tensor(v, tensor, cut) for k, v in self.state.heap.items()}

    def _rebind_receiver(self, node: ast.Call, value: Value) -> None:
        if isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name | ast.Attribute):
            self.assign_place(node.func.value, value)

    def call_qualified(
        self, qualname: str, args: list[Value], kwargs: dict[str, Value], node: ast.Call
    ) -> Value:
        short = qualname.rsplit(".", 1)[-1]
        if qualname in api.GRAD_FUNCS or qualname.endswith("autograd.grad"):
            return self.autograd_grad(node, args, kwargs)
        if qualname in api.BACKWARD_FUNCS or qualname.endswith("autograd.backward"):
            tensors = args[0] if args else kwargs.get("tensors", UNKNOWN)
            return self.backward_call(node, tensors, kwargs, _receiver_expr(node, 0), positional=args[2:])
        if qualname == "functools.partial" and args:
            return Partial(args[0], tuple(args[1:]), kwargs)
        if qualname in api.LIBRARY_BACKWARD_CLASSES or qualname in api.GRAD_SCALER_CLASSES:
            return Instance(qualname)
        if qualname in api.STDLIB_CONTAINERS or (qualname in api.SAMPLING_FUNCS and args):
            # deque(...), OrderedDict(...); random.sample(buffer, k): some of the buffer's items
            return Seq(element(args[0]) if args else UNKNOWN, "list")
        if qualname in api.SAMPLE_ONE_FUNCS and args:
            return element(args[0])
        if qualname in api.TENSOR_DATASETS:
            # TensorDataset(x, y): items are (x[i], y[i]); a loader's batches stack them back
            return Seq(Seq(UNKNOWN, "tuple", tuple(element(a) for a in args)), "list")
        if qualname in api.DATA_LOADERS and args and isinstance(args[0], Seq):
            return Seq(element(args[0]), "list")
        if qualname.startswith(api.GRAPH_FREE_MODULES) or qualname in api.DATA_LOADERS:
            # numpy, math, random, ...: no graph of their own; what they were handed they may hold
            # (np.array of tensors), and may be handed back
            given = [*args, *kwargs.values()]
            self._note_unknown_reach(given)
            may = _may_reach(given)
            return Opaque(may) if may and not self.no_grad else UNKNOWN
        if not qualname.startswith("torch."):
            return self.unknown_call(args, kwargs)
        return self.torch_call(qualname, short, args, kwargs, node)

    def torch_call(
        self, qualname: str, short: str, args: list[Value], kwargs: dict[str, Value], node: ast.Call
    ) -> Value:
        namespace = qualname.rpartition(".")[0]
        if short in ("Parameter", "UninitializedParameter"):
            return Tensor(frozenset(), True)
        if short == "Variable" and namespace in ("torch.autograd", "torch.autograd.variable"):
            return self._variable(args, kwargs)
        if _is_optimizer_class(namespace, short):
            return Instance(qualname)  # an optimizer (its ``step(closure)`` is modelled)
        if qualname in api.PASS_THROUGH_FUNCS and args:
            return args[0]  # torch.compile(f), torch.jit.script(f): f, as far as autograd goes
        if qualname in api.FUNCTIONAL_CALLS and len(args) >= 2:
            # functional_call(module, params, args): the module run on those parameters
            return self.new_node(
                node, nodes_of(args[1]) | nodes_of(_join_many(args[2:])), saves=True, learns=True
            )
        if qualname in api.CHECKPOINT_FUNCS and args:
            output = self.call_value(args[0], "", list(args[1:]), {}, node)
            return self.op_node(node, [output], saves=True)
        if namespace == "torch.distributions" or namespace.startswith("torch.distributions."):
            return self.op_node(node, [*args, *kwargs.values()], saves=True)
        if short[:1].isupper():
            return NNModule(short) if namespace.startswith("torch.nn") else self.unknown_call(args, kwargs)
        if qualname in api.DIFFERENTIABLE_UTILS:
            return self.op_node(node, [*args, *kwargs.values()], saves=False)
        if namespace not in api.OP_NAMESPACES:
            return self.unknown_call(args, kwargs)
        if short in api.CREATION_FUNCS:
            if short not in api.RANDOM_CREATION_FUNCS and short not in ("load", "manual_seed"):
                self.forward_calls.add(node)  # torch.eye(n), torch.zeros_like(x): the same every time
            grad = kwargs.get("requires_grad")
            return Tensor(frozenset(), isinstance(grad, Const) and bool(grad.value))
        if short in api.NOT_OPS:
            return UNKNOWN
        return self.op_node(node, [*args, *kwargs.values()], saves=short not in api.NO_SAVE_OPS)

    def _variable(self, args: list[Value], kwargs: dict[str, Value]) -> Value:
        """``Variable(x, requires_grad=True)``: ``x``, made a leaf that needs grad when asked."""
        data = args[0] if args else UNKNOWN
        if _flag(kwargs.get("requires_grad")) is True:
            return Tensor(frozenset(), True)
        return data

    def call_builtin(self, name: str, args: list[Value], kwargs: dict[str, Value], node: ast.Call) -> Value:
        if name in ("sum", "max", "min"):
            parts = [element(args[0])] if len(args) == 1 else list(args)
            return self.op_node(node, parts, saves=name != "sum")
        if name in ("list", "tuple", "set", "dict", "frozenset"):
            inner = element(args[0]) if args else UNKNOWN
            return Seq(inner, "tuple" if name == "tuple" else "list")
        if name == "range":
            return Seq(NUMBER, "range", least=_range_length(args))
        if name in ("len", "int", "round") and args:
            return NUMBER
        if name == "iter" and len(args) == 1:
            return args[0]
        if name == "next" and args and isinstance(args[0], Seq):
            return element(args[0])
        if name == "enumerate" and args:
            return _zipped([Seq(NUMBER, "range"), args[0]])
        if name == "zip" and len(node.args) == 1 and isinstance(node.args[0], ast.Starred):
            return _transposed(element(args[0]))
        if name == "zip":
            return _zipped(args)
        if name == "isinstance" and len(args) == 2:
            return _isinstance(args[0], args[1])
        if name == "abs" and args:
            return self.op_node(node, args, saves=True)
        if name in api.NON_TENSOR_BUILTINS:
            return UNKNOWN
        return self.unknown_call(args, kwargs)

    def unknown_call(self, args: list[Value], kwargs: dict[str, Value]) -> Value:
        """A call we cannot follow: its result is unknown, never a graph. What it was given may be
        backwarded inside it (a library's ``step(loss, retain_graph=True)``), so a retained graph
        handed to it is not proven unneeded."""
        given = [*args, *kwargs.values()]
        self._note_unknown_reach(given)
        if self.no_grad:
            return UNKNOWN
        # What it gives back may hold a graph of its own, which another such result may share.
        return Opaque(frozenset().union(*(maybe_of(v) for v in given)) | {UNSEEN})

    def call_module(
        self, args: list[Value], kwargs: dict[str, Value], node: ast.Call, frozen: bool = False
    ) -> Value:
        self.forward_calls.add(node)
        self.module_calls.add(node)
        if frozen:
            return self.op_node(node, [*args, *kwargs.values()], saves=True)
        if self.no_grad:
            return Tensor(grad=False)
        given = [*args, *kwargs.values()]
        graph = frozenset().union(*(nodes_of(v) for v in given))
        output = self.new_node(node, graph, saves=True, learns=True)
        may = _may_reach(given) - output.nodes
        if may:
            output = Tensor(output.nodes, output.grad, output.root, may)
        return self._run_forward_hooks(output, args, node)

    def _run_forward_hooks(self, output: Value, args: list[Value], node: ast.Call) -> Value:
        """``hook(module, inputs, output)`` for every registered forward hook: a module we do not
        follow may hold the hooked layer, so each one runs (once per call, not nested)."""
        if not self.forward_hooks or self._in_hook:
            return output
        self._in_hook = True
        try:
            for hook in list(self.forward_hooks):
                self.call_value(hook, "", [UNKNOWN, Seq(_join_many(args), "tuple"), output], {}, node)
        finally:
            self._in_hook = False
        return output

    def call_object(self, obj: Obj, args: list[Value], kwargs: dict[str, Value], node: ast.Call) -> Value:
        name = "forward" if "forward" in obj.cls.methods else "__call__"
        method = obj.cls.methods.get(name)
        home = obj.cls.homes.get(name)
        frozen = self.state.heap.get((obj.oid, FROZEN)) == Const(True)
        if method is None:
            if not obj.cls.is_module:
                return UNKNOWN
            return self.call_module(args, kwargs, node, frozen=frozen)
        if obj.cls.is_module:
            self.forward_calls.add(node)
        if frozen and not any(has_grad(v) for v in [*args, *kwargs.values()]):
            saved, self.no_grad = self.no_grad, True  # no parameter needs grad, nor any input
            try:
                return self.call_function(Func(method, obj, module=home), args, kwargs, node)
            finally:
                self.no_grad = saved
        result = self.call_function(Func(method, obj, module=home), args, kwargs, node)
        return self._run_forward_hooks(result, args, node) if obj.cls.is_module else result

    def instantiate(
        self,
        info: ClassInfo,
        args: list[Value],
        kwargs: dict[str, Value],
        node: ast.Call | None,
        unknown_args: bool = False,
    ) -> Obj:
        obj = Obj(info, next(self._serial))
        init = info.methods.get("__init__")
        if init is not None:
            home = info.homes.get("__init__")
            self.call_function(Func(init, obj, module=home), args, kwargs, node, unknown_args=unknown_args)
        elif info.fields is not None:
            for index, (name, default) in enumerate(info.fields):
                given = args[index] if index < len(args) and not unknown_args else kwargs.get(name)
                self.state.heap[(obj.oid, name)] = given if given is not None else _default_value(default)
        return obj

    def call_function(
        self,
        func: Func,
        args: list[Value],
        kwargs: dict[str, Value],
        node: ast.Call | None,
        unknown_args: bool = False,
    ) -> Value:
        fn = func.node
        if len(self.frames) > MAX_CALL_DEPTH:
            return self.unknown_call(args, kwargs)
        if any(frame.func is fn for frame in self.frames):
            return UNKNOWN  # recursion (repackage_hidden): no graph is assumed, not one invented
        env = self._bind(fn, func.bound, args, kwargs, unknown_args)
        closure = self._closures.get(func.closure) if func.closure is not None else None
        frame = Frame(next(self._serial), fn, node, self.tick, closure=closure)
        if node is not None and not isinstance(fn, ast.Lambda):
            self.called_functions.setdefault(node, set()).add(fn)
        frame.bound = func.bound.oid if func.bound is not None else None
        caller_env, caller_no_grad, caller_globals = self.state.env, self.no_grad, self.globals
        frame.module = func.module
        if func.module is not None:
            self.globals = self.namespaces.get(func.module, {})  # its names are its module's
        elif self.frames and self.frames[-1].func is None and self.frames[-1].module is None:
            self.globals = caller_env  # a call from module level sees the module's names as they are
        self.state.env = env
        if not isinstance(fn, ast.Lambda) and _decorated_no_grad(fn):
            self.no_grad = True
        try:
            with self._frame(frame):
                self.exec_block(_lambda_body(fn) if isinstance(fn, ast.Lambda) else fn.body)
        finally:
            self.no_grad = caller_no_grad
        outcomes = [state for _, state in frame.returns]
        if not self.state.dead:
            outcomes.append(self.state)
        result = _join_many([value for value, _ in frame.returns]) if frame.returns else Const(None)
        if frame.yields:
            # A generator: what a `for` over it sees, item by item (its body ran at the call).
            yields = tuple(frame.yields[:MAX_ITEMS])
            result = Seq(_join_many(list(yields)), "list", yields)
        self.state = join_all(outcomes, self.twin) if outcomes else self.state
        self.state.env = caller_env
        if func.module is not None:
            self.globals = caller_globals
        # A call whose every path raised raises in the caller too (a generator's body runs later).
        self.state.dead = not outcomes and not frame.yields and not _is_generator(_func_node(fn))
        return result

    def _bind(
        self,
        fn: FunctionNode | ast.Lambda,
        bound: Obj | None,
        args: list[Value],
        kwargs: dict[str, Value],
        unknown_args: bool,
    ) -> dict[str, Value]:
        params = [*fn.args.posonlyargs, *fn.args.args]
        env: dict[str, Value] = {}
        # Defaults line up with the parameters before ``self`` is bound: in ``def step(n=2)`` called
        # as a method, ``n`` is the one bound (the zip below failed on it).
        defaults = [None] * (len(params) - len(fn.args.defaults)) + list(fn.args.defaults)
        if bound is not None and params:
            env[params[0].arg] = bound
            params, defaults = params[1:], defaults[1:]
        spread = kwargs.get("**")  # `f(**batch)`: any parameter not named may come from it

        def missing(default: ast.expr | None) -> Value:
            if spread is None:
                return _default_value(default)
            return element(spread) if isinstance(spread, Seq) else UNKNOWN

        for i, (param, default) in enumerate(zip(params, defaults, strict=True)):
            if unknown_args:
                env[param.arg] = _default_value(default)
            elif i < len(args):
                env[param.arg] = args[i]
            else:
                env[param.arg] = kwargs.get(param.arg, missing(default))
        for param, kw_default in zip(fn.args.kwonlyargs, fn.args.kw_defaults, strict=True):
            env[param.arg] = kwargs.get(param.arg, missing(kw_default))
        if fn.args.vararg:
            extra = args[len(params) :]
            items = tuple(extra) if not unknown_args and len(extra) <= MAX_ITEMS else None
            env[fn.args.vararg.arg] = Seq(_join_many(extra) if extra else UNKNOWN, "tuple", items)
        if fn.args.kwarg:
            named = {p.arg for p in [*params, *fn.args.kwonlyargs]}
            rest = {k: v for k, v in kwargs.items() if k not in named}
            env[fn.args.kwarg.arg] = UNKNOWN if unknown_args else Kwargs(rest)
        return env

    # ----------------------------------------------------------------- backward

    def autograd_grad(self, node: ast.Call, args: list[Value], kwargs: dict[str, Value]) -> Value:
        outputs = args[0] if args else kwargs.get("outputs", UNKNOWN)
        create = _flag(kwargs.get("create_graph"), positional=args[5] if len(args) > 5 else None)
        inputs = args[1] if len(args) > 1 else kwargs.get("inputs", UNKNOWN)
        reach = self._stopping_at(outputs, inputs)
        if reach is None and _explicit_inputs(node):
            # grad w.r.t. a few named tensors runs (and frees) only the part of the graph that
            # leads to them; which part that is we cannot tell, so nothing counts as freed.
            kwargs = {**kwargs, "inputs": UNKNOWN}
        self.backward_call(node, outputs, kwargs, _receiver_expr(node, 0), args[3:5], reach)
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
            return Const(None)
        reached = frozenset().union(*(t.nodes for t in roots))
        if reach is not None:
            reached &= reach
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
            free = Free(node, roots[0].root, loops, self.tick, label, reached, self._home())
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
        label = ast.unparse(receiver) if receiver is not None else ""
        event = SecondPass(node, node, receiver, conflict, free, roots=tuple(t.root for t in roots))
        self._observe(event, roots, label)
        event.report, event.frame = self._report_site(node, free.tick)
        if event.carried_over and event.carried:
            inside = self._inside_stateful_method(node, free.tick, event.carried)
            if inside is not None:
                event.report, event.frame, event.loop, event.carried = inside
        event.reached = reached
        event.guarded, event.entry, event.spelled = self._guarded, self._entry, self._spelled
        event.module, event.local = self._home(), self._local_call(node, free)
        event.stepped_between = self.step_tick >= free.tick
        self.events.append(event)
        self._raised = True
        self._raised_by.add(id(free))

    def _observe(self, event: SecondPass, roots: list[Tensor], receiver_label: str) -> None:
        """What the second pass goes through: the same tensor as the first, a graph carried across
        iterations, a graph built before the loop that freed it (rules decide what it means)."""
        node, free, conflict = event.site, event.free, event.conflict
        current = dict(self.loop_stack)
        same_root = any(t.root is not None and t.root == free.root for t in roots)
        reached = frozenset().union(*(t.nodes for t in roots))
        wrapped = free.site is not node and _thin_wrapper(roots, reached, free)
        repeated = free.site is node  # the same call, on an earlier iteration
        event.same_tensor = bool(
            same_root or wrapped or (receiver_label and receiver_label == free.label and not repeated)
        )
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
                    event.carried_over, event.loop = True, self.loops[key].loop
                    return
        event.loop = self._freeing_loop(free, current)
        event.loop_walks_tensors = event.loop is not None and self.loops[event.loop.key].over_tensors
        if not event.loop_walks_tensors:
            self._note_loop_entry(event)

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
        self, node: ast.Call, freed_at: int, carried: dict[str, Value]
    ) -> tuple[ast.expr, int, Loop, dict[str, Value]] | None:
        """A loop calls a method of an object that keeps the graph on itself between calls
        (``trainer.training_step(x)`` storing ``self.context``): the bug is in the method, so report
        there, as if its calls were the loop, with the state spelled ``self.context``."""
        deepest = max((i for i, f in enumerate(self.frames) if f.start < freed_at), default=-1)
        if not 0 <= deepest < len(self.frames) - 1:
            return None
        method = self.frames[deepest + 1]
        owners = {key.partition("#")[2] for key in carried}
        if method.bound is None or owners != {str(method.bound)} or method.func is None:
            return None
        fn = _func_node(method.func)
        if fn is None:
            return None
        inner = self.frames[deepest + 2].call_site if deepest + 2 < len(self.frames) else None
        report = inner if inner is not None else node
        loop = Loop(self._new_key(), None, method=fn, frame=method.serial)
        plain = {key: key.partition("#")[0] for key in carried}
        self._guarded = frozenset(plain[key] for key in carried)  # None until the first call stores it
        self._entry = {plain[k]: v for k, v in self._entry.items() if k in plain}
        self._spelled = {}
        return report, method.serial, loop, {plain[key]: value for key, value in carried.items()}

    def _read_saved(self, grad_fn: GradFn, expr: ast.expr) -> None:
        """Reading what a node saved raises where a backward without ``retain_graph`` freed it."""
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
            if site is None or retain.site is node:
                continue
            site.reached_later = True
            made_before_loop = all(k != site.loop.key for k, _ in self.nodes[node_id].loops)
            # A generator that yields what it retained: its consumer backwards it in the same step.
            if retain.loops == loops or made_before_loop or _is_generator(site.loop.func):
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

    def _note_step(self) -> None:
        self.stepping.update(key for key, _ in self.loop_stack)
        self.step_tick = self.tick

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

    # ----------------------------------------------------------------- helpers

    def _note_freezing_loop(self, target: ast.expr, iterable: ast.expr, body: list[ast.stmt]) -> None:
        """``for p in backbone.parameters(): p.requires_grad = False`` freezes ``backbone``."""
        if not (
            isinstance(target, ast.Name)
            and isinstance(iterable, ast.Call)
            and isinstance(iterable.func, ast.Attribute)
            and iterable.func.attr == "parameters"
            and _sets_requires_grad_false(body, target.id)
        ):
            return
        owner_expr = iterable.func.value
        owner = self.eval(owner_expr)
        if isinstance(owner, Obj):
            self.state.heap[(owner.oid, FROZEN)] = Const(True)
        elif isinstance(owner, NNModule) and isinstance(owner_expr, ast.Name | ast.Attribute):
            self.assign_place(owner_expr, NNModule(owner.label, True))

    @staticmethod
    def _iterations(planned: int, start_tick: int, first_tick: int | None) -> int:
        """Two runs of a body find what one iteration leaves for the next; a third is needed when
        the first did no backward at all (``if prev is not None: ... backward()``)."""
        if planned < 2 or first_tick is None or first_tick > start_tick:
            return planned
        return planned + 1

    def _new_key(self) -> int:
        return next(self._serial)

    def _in_loop(self) -> bool:
        return bool(self.frames and self.frames[-1].loops)

    def _loop_context(self) -> LoopContext:
        return self.frames[-1].loops[-1]

    def _carried(self, key: int, iteration: int, include_env: bool) -> dict[str, Value]:
        """Names whose values at the top of ``iteration`` hold nodes made in the iteration before."""
        start = self.loops[key].first_node
        previous = {n.id for n in self.nodes[start:] if (key, iteration - 1) in n.loops}
        carried: dict[str, Value] = {}
        if include_env:
            for name, value in self.state.env.items():
                if nodes_of(value) & previous:
                    carried[name] = value
        for (oid, attr), value in self.state.heap.items():
            if nodes_of(value) & previous:
                carried[f"self.{attr}#{oid}"] = value
        return carried


# --------------------------------------------------------------------- pure helpers


def _spell_attributes(
    names: dict[str, Value], entry: dict[str, Value], heap: dict[tuple[int, str], Value]
) -> dict[str, str]:
    """``self.records#7`` -> ``recorder.records`` where a name at the loop's start holds object 7,
    or ``self.collector.features`` where that name's attribute does."""
    owners: dict[int, str] = {}
    for name, value in entry.items():
        if isinstance(value, Obj) and "#" not in name:
            owners.setdefault(value.oid, name)
    for (oid, attr), value in heap.items():
        if isinstance(value, Obj) and oid in owners and value.oid not in owners:
            owners[value.oid] = f"{owners[oid]}.{attr}"
    spelled = {}
    for key in names:
        attr, _, serial = key.partition("#")
        if serial.isdigit() and int(serial) in owners:
            spelled[key] = f"{owners[int(serial)]}.{attr.removeprefix('self.')}"
    return spelled


def _is_generator(func: FunctionNode | None) -> bool:
    return func is not None and any(isinstance(n, ast.Yield | ast.YieldFrom) for n in ast.walk(func))


def _needs_guard(context: LoopContext, name: str) -> bool:
    """A carried name that may be None (or unset) when the loop starts needs ``is not None``."""
    return not isinstance(context.entry.get(name), Tensor | Seq)


def _const_false(value: Value | None) -> bool:
    return isinstance(value, Const) and value.value is False


def _replace_tensor(value: Value, tensor: Tensor, by: Tensor) -> Value:
    """``value`` with ``tensor`` (the same node, or the same graph where it was made on several
    paths) replaced ``by``, wherever it is held."""
    if isinstance(value, Tensor):
        same = value.root == tensor.root if tensor.root is not None else value.nodes == tensor.nodes
        return by if same else value
    if isinstance(value, Seq):
        items = None if value.items is None else tuple(_replace_tensor(i, tensor, by) for i in value.items)
        return Seq(_replace_tensor(value.item, tensor, by), value.kind, items, value.least, value.keys)
    return value


def _may_reach(inputs: Sequence[Value]) -> frozenset[int]:
    """What an op's result may reach beyond its known graph: what its inputs may."""
    return frozenset().union(*(maybe_of(v) for v in inputs))


def _only_tensors(value: Value) -> bool:
    """``value`` is a tensor, or a sequence of nothing but tensors."""
    if isinstance(value, Tensor):
        return True
    if isinstance(value, Seq):
        parts = value.items if value.items is not None else (value.item,)
        return bool(parts) and all(_only_tensors(part) for part in parts)
    return False


def _is_number(value: object) -> bool:
    return type(value) in (int, float, bool)


def _sliced(items: tuple[Value, ...] | None, index: ast.Slice) -> tuple[Value, ...] | None:
    """The items a slice with constant bounds keeps (``xs[::-1]``: each item still apart)."""
    parts = (index.lower, index.upper, index.step)
    if items is None or not all(p is None or _int_constant(p) is not None for p in parts):
        return None
    lower, upper, step = (None if p is None else _int_constant(p) for p in parts)
    try:
        return items[lower:upper:step]
    except ValueError:  # a step of 0
        return None


def _int_constant(expr: ast.expr) -> int | None:
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.USub):
        inner = _int_constant(expr.operand)
        return None if inner is None else -inner
    if isinstance(expr, ast.Constant) and type(expr.value) is int:
        return expr.value
    return None


def _integer_dtype(value: Value) -> bool:
    return isinstance(value, Ref) and value.qualname in api.INTEGER_DTYPES


def _chain_of(stmt: ast.If) -> list[tuple[ast.expr, list[ast.stmt]]]:
    """An ``if``/``elif`` chain's tests and blocks, in order."""
    chain = [(stmt.test, stmt.body)]
    orelse = stmt.orelse
    while len(orelse) == 1 and isinstance(orelse[0], ast.If):
        chain.append((orelse[0].test, orelse[0].body))
        orelse = orelse[0].orelse
    return chain


def _chain_else(stmt: ast.If) -> list[ast.stmt]:
    orelse = stmt.orelse
    while len(orelse) == 1 and isinstance(orelse[0], ast.If):
        orelse = orelse[0].orelse
    return orelse


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
            for _, block in _chain_of(stmt):
                pending.extend(block)
            pending.extend(_chain_else(stmt))
            continue
        for field_name in ("body", "orelse", "finalbody", "handlers"):
            pending.extend(getattr(stmt, field_name, []) or [])
        if isinstance(stmt, ast.ExceptHandler):
            pending.extend(stmt.body)
    return found


def _assigned_in(node: ast.AST) -> frozenset[str]:
    """Names bound anywhere in ``node`` (assignments, loop targets, with-as, imports, definitions)."""
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


def _elif_chain(
    test: ast.expr, body: list[ast.stmt], orelse: list[ast.stmt]
) -> list[tuple[ast.expr, list[ast.stmt]]] | None:
    """``if a: ... elif b: ...`` with no final ``else``, as its tests and blocks (None otherwise)."""
    chain = [(test, body)]
    while len(orelse) == 1 and isinstance(orelse[0], ast.If):
        chain.append((orelse[0].test, orelse[0].body))
        orelse = orelse[0].orelse
    return chain if len(chain) > 1 and not orelse else None


_COMPLEMENTS = {ast.Lt: ast.GtE, ast.GtE: ast.Lt, ast.Gt: ast.LtE, ast.LtE: ast.Gt, ast.Eq: ast.NotEq}
_COMPLEMENTS |= {ast.NotEq: ast.Eq, ast.Is: ast.IsNot, ast.IsNot: ast.Is}


def _exhaustive(tests: list[ast.expr]) -> bool:
    """Whether one of ``tests`` always holds, by their form alone: ``x`` / ``not x``, ``a < b`` /
    ``a >= b`` (and the other complementary comparisons), ``n % k == 0`` ... ``n % k == k - 1``."""
    dumps = [ast.dump(t) for t in tests]
    for test in tests:
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) and ast.dump(test.operand) in dumps:
            return True
        if isinstance(test, ast.Compare) and len(test.ops) == 1:
            flipped = _COMPLEMENTS.get(type(test.ops[0]))
            if flipped is not None:
                other = ast.Compare(test.left, [flipped()], test.comparators)
                if ast.dump(other) in dumps:
                    return True
    return _covers_residues(tests)


def _covers_residues(tests: list[ast.expr]) -> bool:
    """``n % k == 0``, ``n % k == 1``, ... for every residue of one ``n % k`` (k a constant)."""
    subject: str | None = None
    modulus = 0
    seen: set[int] = set()
    for test in tests:
        if not (
            isinstance(test, ast.Compare)
            and len(test.ops) == 1
            and isinstance(test.ops[0], ast.Eq)
            and isinstance(test.left, ast.BinOp)
            and isinstance(test.left.op, ast.Mod)
            and isinstance(test.left.right, ast.Constant)
            and type(test.left.right.value) is int
            and isinstance(test.comparators[0], ast.Constant)
            and type(test.comparators[0].value) is int
        ):
            continue
        if subject is None:
            subject, modulus = ast.dump(test.left), test.left.right.value
        if ast.dump(test.left) == subject:
            seen.add(test.comparators[0].value)
    return 0 < modulus <= 64 and seen >= set(range(modulus))


def _range_length(args: list[Value]) -> int:
    """How many numbers ``range(*args)`` gives, where its arguments are constant ints (else 0)."""
    if not args or not all(isinstance(a, Const) and type(a.value) is int for a in args):
        return 0
    bounds = [a.value for a in args if isinstance(a, Const) and isinstance(a.value, int)]
    try:
        return len(range(*bounds))
    except (TypeError, ValueError):
        return 0


def _is_optimizer_class(namespace: str, short: str) -> bool:
    """``torch.optim.Adam``, ``torch.optim.sgd.SGD``; not a scheduler or an averaging wrapper."""
    return (
        (namespace == "torch.optim" or namespace.startswith("torch.optim."))
        and not namespace.startswith(("torch.optim.lr_scheduler", "torch.optim.swa_utils"))
        and short[:1].isupper()
    )


def _lambda_body(fn: ast.Lambda) -> list[ast.stmt]:
    """A lambda's expression as the ``return`` statement it amounts to."""
    return [ast.copy_location(ast.Return(fn.body), fn.body)]


def _func_node(func: FunctionNode | ast.Lambda | None) -> FunctionNode | None:
    return func if isinstance(func, ast.FunctionDef | ast.AsyncFunctionDef) else None


def _sets_requires_grad_false(body: list[ast.stmt], name: str) -> bool:
    for node in (n for stmt in body for n in ast.walk(stmt)):
        if (
            isinstance(node, ast.Assign)
            and any(
                isinstance(t, ast.Attribute) and t.attr == "requires_grad" and ast.unparse(t.value) == name
                for t in node.targets
            )
            and isinstance(node.value, ast.Constant)
            and node.value.value is False
        ):
            return True
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "requires_grad_"
            and ast.unparse(node.func.value) == name
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and node.args[0].value is False
        ):
            return True
    return False


def _container_view(container: Seq, attr: str) -> Value:
    if attr in ("pop", "get"):
        return element(container)
    if attr == "keys":
        return Seq(UNKNOWN, "list")
    if attr == "items":
        keys = tuple(UNKNOWN for _ in container.items) if container.items is not None else None
        return _zipped([Seq(UNKNOWN, "list", keys), container])
    return Seq(container.item, "list", container.items)


def _zipped(sources: list[Value]) -> Seq:
    """``zip``/``enumerate``: tuples, item by item where every source's items are known."""
    pair = Seq(UNKNOWN, "tuple", tuple(element(s) for s in sources))
    lengths = [len(s.items) for s in sources if isinstance(s, Seq) and s.items is not None]
    known = all(isinstance(s, Seq) and (s.items is not None or s.kind == "range") for s in sources)
    if not known or not lengths:
        return Seq(pair, "list")
    items = tuple(Seq(UNKNOWN, "tuple", tuple(nth(s, i) for s in sources)) for i in range(min(lengths)))
    return Seq(pair, "list", items)


def _transposed(row: Value) -> Seq:
    """``zip(*rows)`` where each row is a tuple of known length (a batch of transitions): one
    tuple per field, each holding that field of every row."""
    if not isinstance(row, Seq) or row.items is None:
        return Seq(Seq(element(row), "tuple"), "list")
    columns = tuple(Seq(field, "tuple") for field in row.items)
    return Seq(_join_many(list(columns)), "list", columns)


def _join_many(values: list[Value]) -> Value:
    result: Value | None = None
    for value in values:
        result = join(result, value)
    return result if result is not None else UNKNOWN


def _as_operand(value: Value) -> Value:
    return Tensor(frozenset(), True) if isinstance(value, NNModule) else value


def _const_not(value: Value) -> Value:
    return Const(not value.value) if isinstance(value, Const) else UNKNOWN


def _isinstance(value: Value, kind: Value) -> Value:
    """``isinstance(h, torch.Tensor)`` where we know what ``h`` is (repackage_hidden, guards)."""
    names = [k.qualname for k in ([kind] if isinstance(kind, Ref) else [])]
    if isinstance(kind, Seq) and kind.items is not None:
        names = [k.qualname for k in kind.items if isinstance(k, Ref)]
        if len(names) != len(kind.items):
            return UNKNOWN
    if not names or not all(n.endswith("Tensor") for n in names):
        return UNKNOWN
    if isinstance(value, Tensor):
        return Const(True)
    if isinstance(value, Seq | Const):
        return Const(False)
    return UNKNOWN


def _definitely_not_none(value: Value) -> bool:
    return isinstance(value, Tensor | Seq | Obj | NNModule | Func | Class) or (
        isinstance(value, Const) and value.value is not None
    )


def _compare_const(expr: ast.Compare, values: list[Value]) -> Value:
    if len(values) == 2 and len(expr.ops) == 1 and isinstance(expr.ops[0], ast.Is | ast.IsNot):
        subject, other = values
        if isinstance(other, Const) and other.value is None:
            is_none = isinstance(subject, Const) and subject.value is None
            if is_none or _definitely_not_none(subject):
                return Const(is_none == isinstance(expr.ops[0], ast.Is))
    if len(values) == 2 and len(expr.ops) == 1 and isinstance(expr.ops[0], ast.Eq | ast.NotEq):
        choice, other = values if isinstance(values[0], Choice) else values[::-1]
        if isinstance(choice, Choice) and isinstance(other, Const) and other.value not in choice.values:
            return Const(isinstance(expr.ops[0], ast.NotEq))  # none of the values it can take
    if len(values) == 2 and all(isinstance(v, Const) for v in values) and len(expr.ops) == 1:
        left, right = (v.value for v in values if isinstance(v, Const))
        if isinstance(expr.ops[0], ast.Eq):
            return Const(left == right)
        if isinstance(expr.ops[0], ast.NotEq):
            return Const(left != right)
    if any(isinstance(v, Tensor) for v in values):
        return Tensor(grad=False)
    return UNKNOWN


def _saves_for_backward(info: ClassInfo) -> bool:
    """A custom ``autograd.Function`` whose ``forward`` saves tensors with
    ``ctx.save_for_backward`` (what it keeps as ``ctx`` attributes a backward does not free)."""
    forward = info.methods.get("forward")
    return forward is not None and any(
        isinstance(call, ast.Call)
        and isinstance(call.func, ast.Attribute)
        and call.func.attr == "save_for_backward"
        and any(not (isinstance(a, ast.Constant) and a.value is None) for a in call.args)
        for call in ast.walk(forward)
    )


def _truth(value: Value) -> bool | None:
    """What ``bool(value)`` gives, where the value is a known constant."""
    if isinstance(value, Const) and isinstance(value.value, bool | int | float | str | bytes | type(None)):
        return bool(value.value)
    return None


def _choice_of(base: Seq) -> Choice | None:
    """An item of a tuple of constants, at an index not known."""
    if base.kind != "tuple" or not base.items or len(base.items) > MAX_ITEMS:
        return None
    if not all(isinstance(item, Const) for item in base.items):
        return None
    return Choice(frozenset(item.value for item in base.items if isinstance(item, Const)))


def _tested_constants(tests: list[ast.expr]) -> tuple[str, set[object]] | None:
    """``x == "a"``, ``x == "b"``, ``x in ("c", "d")`` …: the one subject (a name or attribute,
    dumped) and every constant the tests compare it with; None for any other test."""
    subject: str | None = None
    constants: set[object] = set()
    for test in tests:
        if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
            return None
        left, right = test.left, test.comparators[0]
        if isinstance(test.ops[0], ast.Eq) and isinstance(left, ast.Constant):
            left, right = right, left
        if not isinstance(left, ast.Name | ast.Attribute) or any(
            not isinstance(n, ast.Name | ast.Attribute | ast.Load) for n in ast.walk(left)
        ):
            return None
        if isinstance(test.ops[0], ast.Eq) and isinstance(right, ast.Constant):
            constants.add(right.value)
        elif isinstance(test.ops[0], ast.In) and isinstance(right, ast.Tuple | ast.List | ast.Set):
            if not all(isinstance(e, ast.Constant) for e in right.elts):
                return None
            constants.update(e.value for e in right.elts if isinstance(e, ast.Constant))
        else:
            return None
        if subject not in (None, ast.dump(left)):
            return None
        subject = ast.dump(left)
    return (subject, constants) if subject is not None else None


def _is_true(test: ast.expr) -> bool:
    return isinstance(test, ast.Constant) and bool(test.value)


def _with_key(container: Seq, key: object, value: Value) -> Seq:
    """``d[key] = value`` on a dict whose keys are known."""
    keys, items = container.keys or (), container.items or ()
    if key in keys:
        at = keys.index(key)
        items = (*items[:at], value, *items[at + 1 :])
    elif len(keys) < MAX_ITEMS:
        keys, items = (*keys, key), (*items, value)
    else:
        return Seq(join(element(container), value), container.kind)
    return Seq(_join_many(list(items)), container.kind, items, keys=keys)


def _with_item(container: Value, value: Value) -> Value | None:
    if isinstance(container, Seq):
        return Seq(join(element(container), value), container.kind)
    if isinstance(container, Tensor):
        if isinstance(value, Tensor):
            return Tensor(container.nodes | value.nodes, container.grad or value.grad, None)
        return None
    return Seq(value, "list")


def _call_qualname(expr: ast.expr, value: Value) -> str:
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute | ast.Name):
        return _dotted(expr.func)
    return value.qualname if isinstance(value, Ref) else ""


def _dotted(expr: ast.expr) -> str:
    if isinstance(expr, ast.Name):
        return expr.id if expr.id != "autograd" else "torch.autograd"
    if isinstance(expr, ast.Attribute):
        return f"{_dotted(expr.value)}.{expr.attr}"
    return ""


def _is_grad_disabled(expr: ast.expr, qualname: str) -> bool:
    """``torch.set_grad_enabled(False)`` (a constant ``False`` only)."""
    if not qualname.endswith("set_grad_enabled") or not isinstance(expr, ast.Call) or not expr.args:
        return qualname.endswith(("no_grad", "inference_mode"))
    first = expr.args[0]
    return isinstance(first, ast.Constant) and first.value is False


def _decorated_no_grad(fn: FunctionNode) -> bool:
    for decorator in fn.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        if _dotted(target).endswith(("no_grad", "inference_mode")):
            return True
    return False


def _default_value(default: ast.expr | None) -> Value:
    if isinstance(default, ast.Constant):
        return Const(default.value)
    return UNKNOWN


def _flag(value: Value | None, positional: Value | None = None) -> bool | None:
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
    retain = _flag(given, positional[0] if positional else None)
    if given is not None or positional:
        return retain
    create = _flag(kwargs.get("create_graph"), positional[1] if len(positional) > 1 else None)
    return create if create is not False else False


def _thin_wrapper(roots: list[Tensor], reached: frozenset[int], free: Free) -> bool:
    """``scaler.scale(loss).backward()`` then ``loss.backward()``: one op apart, the same loss."""
    linked = free.root in reached or any(t.root is not None and t.root in free.reached for t in roots)
    return linked and len(free.reached ^ reached) <= 1


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


def _receiver_expr(node: ast.Call, arg_index: int | None) -> ast.expr | None:
    """The expression of the tensor being backwarded."""
    if arg_index is None:
        return node.func.value if isinstance(node.func, ast.Attribute) else None
    if len(node.args) > arg_index:
        return node.args[arg_index]
    for kw in node.keywords:
        if kw.arg in ("tensors", "outputs", "loss"):
            return kw.value
    return None
