"""What a flag is (``flags.py``) and how it goes in one run: the values the interpreter's state
and the checker's refuting runs hold, apart from the code that notes and decides them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

FlagKey = tuple[object, str]
"""A flag: its object, by where it was built (the same in every run of a unit, where the object's
id is not: a run that fixes a flag takes other paths, which number objects otherwise), or an
option's name, by the scope that binds it; and the attribute's name."""

TRUTH, IS_NONE, EQUALS = "truth", "is None", "equals"
"""The forms a flag is tested in: ``if self.flag:`` (or ``not``), ``if self.flag is None:`` (or
``is not None``), ``if args.loss == "hinge":`` (or ``!=``, ``in``, ``not in`` a literal of
constants)."""


@dataclass(frozen=True, slots=True)
class Other:
    """A value that is not None and equal to none of the constants the code compares it with."""

    truthy: bool


@dataclass(frozen=True, slots=True)
class FlagWay:
    """How a flag goes in one run: the value it holds, as the forms it was tested in see it (a test
    in another form is left to go both ways)."""

    value: object
    forms: frozenset[str]

    def decides(self, form: str, constants: frozenset[object]) -> bool | None:
        """What a test of the flag in ``form`` (against ``constants``) gives, not negated."""
        if form not in self.forms:
            return None
        value = self.value
        if form == TRUTH:
            return value.truthy if isinstance(value, Other) else bool(value)
        if form == IS_NONE:
            return value is None
        return not isinstance(value, Other) and any(value == constant for constant in constants)


class FlagTest(NamedTuple):
    """One test of a flag: its form, its place (the test's id), the constants it compares with."""

    form: str
    place: int
    constants: frozenset[object]
