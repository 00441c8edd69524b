"""Tests read again: ``if batch_method == "robust":`` computes ``robust_ce``, and the next ``if
batch_method == "robust":`` makes it the loss. Nothing between them rebinds ``batch_method``, so
the two go the same way each time the code passes them. A run that joins both ways after the first
and takes them apart at the second follows a path that cannot happen: the second reads the
``robust_ce`` of a batch before, which that batch's backward already freed.

A run that splits (``split_retests``: the checker's refuting runs, see ``checker._refuted``) runs
the statements from such a test to the last that repeats it once per outcome, that outcome
deciding each repeat, and joins the two after them. A test splits where it reads only local names
(no attribute a call could change, no name a ``global`` or ``nonlocal`` lets a call rebind) and
nothing between it and its last repeat rebinds one of them. Runs that join at every test see every
path a split run sees, and more: a finding that a split run does not show came only from paths
that cannot happen.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Sequence

from errknow_ls.analysis.interpreter.base import InterpreterBase
from errknow_ls.analysis.names import names_bound_in

MAX_NESTED_SPLITS = 3
"""Splits open at once, at the most (8 runs of the statements inside the innermost)."""

RetestKey = tuple[int, str]
"""A test in one frame: the frame's serial and the test's text (``ast.dump``)."""


class Retests(InterpreterBase):
    """Splits a block at a test it repeats; decides the repeats in each part."""

    def retest_truth(self, test: ast.expr) -> bool | None:
        """What ``test`` gives where it repeats a test this run split on in the same frame."""
        if not self.retest_truths:
            return None
        return self.retest_truths.get(self._retest_key(test))

    def split_until(self, stmts: Sequence[ast.stmt], index: int) -> int | None:
        """Where ``stmts[index]``, an ``if`` this run should split on, has its last repeat in
        ``stmts`` (the index of the statement holding it); None where it should not split there."""
        if not self.split_retests or len(self.retest_truths) >= MAX_NESTED_SPLITS:
            return None
        stmt = stmts[index]
        if not isinstance(stmt, ast.If):
            return None
        last = self._last_repeat(stmt, stmts, index)
        if last is None or self.test_truth(stmt.test) is not None:
            return None
        return last

    def exec_split(self, test: ast.expr, stmts: Sequence[ast.stmt]) -> None:
        """Run ``stmts`` (from the ``if`` testing ``test`` to its last repeat) once with ``test``
        true, once false, and join the two."""
        key = self._retest_key(test)
        self.exec_apart(
            [functools.partial(self._exec_deciding, key, truth, stmts) for truth in (True, False)], False
        )

    def _exec_deciding(self, key: RetestKey, truth: bool, stmts: Sequence[ast.stmt]) -> None:
        before = self.retest_truths.get(key)
        self.retest_truths[key] = truth
        try:
            self.exec_block(stmts)
        finally:
            if before is None:
                self.retest_truths.pop(key, None)
            else:
                self.retest_truths[key] = before

    def _retest_key(self, test: ast.expr) -> RetestKey:
        return (self.frames[-1].serial if self.frames else -1, ast.dump(test))

    def _last_repeat(self, stmt: ast.If, stmts: Sequence[ast.stmt], index: int) -> int | None:
        """The index of the last statement after ``stmt`` that tests what it tests, where the test
        reads only local names and nothing up to there rebinds one (memoised by the ``if``)."""
        if stmt in self._repeats:
            offset = self._repeats[stmt]
            return None if offset is None else index + offset
        found: int | None = None
        names = _names_read(stmt.test)
        if names is not None and not names & self.rebindable_names():
            text = ast.dump(stmt.test)
            bound: set[str] = set()
            for later in range(index, len(stmts)):
                bound |= names_bound_in(stmts[later])
                if bound & names:
                    break
                if later > index and _tests(stmts[later], text):
                    found = later
        self._repeats[stmt] = None if found is None else found - index
        return found

    def rebindable_names(self) -> frozenset[str]:
        """Names some ``global`` or ``nonlocal`` of the code this run read declares: a call may
        rebind them."""
        if self._declared is None:
            trees = [self.module, *self.trees.values()]
            self._declared = frozenset(
                name
                for tree in trees
                for node in ast.walk(tree)
                if isinstance(node, ast.Global | ast.Nonlocal)
                for name in node.names
            )
        return self._declared


def _names_read(test: ast.expr) -> set[str] | None:
    """The names ``test`` reads, where it is made only of names, constants, comparisons, ``not``,
    ``and`` and ``or`` (None otherwise: an attribute, a call or a subscript may change between)."""
    names: set[str] = set()
    for node in ast.walk(test):
        match node:
            case ast.Name(id=name):
                names.add(name)
            case ast.Constant() | ast.Compare() | ast.BoolOp() | ast.UnaryOp(op=ast.Not()):
                pass
            case ast.expr_context() | ast.cmpop() | ast.boolop() | ast.unaryop():
                pass
            case _:
                return None
    return names or None


def _tests(stmt: ast.stmt, text: str) -> bool:
    """``stmt`` holds an ``if``, ``elif``, ``while`` or conditional expression testing ``text``."""
    return any(
        isinstance(node, ast.If | ast.While | ast.IfExp) and ast.dump(node.test) == text
        for node in ast.walk(stmt)
    )
