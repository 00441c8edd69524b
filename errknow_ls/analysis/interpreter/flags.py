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

from errknow_ls.analysis.interpreter.base import InterpreterBase
from errknow_ls.analysis.state import Place
from errknow_ls.analysis.values import Obj, Opaque, Unknown

FlagKey = tuple[object, str]
"""A flag: its object, by where it was built (the same in every run of a unit, where the object's
id is not: a run that fixes a flag takes other paths, which number objects otherwise), and the
attribute's name."""

FlagWay = tuple[bool | None, bool | None]
"""How a flag goes in one run: its truth and whether it is None (None: the run does not fix it)."""

TRUTH, IS_NONE = "truth", "is None"
"""The forms a flag is tested in: ``if self.flag:`` (or ``not``), ``if self.flag is None:`` (or
``is not None``)."""

MAX_FLAG_RUNS = 8
"""Runs of one unit, one per way its flags can go together, at the most."""

EVERY_OBJECT = -1
"""In a :data:`FlagKey`, in place of an object's place: the way the flag goes on every object (a
finding then stands where a path on which each such attribute has one value shows it)."""


class Flags(InterpreterBase):
    """Notes the flags a run tests; decides their tests in a run that fixes them."""

    def flag_truth(self, test: ast.expr) -> bool | None:
        """What ``test`` gives where it tests a flag this run has fixed (``self.flag``, ``self.flag
        is None``, ``... is not None``); None where it tests none, or one not fixed. A flag tested
        is noted for the checker, with the form and the place of the test."""
        found = self._flag(test)
        if found is None:
            return None
        oid, key, form, negated = found
        if not self._unsettled(oid, key[1]):
            return None
        self.tested_flags.setdefault(key, set()).add((form, id(test)))
        way = self.fixed_flags.get(key, self.fixed_flags.get((EVERY_OBJECT, key[1])))
        if way is None:
            return None
        truth = way[0] if form == TRUTH else way[1]
        return None if truth is None else truth != negated

    def flag_runs(self) -> list[dict[FlagKey, FlagWay]]:
        """The ways the flags this run tested can go together, one run each, leaving out those
        whose attribute some code the run read sets outside a constructor (or any, by ``setattr``).
        Where every way of all of them is more than :data:`MAX_FLAG_RUNS` runs, those tested at the
        most places are fixed, as many as fit, the others left to go both ways at each test (what
        a run shows then stands on fewer paths, never on more); an attribute tested on several
        objects (built in a loop) goes one way on all of them. [] where there is no flag."""
        assigned = self.attributes_set_anywhere()
        tested = {k: tests for k, tests in self.tested_flags.items() if not {k[1], "*"} & assigned}
        attributes = [attr for _, attr in tested]
        if len(set(attributes)) < len(attributes):
            every: dict[FlagKey, set[tuple[str, int]]] = {}
            for (_, attr), tests in tested.items():
                every.setdefault((EVERY_OBJECT, attr), set()).update(tests)
            tested = every
        chosen: dict[FlagKey, list[FlagWay]] = {}
        runs = 1
        for key in sorted(tested, key=lambda k: (-len({place for _, place in tested[k]}), k)):
            ways = _ways({form for form, _ in tested[key]})
            if runs * len(ways) <= MAX_FLAG_RUNS:
                chosen[key] = ways
                runs *= len(ways)
        if not chosen:
            return []
        keys = list(chosen)
        return [dict(zip(keys, combo, strict=True)) for combo in itertools.product(*chosen.values())]

    def _flag(self, test: ast.expr) -> tuple[int, FlagKey, str, bool] | None:
        """The object (by id) and the flag ``test`` reads, in which form, and whether the form is
        negated (``is not``)."""
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
        built = self.allocations.get(owner.oid, ("object", owner.oid, 0))
        return owner.oid, (built, tested.attr), form, negated

    def _unsettled(self, oid: int, attr: str) -> bool:
        """The object holds there a value the checker does not know (what its constructor was
        handed by a caller not seen, or read from a configuration)."""
        return isinstance(self.state.heap.get(Place(oid, attr)), Unknown | Opaque)


def _ways(forms: set[str]) -> list[FlagWay]:
    """The ways a flag tested in ``forms`` can go: true or false; None or not; None, or a true or
    a false value that is not None."""
    if forms == {TRUTH}:
        return [(True, None), (False, None)]
    if forms == {IS_NONE}:
        return [(False, True), (None, False)]
    return [(False, True), (True, False), (False, False)]
