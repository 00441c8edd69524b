"""Summaries of the project's own functions (see ``analysis/summaries.py``): working one out by
running the function on markers in an interpreter of its own, and answering a call with it.

A summary is asked only for a plain function of another module of the project (not a method, not
a closure, not a generator), called with tensors, numbers, constants or unknown values, from code
whose module names the body reads are constants, imported names or unknown. Its key is the hash of
the module's text, the function's place in it, the kinds of the arguments, what the body's free
names hold, and whether gradients are off: everything the run on markers depends on.

The run on markers cannot see the caller's state, so a summary is refused where the body could
touch it: statements that store into attributes, items or globals, define functions or classes,
import, yield, call a method that changes its receiver in place, or test an attribute of a name
(a loop splits on such tests); the markers' graph nodes are set as freed and as retained, so a
read of what a backward freed or a reach of what one retained shows up as an effect of the run.
"""

from __future__ import annotations

import ast
import itertools
import json
import math
from collections.abc import Sequence
from typing import cast
from weakref import WeakKeyDictionary

from errknow_ls.analysis.events import Loop, RetainSite
from errknow_ls.analysis.interpreter.base import STEP_BUDGET, BudgetExceeded, InterpreterBase, is_generator
from errknow_ls.analysis.ownership import Ownership
from errknow_ls.analysis.state import Free, Retain, State
from errknow_ls.analysis.summaries import INLINE_SUMMARY, SUMMARIES, HasSummaries, Summary
from errknow_ls.analysis.values import (
    NUMBER,
    UNKNOWN,
    Const,
    Func,
    Number,
    Ref,
    Seq,
    Tensor,
    Unknown,
    Value,
)

PRIMITIVES = (type(None), bool, int, float, str)


