"""What a rule needs to turn an event into a finding: the source, the tree, the graph nodes."""

from __future__ import annotations

import ast
import bisect
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from errknow_ls.analysis.ownership import Ownership
from errknow_ls.analysis.registry import rule
from errknow_ls.analysis.source import SourceText, call_name, inner_nodes
from errknow_ls.analysis.values import GraphNode
from errknow_ls.core import Finding, Fix, Related, Span


class Parents:
    """Each node's parent, mapped one top-level statement at a time, when a rule first asks there:
    a finding in one function should not cost a walk of a 20,000-line module."""

    def __init__(self, module: ast.Module) -> None:
        self._module = module
        self._map: dict[ast.AST, ast.AST] = {}
        self._done: set[int] = set()
        self._starts = [s.lineno for s in module.body]

    def _map_statement_at(self, node: ast.AST) -> None:
        line = getattr(node, "lineno", None)
        if line is None:
            return
        index = bisect.bisect_right(self._starts, line) - 1
        if index < 0 or index in self._done:
            return
        self._done.add(index)
        top = self._module.body[index]
        self._map[top] = self._module
        for parent in ast.walk(top):
            for child in ast.iter_child_nodes(parent):
                self._map[child] = parent

    def get(self, node: ast.AST | None) -> ast.AST | None:
        if node is None:
            return None
        if node not in self._map:
            self._map_statement_at(node)
        return self._map.get(node)


MARK_REACH = 256
"""Statements a fix looks ahead for what follows a backward (a ``.grad`` read, a yield, a step):
what a step reads or does comes within a few statements, and a 100,000-statement script must not
make every finding read it to its end."""


@dataclass(frozen=True, slots=True)
class Summary:
    yields: bool
    reads_grad: bool
    calls: frozenset[str]


Mark = Callable[[Summary], str | None]
"""What a statement's summary shows (``RuleContext.next_mark``); a function of it alone."""


