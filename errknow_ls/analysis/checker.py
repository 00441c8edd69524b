"""Check one source text: parse (surviving half-typed code), interpret, turn events into findings."""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from functools import partial

from errknow_ls.analysis.events import SecondPass
from errknow_ls.analysis.interpreter import Interpreter
from errknow_ls.analysis.rules import SECOND_PASS_BUILDERS, retain_graph_in_loop
from errknow_ls.analysis.rules.context import RuleContext
from errknow_ls.analysis.source import SourceText, call_name, called_names, parse_module
from errknow_ls.core import Finding

INTERNAL_ERROR = "internal error"
BACKWARD_NAMES = frozenset({"backward", "manual_backward", "grad"})
PRIORITY = ("EK003", "EK001", "EK002", "EK004", "EK005")
_SUPPRESS = re.compile(
    r"#\s*(?:errknow:\s*ignore(?:\[(?P<codes>[^\]]*)\])?|noqa(?::\s*(?P<noqa>[A-Z]+[0-9]+(?:[\s,]+[A-Z]+[0-9]+)*))?)",
    re.IGNORECASE,
)


def _word(char: str) -> bool:
    return char.isalnum() or char == "_"


def might_backward(text: str) -> bool:
    """Text any finding needs (``.backward``, ``backward(``, ``grad(`` as whole words); a file
    without it is not even parsed. Substring scans: the equivalent regex is 20x slower."""
    start = text.find("backward")
    while start != -1:
        before = text[start - 1] if start else ""
        after = text[start + 8 : start + 9]
        if (before == "." and not _word(after)) or (after == "(" and not _word(before)):
            return True
        start = text.find("backward", start + 8)
    start = text.find("grad(")
    while start != -1:
        if not start or not _word(text[start - 1]):
            return True
        start = text.find("grad(", start + 5)
    return False


@dataclass(slots=True)
class CheckResult:
    findings: list[Finding] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    """Syntax errors (the parts that parsed are still checked), then internal errors."""

    @property
    def internal_errors(self) -> list[str]:
        """Failures of the checker itself (one entry point each); the other entry points still ran."""
        return [e for e in self.errors if e.startswith(INTERNAL_ERROR)]


def check_source(
    text: str,
    *,
    select: Collection[str] | None = None,
    ignore: Collection[str] = (),
) -> CheckResult:
    """All findings in ``text``, filtered by rule codes and by suppression comments."""
    if not might_backward(text):
        return CheckResult()
    module, errors = parse_module(text)
    try:
        return _check_module(text, module, errors, select, ignore)
    except RecursionError:
        # An expression a few hundred levels deep parses, but our recursive walkers cannot follow it:
        # check the file without the statements that hold one.
        shallow, deep = _without_deep_statements(module)
        errors = [*errors, *(f"line {stmt.lineno}: nested too deeply to check" for stmt in deep)]
        return _check_module(text, shallow, errors, select, ignore)


def _check_module(
    text: str, module: ast.Module, errors: list[str], select: Collection[str] | None, ignore: Collection[str]
) -> CheckResult:
    source = SourceText(text)
    interpreter = Interpreter(module)
    errors += _run_entries(interpreter, module)
    if not interpreter.events and not interpreter.retain_sites:
        return CheckResult([], errors)
    ctx = RuleContext(source, module, interpreter.nodes)
    findings = _findings(interpreter, ctx)
    findings = [
        f
        for f in findings
        if (select is None or f.code in select) and f.code not in ignore and not _suppressed(source, f)
    ]
    findings.sort(key=lambda f: (f.span.start, f.code))
    return CheckResult(findings, errors)


MAX_DEPTH = 100
"""Nodes below a top-level statement that the recursive walkers can follow within Python's stack."""


def _without_deep_statements(module: ast.Module) -> tuple[ast.Module, list[ast.stmt]]:
    shallow: list[ast.stmt] = []
    deep: list[ast.stmt] = []
    for stmt in module.body:
        (deep if _deeper_than(stmt, MAX_DEPTH) else shallow).append(stmt)
    return ast.Module(body=shallow, type_ignores=[]), deep


def _deeper_than(root: ast.AST, limit: int) -> bool:
    """Whether the tree below ``root`` is more than ``limit`` nodes deep (walked without recursion)."""
    stack = [(root, 0)]
    while stack:
        node, depth = stack.pop()
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))
    return False


