"""Flags: a value that holds the same at every test of one run, tested by ``if`` where the checker
does not know it. Two kinds:

- an object's attribute that no code sets outside a constructor (``self.use_pretrain``,
  ``self.mask_dict``);
- an *option*: an attribute of a value the checker does not know at all (what ``parse_args()``
  or a configuration loader gave back), read through a name that holds one value for the whole
  run — a module's global bound once, a name bound once, outside loops, by a function the calls
  from the unit's entry reach in no loop, or a parameter its caller hands such a name — that is
  only read for its attributes or handed to calls, where no code sets that attribute
  (``param.loss_D``, ``args.loss``; see ``Flags._root``).

A path that takes a flag one way at one test and another way at the next cannot happen. A run
joins both ways at each test; the checker then runs a unit that reported something again, once
per way its flags can go, and keeps what one of those runs reports too (``checker._refuted``).
A flag is tested for its truth, for None, or against constants (``== 1``, ``!= "hinge"``, ``in
[1, 2, 3, 4]``); the ways it can go are then each constant the code compares it with, and a value
equal to none of them. This part of the interpreter notes the flags a run tested and, in a run
that fixes them, decides the tests of them (``Expressions.test_truth`` decides the ``not``,
``and`` and ``or`` around them).
"""

from __future__ import annotations

import ast
import itertools
from typing import NamedTuple

from errknow_ls.analysis.interpreter.base import Frame, InterpreterBase
from errknow_ls.analysis.interpreter.flag_ways import (
    EQUALS,
    IS_NONE,
    TRUTH,
    FlagKey,
    FlagTest,
    FlagWay,
    Other,
)
from errknow_ls.analysis.interpreter.statements import constants_compared
from errknow_ls.analysis.names import bindings, bound_once, calls_in_loops, read_only_through_attributes
from errknow_ls.analysis.state import Place
from errknow_ls.analysis.values import Obj, Opaque, Unknown

MAX_FLAG_RUNS = 12
"""Runs of one unit, one per way its flags can go together, at the most."""

EVERY_OBJECT = -1
"""In a :data:`FlagKey`, in place of an object's place: the way the flag goes on every object (a
finding then stands where a path on which each such attribute has one value shows it)."""


class _Tested(NamedTuple):
    oid: int | None
    """The object (None: an option's value, not known)."""
    key: FlagKey
    form: str
    negated: bool
    constants: frozenset[object]