class Summarize(InterpreterBase):
    """Answers calls of the project's functions with their summaries, where one answers."""

    def summarised_call(
        self, func: Func, args: list[Value], kwargs: dict[str, Value], node: ast.Call | None
    ) -> Value | None:
        """The result of calling ``func`` from its summary, with the summary's effects replayed;
        None where the body must run (no summary fits, or its verdict is inline)."""
        if not SUMMARIES.enabled:
            return None
        asked = self._summary_key(func, args, kwargs)
        if isinstance(asked, str):
            SUMMARIES.stats.inline(asked)
            return None
        module_digest, key = asked
        backing = self.modules.summaries if isinstance(self.modules, HasSummaries) else None
        summary = SUMMARIES.get(module_digest, key, backing)
        if summary is None:
            summary = self._work_out(func, args, kwargs)
            SUMMARIES.put(module_digest, key, summary, backing)
        result = self._apply(summary, func, args, kwargs, node)
        if isinstance(result, str):
            SUMMARIES.stats.inline(result)
            return None
        SUMMARIES.stats.applied += 1
        return result

    # ----------------------------------------------------------------- the key

    def _summary_key(self, func: Func, args: list[Value], kwargs: dict[str, Value]) -> tuple[str, str] | str:
        """The summary's key (the module's hash, the rest), or why no summary is asked."""
        fn = func.node
        if func.module is None or func.bound is not None or func.closure is not None:
            return "a method or a closure"
        if not isinstance(fn, ast.FunctionDef) or "**" in kwargs or self.state.dead:
            return "an async function or a call with **"
        module_digest = self.read.get(func.module)
        names = self._free_names(fn)
        if module_digest is None or names is None:
            return "its body reaches past its names"
        shapes = [_shape(v) for v in args] + [_shape(v, k) for k, v in sorted(kwargs.items())]
        if any(s is None for s in shapes):
            return "an argument no marker stands for"
        namespace = self.namespaces.get(func.module, {})
        held = [_held(namespace.get(name)) for name in names]
        if any(h is None for h in held):
            return "a name of its module it reads holds an object"
        free = ",".join(f"{name}:{h}" for name, h in zip(names, held, strict=True))
        flags = f"{int(self.no_grad)}{int(bool(self._conditional))}{int(self._module_running)}"
        where = f"{fn.lineno}:{fn.col_offset}:{fn.name}"
        return module_digest, "|".join([where, flags, ";".join(cast("list[str]", shapes)), free])

    # ----------------------------------------------------------------- working one out

    def _free_names(self, fn: ast.FunctionDef) -> tuple[str, ...] | None:
        """The names the body reads or binds, sorted; None where its body reaches past its own
        names (worked out once per function)."""
        if fn not in _FREE_NAMES:
            names = tuple(sorted({n.id for n in ast.walk(fn) if isinstance(n, ast.Name)}))
            _FREE_NAMES[fn] = (names if _plain_body(fn) else None,)
        return _FREE_NAMES[fn][0]

    def _work_out(self, func: Func, args: list[Value], kwargs: dict[str, Value]) -> Summary:
        """Run ``func`` once on markers in an interpreter of its own; what it did, as a summary."""
        assert func.module is not None and isinstance(func.node, ast.FunctionDef)
        fn = func.node
        tree = self.trees.get(func.module)
        if tree is None:
            return INLINE_SUMMARY
        alone = type(self)(tree, STEP_BUDGET, None)
        alone.isolated = True
        alone.namespaces = {func.module: dict(self.namespaces.get(func.module, {}))}
        alone.trees = {func.module: tree}
        alone.no_grad, alone._conditional, alone._module_running = (
            self.no_grad,
            self._conditional,
            self._module_running,
        )
        wire = _Tripwire(alone)
        markers = [wire.marker(v) for v in args]
        kw_markers = {k: wire.marker(v) for k, v in kwargs.items()}
        first = alone.serial_now()
        try:
            result = alone.call_function(Func(fn, None, None, func.module), markers, kw_markers, None)
        except (BudgetExceeded, RecursionError):
            return INLINE_SUMMARY
        serials = alone.serial_now() - first
        if alone.state.dead or not wire.untouched() or alone.grad_mode_switches:
            return INLINE_SUMMARY  # (a switch of the grad mode outlives the call)
        places = {id(n): i for i, n in enumerate(ast.walk(fn))}
        calls = [places.get(id(c)) for c in alone.forward_calls]
        last = alone._current_stmt
        last_place = places.get(id(last)) if last is not None else None
        if any(c is None for c in calls) or (last is not None and last_place is None):
            return INLINE_SUMMARY
        spelled = _spell(result, markers, kw_markers)
        if spelled is None or _unspell(spelled, markers, kw_markers) != result:
            return INLINE_SUMMARY
        return Summary(spelled, alone.steps, serials, tuple(sorted(cast("list[int]", calls))), last_place)

    # ----------------------------------------------------------------- applying one

    def _apply(
        self, summary: Summary, func: Func, args: list[Value], kwargs: dict[str, Value], node: ast.Call | None
    ) -> Value | str:
        """What the call gives, its effects replayed; or why the body must run."""
        if summary.inline:
            return "its verdict is inline"
        if (
            self.steps + summary.steps > max(STEP_BUDGET, self.budget)
            or self.total_steps + summary.steps > self.budget
        ):
            return "the budget"  # the budget runs out inside: running it stops where it would
        result = _unspell(summary.result, args, kwargs)
        fn = cast("ast.FunctionDef", func.node)
        places = [*summary.forward_calls, *([] if summary.last_stmt is None else [summary.last_stmt])]
        walked = _walked(fn) if places else ()
        if result is None or any(not 0 <= i < len(walked) for i in places):
            return "a kept summary that does not fit"
        self.steps += summary.steps
        self.total_steps += summary.steps
        self._serial = itertools.count(self.serial_now() + summary.serials)
        if node is not None:
            self.called_functions.setdefault(node, set()).add(fn)
        self.forward_calls.update(walked[i] for i in summary.forward_calls)
        if summary.last_stmt is not None:
            self._current_stmt = cast("ast.stmt", walked[summary.last_stmt])
        after = self.state.copy()  # as the join of the body's ends makes a new state...
        after.env = self.state.env  # ...in which the caller's names are its own again
        self.state = after
        return result


_FREE_NAMES: WeakKeyDictionary[ast.FunctionDef, tuple[tuple[str, ...] | None]] = WeakKeyDictionary()
"""What ``_free_names`` worked out, by function: the same in every unit and check that calls it."""
_WALKED: WeakKeyDictionary[ast.FunctionDef, tuple[ast.AST, ...]] = WeakKeyDictionary()