def _run_entries(interpreter: Interpreter, module: ast.Module) -> list[str]:
    """Run every entry point; one that fails inside the checker is reported, the rest still run."""
    relevant = _relevant_names(module)
    entries: list[tuple[str, Callable[[], None]]] = [
        ("<module>", lambda: interpreter.run_module(_body_is_relevant(module, relevant)))
    ]
    for stmt in module.body:
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef) and stmt.name in relevant:
            entries.append((stmt.name, partial(interpreter.run_function, stmt)))
    errors = _run_all(entries)
    top_level = [s for s in module.body if isinstance(s, ast.ClassDef)]
    methods: list[tuple[str, Callable[[], None]]] = []
    for info in list(interpreter.classes.values()):
        if not any(info.node is cls for cls in top_level):
            continue
        for name, method in info.methods.items():
            if name != "__init__" and name in relevant and method in info.node.body:
                methods.append(
                    (f"{info.node.name}.{name}", partial(interpreter.run_method_twice, info, method))
                )
    return errors + _run_all(methods)


def _run_all(entries: list[tuple[str, Callable[[], None]]]) -> list[str]:
    errors = []
    for name, run in entries:
        try:
            run()
        except Exception as exc:
            errors.append(f"{INTERNAL_ERROR} while checking {name}: {type(exc).__name__}: {exc}")
    return errors


def _relevant_names(module: ast.Module) -> set[str]:
    """Functions and methods that can reach a backward, by name, to a fixpoint."""
    functions: dict[str, set[str]] = {}
    _collect_calls(module, None, functions)
    relevant = {name for name, calls in functions.items() if calls & BACKWARD_NAMES}
    changed = True
    while changed:
        changed = False
        for name, calls in functions.items():
            if name not in relevant and calls & (relevant | BACKWARD_NAMES):
                relevant.add(name)
                changed = True
    return relevant


def _collect_calls(node: ast.AST, owner: str | None, functions: dict[str, set[str]]) -> None:
    """Names each function calls (its nested functions' calls count for it too), in one walk."""
    for child in ast.iter_child_nodes(node):
        inner = owner
        if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
            inner = child.name
            functions.setdefault(inner, set())
        if isinstance(child, ast.Call) and owner is not None:
            functions[owner].add(call_name(child))
        _collect_calls(child, inner, functions)
        if inner is not None and inner is not owner and owner is not None:
            functions[owner] |= functions[inner]


def _body_is_relevant(module: ast.Module, relevant: set[str]) -> bool:
    for stmt in module.body:
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        if called_names(stmt) & (relevant | BACKWARD_NAMES):
            return True
    return False


def _intrinsic(events: list[SecondPass]) -> list[SecondPass]:
    """Where one run reports a backward itself, drop the runs that blamed a caller for it."""
    own = {(id(e.site), e.code) for e in events if e.report is e.site}
    return [e for e in events if e.report is e.site or (id(e.site), e.code) not in own]


def _findings(interpreter: Interpreter, ctx: RuleContext) -> list[Finding]:
    best: dict[tuple[int, int], SecondPass] = {}
    for event in _intrinsic(interpreter.events):
        key = (event.report.lineno, event.report.col_offset)
        known = best.get(key)
        if known is None or PRIORITY.index(event.code) < PRIORITY.index(known.code):
            best[key] = event
    findings = [SECOND_PASS_BUILDERS[event.code](event, ctx) for event in best.values()]
    flagged = {(f.span.start.line, f.span.start.character) for f in findings}
    for site in interpreter.retain_sites.values():
        if not site.justified:
            finding = retain_graph_in_loop.build(site, ctx)
            if (finding.span.start.line, finding.span.start.character) not in flagged:
                findings.append(finding)
    return findings


def _suppressed(source: SourceText, finding: Finding) -> bool:
    line = source.line(finding.span.start.line + 1)
    if "#" not in line:
        return False
    for match in _SUPPRESS.finditer(line):
        codes = match.group("codes") or match.group("noqa")
        if not codes:
            return True
        if finding.code in _split_codes(codes) or finding.name in _split_codes(codes):
            return True
    return False


def _split_codes(codes: str) -> set[str]:
    return {c.strip() for c in re.split(r"[\s,]+", codes) if c.strip()}
