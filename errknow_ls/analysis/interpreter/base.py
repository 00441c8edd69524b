"""What the interpreter's parts share: its state, its frames and loops, its budget, and the
methods each part gives the others (declared here, so that each part type-checks on its own)."""

from __future__ import annotations

import ast
import itertools
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Self
from weakref import WeakKeyDictionary

from errknow_ls.analysis.events import HookRegistration, Loop, Observation, RetainSite
from errknow_ls.analysis.interpreter.flag_ways import FlagKey, FlagTest, FlagWay
from errknow_ls.analysis.interpreter.fork import forked_attributes
from errknow_ls.analysis.interpreter.memo import CallMemo
from errknow_ls.analysis.modules import ModuleSource
from errknow_ls.analysis.ownership import (
    LASTING,
    GradientUse,
    Origins,
    Ownership,
    origins_in,
    tensor_roots,
)
from errknow_ls.analysis.state import Holder, Place, State
from errknow_ls.analysis.values import (
    UNKNOWN,
    UNSEEN,
    ClassInfo,
    Func,
    GradFn,
    GraphNode,
    Instance,
    ModuleRef,
    NNModule,
    Obj,
    Opaque,
    Seq,
    Tensor,
    TransformedDist,
    Value,
    maybe_of,
)

FROZEN = "__errknow_frozen__"
"""The attribute whose place on the heap holds a local module's ``requires_grad_(False)``."""

CACHE_SIZE = "_cache_size"
"""A ``torch.distributions.Transform``'s cache size, on the heap as torch keeps it."""
CACHED_X = "_cached_x_y"
"""The inversion a transform with ``cache_size=1`` keeps (torch keeps the pair under this name)."""
CACHE_SITE = "__errknow_cache_site__"
"""The call that gave a transform its cache size (a ``Const`` of the ``ast.Call``)."""
CACHED_Y = "__errknow_cached_input__"
"""What that inversion was of: a name's one binding in one call of its function (see
:meth:`AutogradMixin.same_object`), or None where the checker cannot tell the object again."""

STEP_BUDGET = 16_000
"""Statements one entry point may execute (more when its unit's budget is larger); what was found
before the budget runs out stands, and the stop is reported."""

GRAPH_NODE_BUDGET = 100_000
"""Graph nodes one interpreter may hold, at most: joins copy nodes under new ids (``twin``), and
loops of branches nested deep (GraphRNN's DGMG: a `while` over nodes, one over edges, each
iteration's branches joined) made 876,035 nodes in 1,222 statements and 3 GB before a budget of
statements stopped them. A run that reaches this stops as at the budget of statements."""

UNIT_BUDGET = 16_000
"""Statements all entry points of one unit (the module body, a function, a class) may execute
together, at most (see ``checker.unit_budget``). On the real-code corpus of 500 training
repositories (``benchmarks/check_real.py``, the twenty-fifth day), 8,000 left 978 notes of units
not fully checked, 16,000 leaves 782 for 14% more time, 32,000 602 for 36% more, and 64,000 419
for about twice the time and three more findings, each false when read in the code (one path
that cannot happen is since ruled out; the two others only runs the budget stopped showed). The
most demanding labelled program needs 716."""

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef

SOME_BRANCH = -1
"""A choice of an ``if`` chain without ``else`` (``Loops._invariant_choices``): one of its branches
runs, which one not fixed (where fixing each would take too many runs), never none of them."""


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
    carried: dict[Holder, Value] = field(default_factory=dict)
    entry: dict[Holder, Value] = field(default_factory=dict)
    over_tensors: bool = False
    """The loop walks a collection of tensors (``for loss in losses``)."""
    first_node: int = 0
    """How many graph nodes existed when the loop started: only later ones can be its own."""
    counter: str | None = None
    """The name a ``for`` over a range counts with, where its body never binds it again
    (``for i in reversed(range(steps))``): ``losses[i]`` is another item at every iteration."""


