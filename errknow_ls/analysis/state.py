"""The interpreter's state at one program point, and how two states join after a branch."""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from itertools import compress
from operator import is_not
from typing import NamedTuple, TypeVar

from errknow_ls.analysis.values import Value, join, nodes_of, renamed

K = TypeVar("K")


@dataclass(frozen=True, slots=True)
class Entry:
    """Where a backward in another module of the project was reached from the checked text: the
    call here that ran it, and the argument of that call its receiver is bound to (None: the
    backward has no receiver)."""

    call: ast.Call
    receiver: ast.expr | None
    frame: int
    """The serial of the frame here that made the call."""
    run: int
    """The serial of the frame the call ran: one per run of the call."""


@dataclass(frozen=True, slots=True)
class Free:
    """A backward that freed a node: where, from which root, inside which loop iterations."""

    site: ast.Call
    root: int | None
    loops: tuple[tuple[int, int], ...]
    tick: int
    label: str
    reached: frozenset[int] = frozenset()
    module: str | None = None
    """The other module of the project it ran in (None: the checked text)."""
    entered: Entry | None = None
    """With ``module``: the call in the checked text through which it ran."""
    identities: frozenset[int] = frozenset()
    """Which tensors it backwarded (see ``Tensor.identities``)."""
    operands: tuple[tuple[str, Value], ...] | None = None
    """What each name and attribute its receiver expression reads held when it ran (None: one
    could not be read without running code): the same expression over the same values is the
    same loss computed again."""


@dataclass(frozen=True, slots=True)
class Retain:
    """A backward with ``retain_graph=True`` that kept a node alive."""

    site: ast.Call
    loops: tuple[tuple[int, int], ...]


class Place(NamedTuple):
    """An attribute of one object of a class the checked code defines: where the heap keeps what
    ``self.<attribute>`` holds in the methods of the object ``object_id`` (its ``Obj.oid``).

    A named tuple, not a dataclass: the heap is read at every attribute and merged at every join,
    and a tuple hashes and compares in C (a frozen dataclass's, in Python, took 0.7% of a profiled
    check of the labelled programs)."""

    object_id: int
    attribute: str

    def describe(self) -> str:
        """The place as the object's own methods spell it: ``self.<attribute>``."""
        return f"self.{self.attribute}"


Holder = str | Place
"""What holds a value at a program point: a name, or a place on the heap."""


@dataclass(slots=True)
class State:
    env: dict[str, Value] = field(default_factory=dict)
    heap: dict[Place, Value] = field(default_factory=dict)
    freed: dict[int, Free] = field(default_factory=dict)
    retained: dict[int, Retain] = field(default_factory=dict)
    dead: bool = False
    hooks_removed: frozenset[int] = frozenset()
    """Forward hooks (by registration) whose handle's ``remove()`` ran on every path here."""

    def held(self) -> frozenset[int]:
        """Nodes some variable still reaches. A node freed on one path only counts after a join
        if that path still holds it: a branch that backwards and then resets or detaches what it
        backwarded (truncated BPTT every k steps) leaves nothing stale behind."""
        return _held_by([*self.env.values(), *self.heap.values()])

    def copy(self) -> State:
        env, heap, freed, retained = dict(self.env), dict(self.heap), dict(self.freed), dict(self.retained)
        return State(env, heap, freed, retained, self.dead, self.hooks_removed)

    def join(self, other: State, alias: Alias | None = None) -> State:
        """The state that may be either; a dead state (after return/break) adds nothing.

        A node one path freed and the other did not is, on the other path, another node (``alias``
        makes its twin): after the join, a value that holds it only because the other path holds
        it does not reach a freed graph (a list of losses emptied on the path that backwards them
        and kept on the path that does not)."""
        if self.dead:
            return other.copy()
        if other.dead:
            return self.copy()
        if alias is None:
            return self._joined(other)
        mine = self._apart(frozenset(other.freed.keys() - self.freed.keys()), alias)
        theirs = other._apart(frozenset(self.freed.keys() - other.freed.keys()), alias)
        return mine._joined(theirs)

    def _joined(self, other: State) -> State:
        env = _join_maps(self.env, other.env)
        heap = _join_maps(self.heap, other.heap)
        freed = _still_freed(self.freed, other.freed, self)
        freed.update(_still_freed(other.freed, self.freed, other))
        retained = {**other.retained, **self.retained}
        # A hook removed on one path only may still run: it counts as removed where both removed it.
        return State(env, heap, freed, retained, False, self.hooks_removed & other.hooks_removed)

    def _apart(self, freed_elsewhere: frozenset[int], alias: Alias) -> State:
        """This state with its own twin of each node it holds that another path freed."""
        if not freed_elsewhere:
            return self
        held = freed_elsewhere & self.held()
        if not held:
            return self
        names = {node: alias(node) for node in sorted(held)}
        retained = dict(self.retained)
        retained.update((names[n], r) for n, r in self.retained.items() if n in names)
        return State(
            {k: renamed(v, names) for k, v in self.env.items()},
            {k: renamed(v, names) for k, v in self.heap.items()},
            dict(self.freed),
            retained,
            self.dead,
            self.hooks_removed,
        )


Alias = Callable[[int], int]
"""Makes a twin of a graph node (the same site, loops and inputs) and gives its id."""


def _still_freed(mine: dict[int, Free], theirs: dict[int, Free], state: State) -> dict[int, Free]:
    """The frees of ``mine`` that stand after a join: freed on both paths, or still held on this
    one (what the state holds is found once, and only when a free is on this path alone)."""
    kept: dict[int, Free] = {}
    held: frozenset[int] | None = None
    for node, free in mine.items():
        if node not in theirs:
            if held is None:
                held = state.held()
            if node not in held:
                continue
        kept[node] = free
    return kept


def _held_by(values: Iterable[Value]) -> frozenset[int]:
    return frozenset().union(*(nodes_of(v) for v in values))


def _join_maps(a: dict[K, Value], b: dict[K, Value]) -> dict[K, Value]:
    """Each key's values joined. The two maps mostly hold the very same values (the paths of a
    branch share what neither wrote), so the keys whose values differ are found by C iterators
    and only those are joined (a loop over every key was 6% of a check's time)."""
    merged = dict(a)
    differing = compress(b.keys(), map(is_not, map(a.get, b.keys()), b.values()))
    for key in list(differing):
        merged[key] = join(merged.get(key), b[key])
    return merged


def join_all(states: list[State], alias: Alias | None = None) -> State:
    live = [s for s in states if not s.dead]
    if not live:
        return State(dead=True)
    result = live[0].copy() if len(live) == 1 else live[0]  # a join makes a new state: no copy first
    for state in live[1:]:
        result = result.join(state, alias)
    return result
