"""Flags: an object's attribute that no code sets outside a constructor (``self.use_pretrain``,
``self.mask_dict``), tested by ``if`` where its value is not known. Such a flag holds the same
value at every test of one run, so a path that takes it one way in one method and the other way
in another cannot happen. A run joins both ways at each test; the checker then runs a unit that
reported something again, once per way its flags can go, and keeps what one of those runs
reports too (``checker._refuted``). This part of the interpreter notes the flags a run tested
and, in a run that fixes them, decides the tests of them (``Expressions.test_truth`` decides the
``not``, ``and`` and ``or`` around them).
"""

from __future__ import annotations

import ast
import itertools
import math

from errknow_ls.analysis.interpreter.base import InterpreterBase
from errknow_ls.analysis.state import Place
from errknow_ls.analysis.values import Obj, Opaque, Unknown

FlagKey = tuple[int, str]
"""A flag: its object (by id) and the attribute's name."""

FlagWay = tuple[bool | None, bool | None]
"""How a flag goes in one run: its truth and whether it is None (None: the run does not fix it)."""

TRUTH, IS_NONE = "truth", "is None"
"""The forms a flag is tested in: ``if self.flag:`` (or ``not``), ``if self.flag is None:`` (or
``is not None``)."""

MAX_FLAG_RUNS = 8
"""Runs of one unit, one per way its flags can go together, at the most. With more (a loop that
builds an object at each run of its body), a flag goes one way on every object of the run: a
finding then stands where a path on which each attribute has one value shows it."""

EVERY_OBJECT = -1
"""In a :data:`FlagKey`, in place of an object's id: the way the flag goes on every object."""


class Flags(InterpreterBase):
    """Notes the flags a run tests; decides their tests in a run that fixes them."""

    def flag_truth(self, test: ast.expr) -> bool | None:
        """What ``test`` gives where it tests a flag this run has fixed (``self.flag``, ``self.flag
        is None``, ``... is not None``); None where it tests none, or one not fixed. A flag tested
        is noted for the checker."""
        found = self._flag(test)
        if found is None:
            return None
        key, form, negated = found
        if not self._unsettled(key):
            return None
        self.tested_flags.setdefault(key, set()).add(form)
        way = self.fixed_flags.get(key, self.fixed_flags.get((EVERY_OBJECT, key[1])))
        if way is None:
            return None
        truth = way[0] if form == TRUTH else way[1]
        return None if truth is None else truth != negated

    def flag_runs(self) -> list[dict[FlagKey, FlagWay]]:
        """Every way the flags this run tested can go together, leaving out those whose attribute
        some code the run read sets outside a constructor (or any, by ``setattr``); [] where there
        is no such flag or too many ways."""
        assigned = self.attributes_set_anywhere()
        tested = {k: forms for k, forms in self.tested_flags.items() if not {k[1], "*"} & assigned}
        if not tested:
            return []
        runs = _combinations(tested)
        if runs:
            return runs
        every: dict[FlagKey, set[str]] = {}
        for (_, attr), forms in tested.items():
            every.setdefault((EVERY_OBJECT, attr), set()).update(forms)
        return _combinations(every)

    def _flag(self, test: ast.expr) -> tuple[FlagKey, str, bool] | None:
        """The flag ``test`` reads, in which form, and whether the form is negated (``is not``)."""
        negated = False
        form = TRUTH
        tested = test
        ops = test.ops if isinstance(test, ast.Compare) else []
        if isinstance(test, ast.Compare) and len(ops) == 1 and isinstance(ops[0], ast.Is | ast.IsNot):
            other = test.comparators[0]
            if not (isinstance(other, ast.Constant) and other.value is None):
                return None
            tested, form, negated = test.left, IS_NONE, isinstance(ops[0], ast.IsNot)
        if not (isinstance(tested, ast.Attribute) and isinstance(tested.value, ast.Name)):
            return None
        name = tested.value.id
        owner = self.state.env.get(name, self.globals.get(name))
        if not isinstance(owner, Obj):
            return None
        return (owner.oid, tested.attr), form, negated

    def _unsettled(self, key: FlagKey) -> bool:
        """The flag's object holds there a value the checker does not know (what its constructor
        was handed by a caller not seen, or read from a configuration)."""
        return isinstance(self.state.heap.get(Place(*key)), Unknown | Opaque)


def _combinations(tested: dict[FlagKey, set[str]]) -> list[dict[FlagKey, FlagWay]]:
    """Every way the ``tested`` flags can go together; [] where they are more than
    :data:`MAX_FLAG_RUNS`."""
    keys = sorted(tested)
    choices = [_ways(tested[k]) for k in keys]
    if math.prod(len(ways) for ways in choices) > MAX_FLAG_RUNS:
        return []
    return [dict(zip(keys, combo, strict=True)) for combo in itertools.product(*choices)]


def _ways(forms: set[str]) -> list[FlagWay]:
    """The ways a flag tested in ``forms`` can go: true or false; None or not; None, or a true or
    a false value that is not None."""
    if forms == {TRUTH}:
        return [(True, None), (False, None)]
    if forms == {IS_NONE}:
        return [(False, True), (None, False)]
    return [(False, True), (True, False), (False, False)]