@dataclass(slots=True)
class RuleContext:
    source: SourceText
    module: ast.Module
    nodes: list[GraphNode]
    forward_calls: set[ast.AST] = field(default_factory=set)
    """Calls the interpreter resolved as forward computations (torch ops, tensor methods, module
    forwards): what a safe fix may re-run."""
    stepping: set[int] = field(default_factory=set)
    """Loops (by key) in which an optimizer steps: each iteration is a training step."""
    called_functions: dict[ast.AST, set[ast.FunctionDef | ast.AsyncFunctionDef]] = field(default_factory=dict)
    """The functions and methods of the checked code each call site ran."""
    module_calls: set[ast.AST] = field(default_factory=set)
    """Calls of library modules, whose output may be a tensor or a tuple of them."""
    optimizer_calls: set[ast.AST] = field(default_factory=set)
    """Constructions of a torch optimizer."""
    ownership: Ownership = field(default_factory=Ownership)
    """Which parameters each optimizer owns, and what else sees gradients."""
    complete: bool = False
    """Every entry point ran to its end (no budget stopped one, the checker did not fail)."""
    cached_contexts: set[ast.AST] = field(default_factory=set)
    """The ``with parametrize.cached():`` statements that ran."""
    cached_reads: dict[ast.AST, frozenset[int]] = field(default_factory=dict)
    """Reads of a parametrized tensor a cached context answered, with that tensor's graph nodes."""
    called_lambdas: dict[ast.AST, set[ast.Lambda]] = field(default_factory=dict)
    """The lambdas of the checked code each call site ran."""
    weight_norm_nodes: dict[int, tuple[ast.Call, str]] = field(default_factory=dict)
    """Each graph node the old ``weight_norm`` made, with the call that applied it and the
    qualified name that call resolved to."""
    constant_factors: dict[ast.AST, float | None] = field(default_factory=dict)
    """Products and quotients of a tensor by a number, with that number where it was the same
    constant on every run (None otherwise)."""
    parents: Parents = field(init=False)
    _all: list[ast.stmt] | None = field(init=False, default=None)
    _summaries: dict[int, Summary] = field(init=False, default_factory=dict)
    _unmarked: dict[tuple[Mark, int], dict[int, int]] = field(init=False, default_factory=dict)
    """By mark and block (its id): from a statement's index, the next index the mark may be
    found at (the statements between were looked at, and it was not)."""
    _definitions: dict[str, list[ast.FunctionDef | ast.AsyncFunctionDef]] | None = field(
        init=False, default=None
    )

    def __post_init__(self) -> None:
        self.parents = Parents(self.module)

    # Asked once per finding, these answer from what one pass over the module or block found: a
    # script with thousands of findings would otherwise be quadratic.

    def all_statements(self) -> list[ast.stmt]:
        """Every statement of the module, nested ones too (expressions are not walked)."""
        if self._all is None:
            found: list[ast.stmt] = []
            stack: list[ast.AST] = [self.module]
            while stack:
                for child in ast.iter_child_nodes(stack.pop()):
                    if isinstance(child, ast.stmt):
                        found.append(child)
                        stack.append(child)
                    elif not isinstance(child, ast.expr):
                        stack.append(child)  # handlers, match cases: they hold statements
            self._all = found
        return self._all

    def definitions(self) -> dict[str, list[ast.FunctionDef | ast.AsyncFunctionDef]]:
        """The module's functions and methods by name."""
        if self._definitions is None:
            self._definitions = {}
            for node in self.all_statements():
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                    self._definitions.setdefault(node.name, []).append(node)
        return self._definitions

    def summary(self, stmt: ast.stmt) -> Summary:
        """What one walk of ``stmt`` tells: whether it yields or reads ``.grad``, what it calls."""
        known = self._summaries.get(id(stmt))
        if known is None:
            yields = reads_grad = False
            calls = set()
            for node in inner_nodes(stmt):
                if isinstance(node, ast.Yield | ast.YieldFrom):
                    yields = True
                elif isinstance(node, ast.Attribute) and node.attr == "grad":
                    reads_grad = True
                elif isinstance(node, ast.Call):
                    calls.add(call_name(node))
            known = self._summaries[id(stmt)] = Summary(yields, reads_grad, frozenset(calls - {""}))
        return known

    def next_mark(self, node: ast.AST, mark: Mark) -> str | None:
        """The first ``mark`` of the next MARK_REACH statements after ``node``'s statement in its
        block (None past them, or outside any block). The statements a look found unmarked are
        skipped by the next look over them: the findings of a script that repeats a step every few
        statements each looked at the same 256 (12 million looks for a 5 MB file)."""
        stmt = self.statement_of(node)
        block = self.block_of(stmt) if stmt is not None else None
        if stmt is None or block is None:
            return None
        index = index_in(block, stmt)
        if index is None:
            return None
        unmarked = self._unmarked.setdefault((mark, id(block)), {})
        at = index + 1
        end = min(len(block), at + MARK_REACH)
        found, passed = None, []
        while at < end and found is None:
            passed.append(at)
            if at in unmarked:
                at = unmarked[at]
            elif (found := mark(self.summary(block[at]))) is None:
                at += 1
        for looked in passed:
            if looked != at:
                unmarked[looked] = at
        return found

    def statement_of(self, node: ast.AST) -> ast.stmt | None:
        current: ast.AST | None = node
        while current is not None and not isinstance(current, ast.stmt):
            current = self.parents.get(current)
        return current

    def block_of(self, stmt: ast.stmt) -> list[ast.stmt] | None:
        """The statement list that holds ``stmt``."""
        parent = self.parents.get(stmt)
        if parent is None:
            return None
        for name in ("body", "orelse", "finalbody", "handlers"):
            block = getattr(parent, name, None)
            if isinstance(block, list) and holds(block, stmt):
                return block
        return None

    def function_of(self, node: ast.AST) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
        current = self.parents.get(node)
        while current is not None and not isinstance(current, ast.FunctionDef | ast.AsyncFunctionDef):
            current = self.parents.get(current)
        return current

    def class_of(self, node: ast.AST) -> ast.ClassDef | None:
        """The class of the checked text whose method holds ``node`` (None: not in a method here)."""
        function = self.function_of(node)
        owner = self.parents.get(function) if function is not None else None
        return owner if isinstance(owner, ast.ClassDef) else None

    def text(self, node: ast.AST | None, default: str = "tensor") -> str:
        if node is None:
            return default
        text = self.source.segment(node)
        return " ".join(text.split()) if text else default

    def line_of(self, node: ast.AST) -> int:
        return int(getattr(node, "lineno", 0))

    def related(self, node: ast.AST, message: str) -> Related:
        return Related(self.source.span(node), message)

    def _placed(self, span: Span) -> bool:
        last = len(self.source.lines)
        return 0 <= span.start.line <= span.end.line and span.end.line <= last

    def finding(  # noqa: PLR0917
        self,
        code: str,
        report: ast.AST,
        message: str,
        fixes: list[Fix],
        related: list[Related],
        tensor: str,
    ) -> Finding:
        info = rule(code)
        # A node the interpreter made up (no place in the source) can be a graph's site: what points
        # at one is left out rather than sent as line -1.
        related = [r for r in related if r.path is not None or self._placed(r.span)]
        fixes = [f for f in fixes if all(self._placed(e.span) for e in f.edits)]
        ordered = sorted(fixes, key=lambda f: ["safe", "unsafe", "display-only"].index(f.applicability))
        return Finding(
            code=code,
            name=info.name,
            record_id=info.record_id,
            severity=info.severity,
            message=message,
            span=self.source.span(report),
            fixes=tuple(ordered),
            related=tuple(related),
            tensor=tensor,
        )


