"""A state ``__init__`` builds once from the object's parameters (a penalty added up by a method it
calls, ``self.reg_loss = torch.zeros(())`` then ``self.add_regularization_loss(weights, l2)``),
built again on every step: the lines of ``__init__`` that built it become a method of the class,
which ``__init__`` and the training loop both call, so each step's loss reads it computed from the
current parameters, as DeepCTR-Torch's own fix computes its penalty in ``fit()``."""

from __future__ import annotations

import ast

from errknow_ls.analysis.events import SecondPass
from errknow_ls.analysis.fixes import insert_lines_before
from errknow_ls.analysis.rules.context import RuleContext, is_self_attribute
from errknow_ls.analysis.state import Place
from errknow_ls.analysis.values import nodes_of
from errknow_ls.core import Applicability, Edit, Fix, Position, Span


def rebuild_from_init(event: SecondPass, ctx: RuleContext, stale: list[int]) -> Fix | None:
    """Build the one attribute of an object that holds the stale values again before the loop
    first reads it, by a method made of the statements of ``__init__`` that built it. Unsafe: the
    method runs code of the checked program for its effect on the object (fix_safety rule 2)."""
    loop = event.loop
    node = loop.node if loop is not None else None
    attrs = {h.attribute for h, v in event.entry.items() if isinstance(h, Place) and nodes_of(v) & set(stale)}
    if node is None or len(attrs) != 1:
        return None
    (attr,) = attrs
    run = _statements_that_built(ctx, stale, attr)
    read = _read_in_loop(ctx, node, attr)
    if run is None or read is None:
        return None
    receiver, first_use = read
    init = ctx.function_of(run[0])
    assert init is not None  # _statements_that_built found them in an __init__
    method = f"rebuild_{attr}"
    captured = _locals_read(init, run)
    if _named_anywhere(ctx, {method, *captured}) or not _constants_only(ctx, init, captured):
        return None  # the names the fix adds are taken, or what it keeps may be a module or a tensor
    rewritten = _init_with_method(ctx, init, run, method, captured)
    call = insert_lines_before(ctx.source, first_use, [f"{receiver}.{method}()"])
    if rewritten is None or call is None:
        return None
    return Fix(
        f"Build `{receiver}.{attr}` again before each use in the loop, as `__init__` built it",
        Applicability.UNSAFE,
        (rewritten, call),
        workaround=2,
    )


def _statements_that_built(ctx: RuleContext, stale: list[int], attr: str) -> list[ast.stmt] | None:
    """The run of statements of ``__init__``'s own body that built the stale values: the one on the
    call stack of every stale node, and the statements right above it that store ``self.<attr>``
    directly (where it starts again: re-run, the run does not add to what it held). None unless
    the run starts with such a store, nothing else in the checked code stores ``<attr>``, and
    the functions the run calls store nothing but ``self.<attr>`` and local names."""
    found: dict[int, ast.stmt] = {}
    for node_id in stale:
        node = ctx.nodes[node_id]
        built = [s for _, s in node.stmts if _in_init_body(ctx, s)]
        if len(built) != 1:
            return None
        found[id(built[0])] = built[0]
    if len(found) != 1:
        return None
    (last,) = found.values()
    init = ctx.function_of(last)
    assert init is not None
    if not (isinstance(last, ast.Expr) and isinstance(last.value, ast.Call)) and not _stores_self(last, attr):
        return None  # it stores something else too: re-run, it would store that again
    index = init.body.index(last)
    start = index
    while start > 0 and _stores_self(init.body[start - 1], attr):
        start -= 1
    run = init.body[start : index + 1]
    if start == index or not _calls_store_only(ctx, run, attr):
        return None
    stores = [
        n for n in ast.walk(ctx.module) if isinstance(n, ast.Attribute) and n.attr == attr and _stored(n)
    ]
    inside = {id(n) for s in run for n in ast.walk(s)} | _called_nodes(ctx, run)
    return run if all(id(n) in inside for n in stores) else None


