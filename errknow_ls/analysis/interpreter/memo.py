"""Calls of the project's code that changed nothing, answered again without running them.

A training loop's body runs many times in one check (each loop twice, once more per way its
invariant ``if`` chains and its flags go, nested in the loops around it), and each run calls the
same helpers: a logger, a visualiser, a checkpoint writer, ``net_mode(train=True)``. Where the first
run of such a call changed nothing the analysis tracks and gave back a value that holds no graph, a
later call of the same function, with the same values, in the same context and from the same state,
runs the same way: it too changes nothing and gives back the same value. It is answered from here.

What "changed nothing" means is checked, not assumed: the state (the objects' attributes, the
freed and retained graphs, the removed hooks) and the module's names are equal before and after
the call, and so is every record the interpreter keeps (events, backwards, steps, hooks, the
ownership of parameters, the flags and tests noted), but for those that only grow with what any
run makes and that a later run would make again alike (graph nodes, serial numbers, the sets of
call sites seen). What "the same context" means is every input of a run beside the state and the
module's names: the values handed, the grad mode, the call depth and loop nesting (which bound
what the run unrolls), the branches a loop has chosen (``_forced``), the flags a refuting run
fixed, the forward hooks and cached parametrizations a module call runs under. The records are
not an input: a run appends to them, and never reads them to choose its course. A function that
rebinds its caller's names (``nonlocal``, ``global``) or is a generator is never remembered.
"""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Hashable
from dataclasses import dataclass
from weakref import WeakKeyDictionary

from errknow_ls.analysis.ownership import LASTING, GradientUse, Ownership
from errknow_ls.analysis.state import State
from errknow_ls.analysis.values import (
    Func,
    GradFn,
    HookHandle,
    Kwargs,
    NNModule,
    Opaque,
    Partial,
    Seq,
    Tensor,
    TransformedDist,
    Value,
    maybe_of,
)

GROWING = frozenset(
    {
        "nodes",
        "_serial",
        "loops",
        "forward_calls",
        "called_functions",
        "called_lambdas",
        "constant_factors",
        "steps",
        "total_steps",
        "_current_stmt",
        "state",
        "frames",
        "loop_stack",
        "module_calls",
        "optimizer_calls",
        "_origin_ids",
        "_counted_reads",
        "attributes_stored",
        "_invariant_memo",
        "_closures",
        "call_memo",
    }
)
"""The interpreter's attributes a call that changed nothing may still change: what any run adds
alike (graph nodes no value holds, serial numbers, loop records, the call sites seen, the names
of the functions it defined, which no value it gives back holds), the interpreter's own
position, the state (compared apart), and this memo. The ownership's gradient uses are compared
apart too: a call may add lasting ones (code not followed was handed a tensor), replayed."""

MAX_REMEMBERED = 4
"""States remembered for one call (function, values and context): a loop's runs see a few."""


@dataclass(frozen=True, slots=True)
class Remembered:
    """One call that changed nothing: the state it ran from (and left), what it gave back, and the
    lasting gradient uses it noted (the same at every call)."""

    state: tuple[object, ...]
    names: dict[str, Value]
    result: Value
    uses: tuple[GradientUse, ...] = ()


def state_of(state: State) -> tuple[object, ...]:
    """What a call may change of ``state`` (its own names are its own): copied, to compare."""
    return (dict(state.heap), dict(state.freed), dict(state.retained), state.dead, state.hooks_removed)


def same_state(state: State, remembered: tuple[object, ...]) -> bool:
    """``state`` is the one ``remembered``; the graphs freed are not compared where the remembered
    call's run did not look at them (``freed`` None: it ran no backward and read no saved tensor,
    the only steps whose course depends on what was freed)."""
    heap, freed, retained, dead, removed = remembered
    return (
        state.dead == dead
        and state.hooks_removed == removed
        and state.heap == heap
        and (freed is None or state.freed == freed)
        and state.retained == retained
    )