class Flags(InterpreterBase):
    """Notes the flags a run tests; decides their tests in a run that fixes them."""

    def flag_truth(self, test: ast.expr) -> bool | None:
        """What ``test`` gives where it tests a flag this run has fixed (``self.flag``, ``self.flag
        is None``, ``args.mode == "train"``, ...); None where it tests none, or one not fixed. A
        flag tested is noted for the checker, with the form and the place of the test."""
        found = self._flag(test)
        if found is None:
            return None
        if found.oid is not None and not self._unsettled(found.oid, found.key[1]):
            return None
        self.tested_flags.setdefault(found.key, set()).add(FlagTest(found.form, id(test), found.constants))
        way = self.fixed_flags.get(found.key, self.fixed_flags.get((EVERY_OBJECT, found.key[1])))
        if way is None:
            return None
        truth = way.decides(found.form, found.constants)
        return None if truth is None else truth != found.negated

    def flag_runs(self) -> list[dict[FlagKey, FlagWay]]:
        """The ways the flags this run tested can go together, one run each, leaving out those
        whose attribute some code the run read sets outside a constructor (or any, by ``setattr``;
        an option's, anywhere). Where every way of all of them is more than
        :data:`MAX_FLAG_RUNS` runs, objects' flags tested for truth or None, then the others, those
        tested at the most places first, are fixed, as many as fit, the others left to go both ways
        at each test (what a run shows then stands on fewer paths, never on more); an attribute
        tested on several objects (built in a loop) goes one way on all of them. [] where there is
        no flag."""
        assigned = self.attributes_set_anywhere()
        assigned_or_stored = assigned | self.attributes_stored
        tested = {
            key: tests
            for key, tests in self.tested_flags.items()
            if not {key[1], "*"} & (assigned_or_stored if _is_option(key) else assigned)
        }
        attributes = [attr for _, attr in tested]
        objects = {key[1] for key in tested if not _is_option(key)}
        if len(set(attributes)) < len(attributes):
            every: dict[FlagKey, set[FlagTest]] = {}
            for (_, attr), tests in tested.items():
                every.setdefault((EVERY_OBJECT, attr), set()).update(tests)
            tested = every

        def rank(key: FlagKey) -> tuple[bool, int, str]:
            # objects' flags tested for truth or None first, then the others (options, and flags
            # compared with constants), those tested at the most places first in each
            two_ways = key[1] in objects and all(t.form != EQUALS for t in tested[key])
            return (not two_ways, -len({t.place for t in tested[key]}), repr(key))

        chosen: dict[FlagKey, list[FlagWay]] = {}
        runs = 1
        for key in sorted(tested, key=rank):
            ways = _ways(tested[key])
            if runs * len(ways) <= MAX_FLAG_RUNS:
                chosen[key] = ways
                runs *= len(ways)
        if not chosen:
            return []
        keys = list(chosen)
        return [dict(zip(keys, combo, strict=True)) for combo in itertools.product(*chosen.values())]

    def _flag(self, test: ast.expr) -> _Tested | None:
        """The flag ``test`` reads, in which form, and whether the form is negated (``is not``,
        ``!=``, ``not in``)."""
        negated, form, constants = False, TRUTH, frozenset[object]()
        tested = test
        if isinstance(test, ast.Compare):
            if len(test.ops) != 1:
                return None
            op, other = test.ops[0], test.comparators[0]
            if isinstance(op, ast.Is | ast.IsNot):
                if not (isinstance(other, ast.Constant) and other.value is None):
                    return None
                tested, form, negated = test.left, IS_NONE, isinstance(op, ast.IsNot)
            else:
                compared = constants_compared(op, other)
                if not compared:  # (`in ()` names none)
                    return None
                tested, form, constants = test.left, EQUALS, compared
                negated = isinstance(op, ast.NotEq | ast.NotIn)
        if not (isinstance(tested, ast.Attribute) and isinstance(tested.value, ast.Name)):
            return None
        name = tested.value.id
        owner = self.state.env.get(name, self.globals.get(name))
        if isinstance(owner, Obj):
            built = self.allocations.get(owner.oid, ("object", owner.oid, 0))
            return _Tested(owner.oid, (built, tested.attr), form, negated, constants)
        if isinstance(owner, Unknown | Opaque):
            scope = self._option_scope(name)
            if scope is not None:
                return _Tested(None, (("option", scope, name), tested.attr), form, negated, constants)
        return None

    def _option_scope(self, name: str) -> tuple[object, ...] | None:
        """Where ``name``, read in the running frame, holds one value for the whole run: the scope
        that binds it (module, line and column of its ``def`` and of the calls that lead to it;
        (module, 0, 0) for a module's globals). None where it may hold another at a later test
        (see ``_root``)."""
        if not self.frames:
            return None
        frame = self.frames[-1]
        local = name in self.state.env if frame.func is not None else False
        return self._root(len(self.frames) - 1, name, local=local)

    def _root(self, index: int, name: str, *, local: bool) -> tuple[object, ...] | None:
        """Where ``name`` of the ``index``-th frame was bound to its value, following a parameter to
        the name its caller handed (``train(args)``): a module's global, or a name a function binds
        at a call that happens once in the unit's run (the calls that lead to it from the unit's
        entry are in no loop). None where the name is bound more than once or in a loop, is open to
        a ``global`` or ``nonlocal`` elsewhere, or is read but to read its attributes or be handed
        to a call (a method of code not read may change what the object holds)."""
        if name in self.rebindable_names():
            return None
        frame = self.frames[index]
        home = frame.module or ""
        func = frame.func
        if func is None or not local:
            tree = self.module if frame.module is None else self.trees.get(frame.module)
            if tree is None or name not in bound_once(tree) or not read_only_through_attributes(tree, name):
                return None
            return (home, 0, 0)
        if name not in bound_once(func) or not read_only_through_attributes(func, name):
            return None
        handed = _handed(frame, name) if index else None
        if handed is not None:
            caller = self.frames[index - 1].func
            return self._root(index - 1, handed, local=caller is not None and handed in bindings(caller))
        chain = self._calls_once(index)
        return None if chain is None else (home, func.lineno, func.col_offset, *chain)

    def _calls_once(self, index: int) -> tuple[tuple[int, int], ...] | None:
        """The places of the calls that lead from the unit's entry to the ``index``-th frame, where
        none of them is in a loop (each then runs at most once in the unit's run)."""
        chain: list[tuple[int, int]] = []
        for depth in range(1, index + 1):
            call, caller = self.frames[depth].call_site, self.frames[depth - 1]
            scope = caller.func or (self.module if caller.module is None else self.trees.get(caller.module))
            if call is None or scope is None or id(call) in calls_in_loops(scope):
                return None
            chain.append((call.lineno, call.col_offset))
        return tuple(chain)

    def _unsettled(self, oid: int, attr: str) -> bool:
        """The object holds there a value the checker does not know (what its constructor was
        handed by a caller not seen, or read from a configuration)."""
        return isinstance(self.state.heap.get(Place(oid, attr)), Unknown | Opaque)


def _handed(frame: Frame, name: str) -> str | None:
    """The caller's name that the call which made ``frame`` handed to its parameter ``name``
    (where the call names the function it runs: a function handed to other code runs at a call
    that hands it other things)."""
    func, call = frame.func, frame.call_site
    if not isinstance(func, ast.FunctionDef | ast.AsyncFunctionDef) or call is None:
        return None
    called = call.func.id if isinstance(call.func, ast.Name) else getattr(call.func, "attr", None)
    if called != func.name or any(isinstance(a, ast.Starred) for a in call.args):
        return None
    argument: ast.expr | None = next((k.value for k in call.keywords if k.arg == name), None)
    params = [p.arg for p in (*func.args.posonlyargs, *func.args.args)]
    if argument is None and name in params:
        position = params.index(name) - (1 if frame.bound is not None else 0)
        argument = call.args[position] if 0 <= position < len(call.args) else None
    return argument.id if isinstance(argument, ast.Name) else None


def _is_option(key: FlagKey) -> bool:
    place = key[0]
    return isinstance(place, tuple) and bool(place) and place[0] == "option"


def _ways(tests: set[FlagTest]) -> list[FlagWay]:
    """The ways a flag tested by ``tests`` can go: true or false; None or not; each constant it is
    compared with, or none of them (true, or also false where it is tested for its truth)."""
    forms = frozenset(t.form for t in tests)
    constants: set[object] = set().union(*(t.constants for t in tests))
    values: list[object] = sorted(constants, key=repr)
    if IS_NONE in forms and None not in constants:
        values.append(None)
    values.append(Other(truthy=True))
    if TRUTH in forms:
        values.append(Other(truthy=False))
    return [FlagWay(value, forms) for value in values]