def _in_init_body(ctx: RuleContext, stmt: ast.stmt) -> bool:
    init = ctx.function_of(stmt)
    return (
        isinstance(init, ast.FunctionDef)
        and init.name == "__init__"  # Python runs it once per object, as it is built
        and isinstance(ctx.parents.get(init), ast.ClassDef)
        and any(s is stmt for s in init.body)
        and bool(init.args.args)
        and ctx.source.starts_line(stmt)
    )


def _stores_self(stmt: ast.stmt, attr: str) -> bool:
    """``self.<attr> = <expression>``."""
    return (
        isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and is_self_attribute(stmt.targets[0], attr)
    )


def _stored(node: ast.Attribute) -> bool:
    return isinstance(node.ctx, ast.Store | ast.Del)


def _called_nodes(ctx: RuleContext, run: list[ast.stmt]) -> set[int]:
    """The nodes of every function of the checked code the run calls, transitively."""
    found: set[int] = set()
    for func in _called_functions(ctx, run):
        found |= {id(n) for n in ast.walk(func)}
    return found


def _called_functions(ctx: RuleContext, run: list[ast.stmt]) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    pending = [n for s in run for n in ast.walk(s) if isinstance(n, ast.Call)]
    seen: dict[int, ast.FunctionDef | ast.AsyncFunctionDef] = {}
    while pending:
        for func in ctx.called_functions.get(pending.pop(), set()):
            if id(func) not in seen:
                seen[id(func)] = func
                pending.extend(n for n in ast.walk(func) if isinstance(n, ast.Call))
    return list(seen.values())


def _calls_store_only(ctx: RuleContext, run: list[ast.stmt], attr: str) -> bool:
    """The functions the run calls store nothing but ``self.<attr>`` and their local names, and
    call nothing for its effect (an ``Expr`` statement that is a call)."""
    for func in _called_functions(ctx, run):
        for stmt in ast.walk(func):
            if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
                return False
            if isinstance(stmt, ast.Assign | ast.AugAssign | ast.AnnAssign):
                targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
                if not all(isinstance(t, ast.Name) or is_self_attribute(t, attr) for t in targets):
                    return False
    return True


def _read_in_loop(ctx: RuleContext, loop: ast.stmt, attr: str) -> tuple[str, ast.stmt] | None:
    """How the loop spells the object (``self``, ``model``: a name, one spelling for every read of
    ``<attr>`` in it) and the statement of the loop's body, at any depth, that first reads it."""
    reads = [
        n
        for n in ast.walk(loop)
        if isinstance(n, ast.Attribute) and n.attr == attr and isinstance(n.ctx, ast.Load)
    ]
    spellings = {ctx.text(n.value) for n in reads}
    if len(spellings) != 1 or not all(isinstance(n.value, ast.Name) for n in reads):
        return None
    first = min(reads, key=lambda n: (n.lineno, n.col_offset))
    stmt = ctx.statement_of(first)
    if stmt is None or stmt is loop or not ctx.source.starts_line(stmt):
        return None
    return spellings.pop(), stmt


def _locals_read(init: ast.FunctionDef | ast.AsyncFunctionDef, run: list[ast.stmt]) -> list[str]:
    """The names of ``__init__``'s own scope (its parameters but ``self``, the names it assigns) that
    the run reads: the method reads them from the object, where ``__init__`` keeps them."""
    arguments = init.args
    params = {a.arg for a in (*arguments.posonlyargs, *arguments.args[1:], *arguments.kwonlyargs)}
    params |= {a.arg for a in (arguments.vararg, arguments.kwarg) if a is not None}
    assigned = {
        n.id
        for s in init.body
        for n in ast.walk(s)
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
    }
    own = {n.id for s in run for n in ast.walk(s) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    read = [n.id for s in run for n in ast.walk(s) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)]
    return list(dict.fromkeys(name for name in read if name in (params | assigned) - own))