class InterpreterBase(ABC):
    """The state every part reads and changes. The parts are mixed into one ``Interpreter``
    (``core.py``); each reaches the others only through the methods declared at the end."""

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
        self.grad_mode_switches = 0
        """How many times a ``torch.set_grad_enabled(...)`` call switched the grad mode for what
        follows it (not only for a ``with`` block): a call, a branch or a summary it ran in cannot
        take the mode back to what it was before (see ``Autograd.switch_grad_mode``)."""
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
        self._guarded: frozenset[Holder] = frozenset()
        self._entry: dict[Holder, Value] = {}
        self._spelled: dict[Place, str] = {}
        self.forward_hooks: list[Value] = []
        """Functions registered with ``register_forward_hook``; every module call runs them."""
        self.hook_registrations: list[HookRegistration] = []
        """Where each of ``forward_hooks`` was registered, and what its runs were handed."""
        self.forward_calls: set[ast.AST] = set()
        """Calls resolved as a forward computation: a torch op, a tensor method, a module's forward
        (what a fix may re-run; see rules/fix_safety.py)."""
        self.optimizer_calls: set[ast.AST] = set()
        """Constructions of a torch optimizer (``torch.optim.Adam(...)``)."""
        self.caching: list[ast.AST] = []
        """The ``with parametrize.cached():`` statements running now, innermost last."""
        self.weight_norm_nodes: dict[int, tuple[ast.Call, str]] = {}
        """Each graph node the old ``weight_norm`` made (``NNModule.normed``), with the call that
        applied it and the qualified name that call resolved to."""
        self.weight_normed = False
        """The old ``weight_norm`` was applied to a module (``NNModule.normed``): only then are the
        modules held looked at when code the checker does not follow may run their forward pass."""
        self.cached_contexts: set[ast.AST] = set()
        """Every ``with parametrize.cached():`` statement that ran."""
        self.cached_reads: dict[ast.AST, frozenset[int]] = {}
        """Reads of a parametrized tensor (``model.coupling.weight``) that a cached context answered
        with the tensor it keeps: the graph nodes of that tensor."""
        self.module_calls: set[ast.AST] = set()
        """Calls of a library module (``nn.LSTMCell``): what they give back may be a tensor or a
        tuple of them, which the analysis does not tell apart."""
        self.called_functions: dict[ast.AST, set[ast.FunctionDef | ast.AsyncFunctionDef]] = {}
        """The functions and methods of the checked code each call site ran."""
        self.called_lambdas: dict[ast.AST, set[ast.Lambda]] = {}
        """The lambdas of the checked code each call site ran."""
        self.constant_factors: dict[ast.AST, float | None] = {}
        """Products and quotients of a tensor by a number (``weight * penalty``, ``loss / 4``): the
        number, where it was the same constant on every run of the site (None otherwise): the
        gradient the op hands its tensor is the incoming one times a fixed number."""
        self._in_hook = False
        self._raised = False
        self._raised_by: set[int] = set()
        """The frees (by id) a reported second pass went through: a later pass through the same one
        is the same bug (a grad of the failed grad's result)."""
        self._conditional = 0
        """Depth of expression parts that may not be evaluated (see ``_maybe_evaluated``)."""
        self._module_running = False
        """The module body runs from its top: its names are bound as far as the run got."""
        self._counted_reads: dict[tuple[int, int, int], int] = {}
        """The twin of a graph node that a read by a loop's counter made, by (loop key, iteration,
        node): the item such a read gives at one iteration is not the one it gives at another."""
        self._forced: dict[int, int] = {}
        """``if`` chains (by id) whose branch the current run of a loop has chosen."""
        self.allocations: dict[int, tuple[str, int, int]] = {}
        """Where each object of the checked code's classes was built (by its id): the module (""
        for the checked text), line and column of the call. Ids differ between runs that take other
        paths; the place does not (see ``flags.py``)."""
        self.tested_flags: dict[FlagKey, set[FlagTest]] = {}
        """Objects' attributes (by where the object was built, and name) and options tested where
        their value was not known, with the form, the place (the test's id) and the constants of
        each test (see ``flags.py``)."""
        self.fixed_flags: dict[FlagKey, FlagWay] = {}
        """The ways this run takes such attributes, each at all its tests (see ``flags.py``)."""
        self.attributes_stored: set[str] = set()
        """The attribute names this run assigned, on any object (an option's must not be)."""
        self.split_retests = False
        """This run splits at tests a block repeats (see ``retests.py``)."""
        self.retest_truths: dict[tuple[int, str], bool] = {}
        """The tests (by frame and text) a split decides, with how, while it runs."""
        self._repeats: dict[ast.If, int | None] = {}
        """Each ``if``'s last repeat in its block, counted from it (see ``Retests._last_repeat``)."""
        self._declared: frozenset[str] | None = None
        """Names a ``global`` or ``nonlocal`` declares, once known."""
        self._flag_tests: dict[int, tuple[ast.If, int | None]] = {}
        """``if`` statements a run of a loop went both ways on, testing an object's attribute
        (``if self.tuning:`` in a method the loop calls), by id, with the object's id (None when
        runs tested it on several objects): see ``Loops.exec_loop``."""
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
        self.ownership = Ownership()
        """Which origins each optimizer was handed, and what else sees gradients (ownership.py)."""
        self._origin_ids: dict[tuple[int, ...], int] = {}
        self.isolated = False
        """This interpreter runs a function on markers to summarise it (see ``summarize.py``): it
        asks for no summary itself."""
        self.flag_notes = 0
        """How many times a run noted a flag test (``_flag_tests``): a call that noted one changed
        what its loop splits on, even where it noted a test already noted."""
        self._settable: tuple[int, frozenset[str]] | None = None
        """``attributes_set_anywhere()``, with how many modules had been read when it was worked
        out (a module read later may set more)."""
        self.saved_reads = 0
        """How many reads of a node's saved tensors ran: with the ticks of backwards, what tells a
        call whose course cannot depend on the graphs freed (see ``memo.py``)."""
        self.call_memo = CallMemo()
        """The calls of the current entry point's run that changed nothing (see ``memo.py``)."""

    def serial_now(self) -> int:
        """The serial number the next frame (or module read) takes; taking it changes nothing."""
        now = next(self._serial)
        self._serial = itertools.count(now)
        return now

    def fork(self) -> Self:
        """An interpreter that goes on from where this one is, apart from it: what either runs
        next, the other does not see (see ``fork.py``)."""
        twin = object.__new__(type(self))
        vars(twin).update(forked_attributes(vars(self), self.serial_now()))
        return twin

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

    def _home(self) -> str | None:
        """The other module whose code runs now (None: the checked text)."""
        return self.frames[-1].module if self.frames else None

    # ----------------------------------------------------------------- parameters (ownership.py)

    def origin(self, site: ast.AST) -> int:
        """The origin a constructor call at ``site`` makes, under the calls that run it now: one
        helper called from two places makes two modules."""
        key = (*(id(f.call_site) for f in self.frames if f.call_site is not None), id(site))
        made = key in self._origin_ids
        origin = self._origin_ids.setdefault(key, len(self._origin_ids))
        if made:  # run again under the same calls (a comprehension, a loop): several modules
            self.ownership.several.add(origin)
        return origin

    def object_origin(self, obj: Obj) -> int:
        """The origin of an object of the checked code's own class (its own parameters)."""
        return self._origin_ids.setdefault((-1, obj.oid), len(self._origin_ids))

    def closure(self, obj: Obj) -> Origins:
        """The origins an object holds: its own, and what its attributes hold now (modules,
        parameters, other objects, containers of them); None where one is not known."""
        found: set[int] = set()
        pending, seen = [obj], set()
        while pending:
            current = pending.pop()
            if current.oid in seen:
                continue
            seen.add(current.oid)
            found.add(self.object_origin(current))
            for place, value in self.state.heap.items():
                if place.object_id != current.oid:
                    continue
                if isinstance(value, Obj):
                    pending.append(value)
                    continue
                held = origins_in(value, self._no_closure)
                if held is None:
                    return None
                found |= held
                pending.extend(_objects_in(value))
        return frozenset(found)

    @staticmethod
    def _no_closure(_obj: Obj) -> Origins:
        return frozenset()  # objects in containers are walked by ``closure`` itself

    def origins_of(self, value: Value, *, params: bool = False, strict: bool = False) -> Origins:
        return origins_in(value, self.closure, params=params, strict=strict)

    def note_gradient_use(
        self, value: Value, how: str, *, lasting: bool = False, through: frozenset[int] | None = None
    ) -> None:
        """Something other than an optimizer sees the gradients of ``value`` (its tensors' own
        nodes, and the parameters it holds), over the graph ``through`` (None: any); ``lasting``:
        from now on (a hook), not only now."""
        origins = self.origins_of(value, strict=True)
        made = LASTING if lasting else len(self.nodes)
        self.ownership.uses.append(GradientUse(tensor_roots(value), origins, how, made, through))

    def note_escape(self, given: Sequence[Value]) -> None:
        """Code the checker does not follow was handed ``given``: it may see their gradients."""
        for value in given:
            roots = tensor_roots(value)
            origins = self.origins_of(value)
            if roots or origins is None or origins:
                self.ownership.uses.append(GradientUse(roots, origins, "unknown code", LASTING))

    def forget_rebindable_places(self, given: Sequence[Value]) -> None:
        """Code of the project that is not followed (a call too deep, a recursion) was handed
        ``given``: it may rebind any attribute that some code sets outside a constructor (any at
        all where code calls ``setattr``) on each object it can reach. What those places held is
        no longer known (it may still hold what it held: its nodes are possible, not proven)."""
        pending = [obj.oid for value in given for obj in _objects_in(value)]
        if not pending:
            return
        held: dict[int, list[Place]] = {}
        for place in self.state.heap:
            held.setdefault(place.object_id, []).append(place)
        settable = self.attributes_set_anywhere()
        every = "*" in settable
        seen: set[int] = set()
        while pending:
            current = pending.pop()
            if current in seen:
                continue
            seen.add(current)
            for place in held.get(current, ()):
                value = self.state.heap[place]
                pending.extend(obj.oid for obj in _objects_in(value))
                if every or place.attribute in settable:
                    self.state.heap[place] = Opaque(maybe_of(value) | {UNSEEN})

    def link(self, *values: Value) -> None:
        """``values`` now share parameters (an attribute of a module set to another's weight)."""
        found: set[int] = set()
        for value in values:
            origins = self.origins_of(value)
            if origins is None:
                changed = GradientUse(frozenset(), None, "a module changed", LASTING)
                self.ownership.uses.append(changed)
                return
            found |= origins
        if len(found) > 1:
            self.ownership.links.append(frozenset(found))

    def _new_key(self) -> int:
        return next(self._serial)

    def _in_loop(self) -> bool:
        return bool(self.frames and self.frames[-1].loops)

    def _loop_context(self) -> LoopContext:
        return self.frames[-1].loops[-1]

    # ----------------------------------------------------------------- given by statements.py

    @abstractmethod
    def exec_block(self, stmts: Sequence[ast.stmt]) -> None: ...

    @abstractmethod
    def exec_apart(self, runs: Sequence[Callable[[], None]], fallthrough: bool) -> None: ...

    @abstractmethod
    def exec_stmt(self, stmt: ast.stmt) -> None: ...

    @abstractmethod
    def _exhaustive(self, tests: list[ast.expr]) -> bool: ...

    @abstractmethod
    def assign(self, target: ast.expr, value: Value) -> None: ...

    @abstractmethod
    def assign_place(self, target: ast.expr, value: Value) -> None: ...

    @abstractmethod
    def forget_keys(self, target: ast.expr, held: Value) -> None: ...

    # ----------------------------------------------------------------- given by loops.py

    @abstractmethod
    def exec_loop(
        self,
        stmt: ast.stmt,
        body: list[ast.stmt],
        orelse: list[ast.stmt],
        *,
        target: ast.expr | None = None,
        items: Value = UNKNOWN,
        test: ast.expr | None = None,
    ) -> None: ...

    # ----------------------------------------------------------------- given by expressions.py

    @abstractmethod
    def test_truth(self, test: ast.expr) -> bool | None: ...

    @abstractmethod
    def eval(self, expr: ast.expr) -> Value: ...

    @abstractmethod
    def binop(self, left: Value, right: Value, op: ast.operator, expr: ast.AST) -> Value: ...

    @abstractmethod
    def attribute(self, owner: Value, attr: str, expr: ast.expr) -> Value: ...

    # ----------------------------------------------------------------- given by calls.py

    @abstractmethod
    def call(self, node: ast.Call) -> Value: ...

    @abstractmethod
    def call_value(
        self, callee: Value, name: str, args: list[Value], kwargs: dict[str, Value], node: ast.Call
    ) -> Value: ...

    @abstractmethod
    def unknown_call(self, args: list[Value], kwargs: dict[str, Value]) -> Value: ...

    @abstractmethod
    def iterated(self, items: Value, iterable: ast.expr) -> Value: ...

    @abstractmethod
    def call_function(
        self,
        func: Func,
        args: list[Value],
        kwargs: dict[str, Value],
        node: ast.Call | None,
        unknown_args: bool = False,
    ) -> Value: ...

    @abstractmethod
    def instantiate(
        self,
        info: ClassInfo,
        args: list[Value],
        kwargs: dict[str, Value],
        node: ast.Call | None,
        unknown_args: bool = False,
    ) -> Obj: ...

    # ----------------------------------------------------------------- given by loops.py

    @abstractmethod
    def attributes_set_anywhere(self) -> frozenset[str]: ...

    # ----------------------------------------------------------------- given by flags.py

    @abstractmethod
    def flag_truth(self, test: ast.expr) -> bool | None: ...

    # ----------------------------------------------------------------- given by retests.py

    @abstractmethod
    def retest_truth(self, test: ast.expr) -> bool | None: ...

    @abstractmethod
    def split_until(self, stmts: Sequence[ast.stmt], index: int) -> int | None: ...

    @abstractmethod
    def exec_split(self, test: ast.expr, stmts: Sequence[ast.stmt]) -> None: ...

    @abstractmethod
    def rebindable_names(self) -> frozenset[str]: ...

    # ----------------------------------------------------------------- given by summarize.py

    @abstractmethod
    def summarised_call(
        self, func: Func, args: list[Value], kwargs: dict[str, Value], node: ast.Call | None
    ) -> Value | None: ...

    # ----------------------------------------------------------------- given by autograd.py

    @abstractmethod
    def op_node(self, site: ast.AST, inputs: Sequence[Value], *, saves: bool) -> Value: ...

    @abstractmethod
    def new_node(
        self,
        site: ast.AST,
        inputs: frozenset[int],
        *,
        saves: bool,
        learns: bool = False,
        every_input_grad: bool = False,
        origins: Origins = frozenset(),
    ) -> Tensor: ...

    @abstractmethod
    def twin(self, node_id: int) -> int: ...

    @abstractmethod
    def tensor_method(
        self, receiver: Tensor, attr: str, args: list[Value], kwargs: dict[str, Value], node: ast.Call
    ) -> Value: ...

    @abstractmethod
    def module_method(
        self, module: NNModule, attr: str, args: list[Value], kwargs: dict[str, Value], node: ast.Call
    ) -> Value: ...

    @abstractmethod
    def library_method(
        self, receiver: Instance, attr: str, args: list[Value], kwargs: dict[str, Value], node: ast.Call
    ) -> Value: ...

    @abstractmethod
    def distribution_method(
        self,
        receiver: TransformedDist,
        attr: str,
        args: list[Value],
        kwargs: dict[str, Value],
        node: ast.Call,
    ) -> Value: ...

    @abstractmethod
    def torch_call(
        self, qualname: str, short: str, args: list[Value], kwargs: dict[str, Value], node: ast.Call
    ) -> Value: ...

    @abstractmethod
    def call_module(
        self,
        args: list[Value],
        kwargs: dict[str, Value],
        node: ast.Call,
        *,
        frozen: bool = False,
        origins: Origins = None,
        carries: frozenset[int] = frozenset(),
    ) -> Value: ...

    @abstractmethod
    def cached_weight(self, module: NNModule, node: ast.Call) -> NNModule: ...

    @abstractmethod
    def static_method(self, method: ast.FunctionDef | ast.AsyncFunctionDef) -> bool: ...

    @abstractmethod
    def weight_norm_hook(self, module: NNModule, node: ast.Call) -> NNModule: ...

    @abstractmethod
    def forget_weight_norms(self, given: Sequence[Value] | None) -> None: ...

    @abstractmethod
    def end_caching(self) -> None: ...

    @abstractmethod
    def _run_forward_hooks(self, output: Value, args: list[Value], node: ast.Call) -> Value: ...

    @abstractmethod
    def _note_step(self, site: ast.AST, origins: Origins = None) -> None: ...

    @abstractmethod
    def _note_freezing_loop(self, target: ast.expr, iterable: ast.expr, body: list[ast.stmt]) -> None: ...

    # ----------------------------------------------------------------- given by backward.py

    @abstractmethod
    def backward_call(  # noqa: PLR0917
        self,
        node: ast.Call,
        tensors: Value,
        kwargs: dict[str, Value],
        receiver: ast.expr | None,
        positional: Sequence[Value] = (),
        reach: frozenset[int] | None = None,
    ) -> Value: ...

    @abstractmethod
    def autograd_grad(self, node: ast.Call, args: list[Value], kwargs: dict[str, Value]) -> Value: ...

    @abstractmethod
    def _read_saved(self, grad_fn: GradFn, expr: ast.expr) -> None: ...

    @abstractmethod
    def _note_unknown_reach(self, given: list[Value]) -> None: ...

    # ----------------------------------------------------------------- given by imports.py

    @abstractmethod
    def _import(self, name: str, level: int) -> ModuleRef | None: ...

    @abstractmethod
    def _import_from(self, module: str | None, names: list[ast.alias], level: int) -> None: ...

    @abstractmethod
    def _import_package(self, dotted: str, held: Value | None) -> Value: ...


def _objects_in(value: Value) -> list[Obj]:
    """The objects of the checked code's classes a container holds."""
    found: list[Obj] = []
    pending = [value]
    while pending:
        current = pending.pop()
        if isinstance(current, Obj):
            found.append(current)
        elif isinstance(current, Seq):
            pending.extend(current.items if current.items is not None else (current.item,))
    return found


def func_node(func: FunctionNode | ast.Lambda | None) -> FunctionNode | None:
    return func if isinstance(func, ast.FunctionDef | ast.AsyncFunctionDef) else None


_GENERATORS: WeakKeyDictionary[FunctionNode, bool] = WeakKeyDictionary()


def is_generator(func: FunctionNode | None) -> bool:
    """``func`` yields (worked out once per function: it is asked at each call of it)."""
    if func is None:
        return False
    found = _GENERATORS.get(func)
    if found is None:
        found = _GENERATORS[func] = any(isinstance(n, ast.Yield | ast.YieldFrom) for n in ast.walk(func))
    return found