def names_loaded(node: ast.AST) -> Iterator[ast.Name]:
    for child in ast.walk(node):
        if isinstance(child, ast.Name) and isinstance(child.ctx, ast.Load):
            yield child


def is_self_attribute(node: ast.AST, attr: str | None = None) -> bool:
    """``self.<attr>`` (any attribute of ``self`` where ``attr`` is None)."""
    return (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "self"
        and (attr is None or node.attr == attr)
    )


def _spelled(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
        return f"self.{node.attr}"
    return None


def _loads_and_stores(stmt: ast.stmt) -> tuple[set[str], set[str]]:
    loads, stores = set(), set()
    for node in ast.walk(stmt):
        name = _spelled(node)
        if name is None:
            continue
        if isinstance(node.ctx, ast.Store):  # type: ignore[attr-defined]
            stores.add(name)
        elif isinstance(node, ast.Name) or isinstance(node.ctx, ast.Load):  # type: ignore[attr-defined]
            loads.add(name)
    if isinstance(stmt, ast.AugAssign):
        target = _spelled(stmt.target)
        if target:
            loads.add(target)
    return loads, stores


def upward_exposed(body: list[ast.stmt]) -> set[str]:
    """Names (and ``self.x``) read in ``body`` before the body assigns them: what a loop carries."""
    exposed: set[str] = set()
    assigned: set[str] = set()
    for stmt in body:
        loads, stores = _loads_and_stores(stmt)
        exposed |= _exposed_in(stmt, loads) - assigned
        if not isinstance(stmt, ast.If | ast.For | ast.While | ast.With | ast.Try):
            assigned |= stores
    return exposed


def _exposed_in(stmt: ast.stmt, loads: set[str]) -> set[str]:
    """What ``stmt`` reads before it assigns it: inside a loop or a branch, a name read after the
    block assigned it (``dist = policy(obs)`` then ``dist.log_prob(a)`` in an inner loop) is not
    read from before ``stmt``."""
    if isinstance(stmt, ast.For | ast.AsyncFor):
        header = _loads_and_stores(ast.Expr(stmt.iter))[0]
        targets = _loads_and_stores(ast.Assign([stmt.target], ast.Constant(None)))[1]
        return header | (upward_exposed(stmt.body) - targets) | upward_exposed(stmt.orelse)
    if isinstance(stmt, ast.While | ast.If):
        test = _loads_and_stores(ast.Expr(stmt.test))[0]
        return test | upward_exposed(stmt.body) | upward_exposed(stmt.orelse)
    return loads


def holds(block: list[ast.stmt], node: ast.AST) -> bool:
    """Whether ``node`` is one of ``block``'s statements."""
    return index_in(block, node) is not None


def index_in(block: list[ast.stmt], node: ast.AST) -> int | None:
    """Where ``node`` is among ``block``'s statements. A block is in source order, so this bisects:
    a scan per finding made a script with thousands of findings quadratic."""
    where = (getattr(node, "lineno", 0), getattr(node, "col_offset", 0))
    index = bisect.bisect_left(block, where, key=lambda s: (s.lineno, s.col_offset))
    return index if index < len(block) and block[index] is node else None