def _constants_only(
    ctx: RuleContext, init: ast.FunctionDef | ast.AsyncFunctionDef, captured: list[str]
) -> bool:
    """Each of ``captured`` is a parameter of ``__init__`` with a constant default that every call
    of it in the checked code passes, if at all, as a constant (a number, a string): kept on the
    object, it registers no module, parameter or buffer there."""
    arguments = init.args
    positional = [a.arg for a in (*arguments.posonlyargs, *arguments.args)]
    defaults = dict(
        zip(positional[len(positional) - len(arguments.defaults) :], arguments.defaults, strict=True)
    )
    defaults |= {a.arg: d for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True) if d}
    if not all(_constant(defaults.get(name)) for name in captured):
        return False
    calls = [call for call, ran in ctx.called_functions.items() if init in ran and isinstance(call, ast.Call)]
    for call in calls:
        if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
            return False
        given = dict(zip(positional[1:], call.args, strict=False)) | {
            k.arg: k.value for k in call.keywords if k.arg
        }
        if not all(_constant(given[name]) for name in captured if name in given):
            return False
    return True


def _constant(node: ast.expr | None) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        node = node.operand
    return isinstance(node, ast.Constant) and isinstance(node.value, int | float | str | bool)


def _named_anywhere(ctx: RuleContext, names: set[str]) -> bool:
    """Some attribute, function or class of the checked code is already spelled as one of ``names``."""
    for node in ast.walk(ctx.module):
        if isinstance(node, ast.Attribute) and node.attr in names:
            return True
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and node.name in names:
            return True
        if isinstance(node, ast.ClassDef) and any(
            isinstance(n, ast.Name) and n.id in names
            for s in node.body
            for n in ast.walk(s)
            if not isinstance(s, ast.FunctionDef)
        ):
            return True  # a class attribute the object's own would shadow
    return False


def _init_with_method(
    ctx: RuleContext,
    init: ast.FunctionDef | ast.AsyncFunctionDef,
    run: list[ast.stmt],
    method: str,
    captured: list[str],
) -> Edit | None:
    """``__init__``'s lines from the run to its end, the run replaced by keeping ``captured`` on the
    object and calling ``method``, followed by ``method`` itself: the run, reading ``captured``
    from the object."""
    end = init.end_lineno
    last = run[-1].end_lineno
    if end is None or last is None or end >= len(ctx.source.lines):
        return None
    indent = ctx.source.indent_of(run[0].lineno)
    outer = ctx.source.indent_of(init.lineno)
    self_name = init.args.args[0].arg
    kept = [f"{indent}{self_name}.{name} = {name}" for name in captured]
    body = _rewritten_lines(ctx, run, captured, self_name)
    rest = [ctx.source.line(n) for n in range(last + 1, end + 1)]
    method_lines = [f"{outer}def {method}({self_name}):", *body]
    lines = [*kept, f"{indent}{self_name}.{method}()", *rest, "", *method_lines]
    span = Span(Position(run[0].lineno - 1, 0), Position(end, 0))
    return Edit(span, "".join(f"{line}\n" for line in lines))


def _rewritten_lines(ctx: RuleContext, run: list[ast.stmt], captured: list[str], self_name: str) -> list[str]:
    """The run's lines, each read of a ``captured`` name made a read of the object's attribute."""
    first, last = run[0].lineno, run[-1].end_lineno or run[-1].lineno
    lines = [ctx.source.line(n) for n in range(first, last + 1)]
    names = [
        n
        for s in run
        for n in ast.walk(s)
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id in captured
    ]
    for name in sorted(names, key=lambda n: (n.lineno, n.col_offset), reverse=True):
        span = ctx.source.span(name)
        row = span.start.line - (first - 1)
        text = lines[row]
        lines[row] = f"{text[: span.start.character]}{self_name}.{name.id}{text[span.end.character :]}"
    return lines