def _walked(fn: ast.FunctionDef) -> tuple[ast.AST, ...]:
    """The function's nodes in the order of ``ast.walk`` (by which a summary names its places),
    listed once per function rather than at each call a summary answers."""
    found = _WALKED.get(fn)
    if found is None:
        found = _WALKED[fn] = tuple(ast.walk(fn))
    return found


class _Tripwire:
    """The markers of one run on markers, and what shows that the run touched more than them."""

    def __init__(self, alone: InterpreterBase) -> None:
        self.alone = alone
        self.site = ast.Call(ast.Name("marker", ast.Load()), [], [], lineno=0, col_offset=0)
        self.retain = RetainSite(self.site, Loop(-1, None))
        alone.retain_sites[id(self.site)] = self.retain
        alone.state = State()

    def marker(self, value: Value) -> Value:
        """A value of ``value``'s kind whose graph nodes are the run's own (freed and retained)."""
        if not isinstance(value, Tensor):
            return value  # a constant, a number, unknown: as it is
        nodes = self._node() if value.nodes else frozenset()
        root = min(nodes) if value.root is not None and nodes else None
        identities = (self._node() if value.identities else frozenset()) | (
            nodes if value.identities and nodes else frozenset()
        )
        owners = None if value.owners is None else (frozenset({-2}) if value.owners else frozenset())
        return Tensor(nodes, value.grad, root, frozenset(), owners, identities)

    def _node(self) -> frozenset[int]:
        made = self.alone.new_node(self.site, frozenset(), saves=True, every_input_grad=True)
        node_id = cast("int", made.root)
        self.alone.state.freed[node_id] = Free(self.site, None, (), 0, "marker")
        self.alone.state.retained[node_id] = Retain(self.site, ())
        return frozenset({node_id})

    def untouched(self) -> bool:
        """The run made nothing and changed nothing but its result (and the calls a fix may re-run)."""
        alone, state = self.alone, self.alone.state
        wire = self.retain
        return (
            len(alone.nodes) == len(state.freed)
            and not (wire.justified or wire.reached_later or wire.unseen)
            and len(alone.retain_sites) == 1
            and not alone.events
            and not alone.loops
            and alone.tick == 0
            and alone.step_tick == -1
            and not alone.stepping
            and not alone.forward_hooks
            and not alone._closures
            and not alone.called_functions
            and not alone._raised_by
            and not alone._raised
            and not alone._dead_reads
            and not alone.optimizer_calls
            and not alone.caching
            and not alone.cached_contexts
            and not alone.cached_reads
            and not alone.module_calls
            and alone.ownership == Ownership()
            and not alone._origin_ids
            and not alone._flag_tests
            and not alone.classes
            and len(alone.namespaces) == 1
            and not alone.read
            and not alone._spelled
            and alone.stopped is None
            and not state.heap
            and not state.hooks_removed
            and all(f.site is self.site for f in state.freed.values())
            and all(r.site is self.site for r in state.retained.values())
        )


def _plain_body(fn: ast.FunctionDef) -> bool:
    """Nothing in the body reaches past its own names (see the module's docstring)."""
    if is_generator(fn):
        return False
    for node in ast.walk(fn):
        if node is fn:
            continue
        if isinstance(
            node,
            ast.Global
            | ast.Nonlocal
            | ast.Import
            | ast.ImportFrom
            | ast.FunctionDef
            | ast.AsyncFunctionDef
            | ast.ClassDef
            | ast.Lambda
            | ast.Await,
        ):
            return False
        if isinstance(node, ast.Attribute | ast.Subscript | ast.Starred) and not isinstance(
            node.ctx, ast.Load
        ):
            return False
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            attr = node.func.attr
            if attr.endswith("_") and not attr.endswith("__"):
                return False  # changes its receiver in place, which the caller may hold
        if isinstance(node, ast.If) and _tests_an_attribute(node.test):
            return False
    return True


