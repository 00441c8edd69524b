"""Copying an interpreter part-way through a check, so that two runs can go on from one point.

Each function of a script that the checker runs on its own needs the module body's run first (the
names, objects and classes the body leaves). Where the body is the same, its run is the same, so
the checker runs it once and hands each function a fork of the interpreter it left
(``checker.BodyRuns``). A fork must then behave exactly as the interpreter that ran the body again
would: nothing one of them does afterwards may show in the other.

What is copied follows from what the interpreter holds: values, graph nodes and AST nodes are
immutable or never changed after they are made (shared); containers and the mutable records
(``State``, ``LoopContext``, ``SecondPass``, ``Ownership``, ...) are copied, to the depth at
which the interpreter nests them (a dict of sets, a list of records of lists); the serial counter
goes on from the same number in both.
"""

from __future__ import annotations

import copy
import dataclasses
import itertools
from typing import TypeVar

NESTING = 3
"""How deep the interpreter nests mutable things in one attribute: ``loops`` (a dict) of
``LoopContext`` records of lists; ``state`` of dicts of values."""

T = TypeVar("T")


def forked_attributes(attributes: dict[str, object], serial: int) -> dict[str, object]:
    """A copy of an interpreter's attributes (its ``vars``), as a fork needs them; ``serial``: the
    number its serial counter gives next (the fork's counter gives the same)."""
    return {
        name: itertools.count(serial) if isinstance(value, itertools.count) else copied_value(value, NESTING)
        for name, value in attributes.items()
    }


def copied_value(value: T, depth: int) -> T:
    """``value`` with every mutable container and record in it copied down to ``depth`` levels;
    anything else (numbers, strings, AST nodes, frozen dataclasses: values, graph nodes) shared."""
    if depth <= 0:
        return value
    inner = depth - 1
    result: object
    # copy.copy first: a dict's subclass (a defaultdict's factory, an OrderedDict's order) stays
    if isinstance(value, dict):
        result = copy.copy(value)
        for key, item in value.items():
            result[key] = copied_value(item, inner)
    elif isinstance(value, list):
        result = [copied_value(item, inner) for item in value]
    elif isinstance(value, set):
        result = copy.copy(value)  # members are hashable: immutable
    elif dataclasses.is_dataclass(value) and not isinstance(value, type) and not _frozen(value):
        result = copy.copy(value)
        for field in dataclasses.fields(value):
            setattr(result, field.name, copied_value(getattr(value, field.name), inner))
    else:
        return value
    return result  # type: ignore[return-value]  # (the same type as value, built anew)


def _frozen(value: object) -> bool:
    params = getattr(type(value), "__dataclass_params__", None)
    return bool(params is not None and params.frozen)