def without_freed(remembered: tuple[object, ...]) -> tuple[object, ...]:
    heap, _, retained, dead, removed = remembered
    return (heap, None, retained, dead, removed)


def lasting_uses_since(ownership: Ownership, count: int) -> tuple[GradientUse, ...] | None:
    """The gradient uses noted since there were ``count``, where each lasts (what code not followed
    was handed: the same at every call); None where one does not (it holds when it ran)."""
    added = tuple(ownership.uses[count:])
    return added if all(use.made == LASTING for use in added) else None


def records_of(attributes: dict[str, object]) -> tuple[object, ...]:
    """A fingerprint of the interpreter's records (its ``vars`` but ``GROWING``): each container
    by its size, each record (a dataclass) by its fields', each scalar by value, anything else by
    identity."""
    # (in the attributes' own order: the same interpreter's, before and after a call)
    return tuple(_fingerprint(value, 2) for name, value in attributes.items() if name not in GROWING)


_SCALARS = frozenset({bool, int, float, str, type(None)})
_CONTAINERS = frozenset({list, dict, set, frozenset, tuple})


def _fingerprint(value: object, depth: int) -> object:
    kind = type(value)
    if kind in _SCALARS:
        return value
    if kind in _CONTAINERS:
        return len(value)  # type: ignore[arg-type]  # (one of _CONTAINERS)
    if kind is Ownership:
        return tuple(_fingerprint(getattr(value, f), depth - 1) for f in _OWNERSHIP_RECORDS)
    if depth > 0 and dataclasses.is_dataclass(value) and not isinstance(value, type):
        return tuple(_fingerprint(getattr(value, f.name), depth - 1) for f in dataclasses.fields(value))
    return id(value)


_OWNERSHIP_RECORDS = tuple(f.name for f in dataclasses.fields(Ownership) if f.name != "uses")


def graph_free(value: Value) -> bool:
    """A value that holds no graph, reaches none through unknown code, and is told apart by nothing
    that depends on the call that made it (a module's origins, a function's closure, a tensor's
    identity, a node's id): the same for every call that gives it back."""
    if isinstance(value, NNModule | Opaque | GradFn | TransformedDist | HookHandle) or maybe_of(value):
        return False
    if isinstance(value, Tensor):
        return not (value.grad or value.identities or value.owners)
    if isinstance(value, Func):
        return value.closure is None
    if isinstance(value, Seq):
        return all(graph_free(item) for item in (value.item, *(value.items or ()), *(value.some_of or ())))
    if isinstance(value, Kwargs):
        return all(graph_free(item) for item in value.items.values())
    if isinstance(value, Partial):
        return graph_free(value.func) and all(
            graph_free(item) for item in (*value.args, *value.kwargs.values())
        )
    return True


_REBINDS: WeakKeyDictionary[ast.AST, bool] = WeakKeyDictionary()
"""What ``rebinds_outer_names`` worked out, by function: gone with the function's tree."""


def rebinds_outer_names(fn: ast.AST) -> bool:
    """``fn`` declares ``nonlocal`` or ``global`` names: a call of it may rebind names outside
    its frame, which the state compared does not hold."""
    known = _REBINDS.get(fn)
    if known is None:
        known = any(isinstance(node, ast.Nonlocal | ast.Global) for node in ast.walk(fn))
        _REBINDS[fn] = known
    return known


class CallMemo:
    """The calls of one entry point's run that changed nothing, by function, values and context."""

    def __init__(self) -> None:
        self.calls: dict[Hashable, list[Remembered]] = {}
        self.answered = 0

    def answer(self, key: Hashable, state: State, names: dict[str, Value]) -> Remembered | None:
        """The run of a call of ``key`` that changed nothing from this state, if one is known."""
        for remembered in self.calls.get(key, ()):
            if remembered.names == names and same_state(state, remembered.state):
                self.answered += 1
                return remembered
        return None

    def remember(self, key: Hashable, remembered: Remembered) -> None:
        known = self.calls.setdefault(key, [])
        if len(known) < MAX_REMEMBERED:
            known.append(remembered)