def _tests_an_attribute(test: ast.expr) -> bool:
    tested = test.operand if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) else test
    return isinstance(tested, ast.Attribute) and isinstance(tested.value, ast.Name)


def _shape(value: Value, name: str = "") -> str | None:
    """What of an argument a run on markers may depend on (with its name, given by name); None
    where no marker stands for it."""
    shape = _kind(value)
    return None if shape is None else f"{name}={shape}" if name else shape


def _kind(value: Value) -> str | None:
    match value:
        case Tensor(maybe=maybe) if maybe:
            return None
        case Tensor(nodes=nodes, root=root) if root is not None and not nodes:
            return None
        case Tensor():
            owners = "?" if value.owners is None else str(int(bool(value.owners)))
            flags = (value.grad, value.nodes, value.root is not None, value.identities)
            return "T" + "".join(str(int(bool(f))) for f in flags) + owners
    return _plain(value)


def _held(value: Value | None) -> str | None:
    """What a free name of the body holds in its module, spelled; None where that cannot be."""
    match value:
        case None:
            return "-"
        case Ref(qualname=qualname):
            return "R" + qualname
        case Func(node=ast.FunctionDef() as node, bound=None, closure=None, module=module):
            return f"F{module}:{node.lineno}:{node.col_offset}"
    return _plain(value)


def _plain(value: Value) -> str | None:
    """A constant, a number or an unknown, spelled (as an argument and as a free name alike);
    None for anything else."""
    match value:
        case Const(value=inner) if _primitive(inner):
            return "C" + json.dumps(inner)
        case Number():
            return "N"
        case Unknown():
            return "U"
    return None


def _primitive(value: object) -> bool:
    if isinstance(value, float):
        return math.isfinite(value)
    return isinstance(value, PRIMITIVES) and (not isinstance(value, str) or len(value) <= 200)


def _spell(value: Value, markers: list[Value], kw_markers: dict[str, Value]) -> object | None:
    """``value`` in terms of the markers, for a store; None where it cannot be."""
    for index, marker in enumerate(markers):
        if value is marker and isinstance(marker, Tensor):
            return ["param", index]
    for name, marker in kw_markers.items():
        if value is marker and isinstance(marker, Tensor):
            return ["kw", name]
    match value:
        case Const(value=inner) if _primitive(inner):
            return ["const", inner]
        case Number():
            return ["number"]
        case Unknown():
            return ["unknown"]
        case Tensor() if value == Tensor(grad=False):
            return ["detached"]
        case Seq(some_of=None, keys=None, items=items):
            item = _spell(value.item, markers, kw_markers)
            spelled = [_spell(i, markers, kw_markers) for i in items] if items is not None else None
            if item is None or (spelled is not None and any(s is None for s in spelled)):
                return None
            counting = list(value.counting) if value.counting is not None else None
            return ["seq", item, value.kind, spelled, value.least, counting]
    return None


def _unspell(spelled: object, args: Sequence[Value], kwargs: dict[str, Value]) -> Value | None:
    """The value :func:`_spell` spelled, with ``args`` and ``kwargs`` for the markers."""
    if not isinstance(spelled, list) or not spelled:
        return None
    match spelled:
        case ["param", int() as index] if 0 <= index < len(args):
            return args[index]
        case ["kw", str() as name] if name in kwargs:
            return kwargs[name]
        case ["const", inner] if _primitive(inner):
            return Const(inner)
        case ["number"]:
            return NUMBER
        case ["unknown"]:
            return UNKNOWN
        case ["detached"]:
            return Tensor(grad=False)
        case ["seq", item, str() as kind, items, int() as least, counting]:
            inner = _unspell(item, args, kwargs)
            parts = None if items is None else [_unspell(i, args, kwargs) for i in items]
            pair = tuple(counting) if isinstance(counting, list) and len(counting) == 2 else None
            if inner is None or (parts is not None and any(p is None for p in parts)):
                return None
            if counting is not None and (pair is None or not all(type(c) is int for c in pair)):
                return None
            return Seq(
                inner,
                kind,
                None if parts is None else tuple(cast("list[Value]", parts)),
                least,
                counting=cast("tuple[int, int] | None", pair),
            )
    return None
