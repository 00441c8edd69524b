"""Names a module's code binds somewhere: a name bound nowhere raises NameError when it is read.

Python looks a name up in the function's scopes, the module's globals and the builtins. A name
that no statement of the module binds — no assignment, parameter, import, definition, ``global``,
``except … as``, pattern capture — and that is not a builtin is unbound wherever it is read, unless
something binds module globals by other means. Those means are visible in the text (``exec``,
``globals()``, ``vars()``, a star import, the ``builtins`` module, ``sys.modules``, IPython's
``get_ipython``); a module that uses one of them binds an unknown set of names, and nothing is
concluded from it. A name another module sets on this one (``import train; train.lr = 1``) is not
seen; concluding NameError then only loses findings on that path, never makes one.
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Container
from dataclasses import dataclass
from weakref import WeakKeyDictionary

MODULE_GLOBALS = frozenset(
    {
        "__name__",
        "__doc__",
        "__package__",
        "__loader__",
        "__spec__",
        "__file__",
        "__cached__",
        "__builtins__",
        "__annotations__",
        "__path__",
        "__class__",  # the implicit closure cell of a method that uses super()
    }
)
"""Names the import system (or the compiler, in methods) binds in every module."""
IPYTHON_NAMES = frozenset({"get_ipython", "display", "In", "Out", "exit", "quit"})
"""Names IPython binds in a notebook's namespace; its output history (``_``, ``_3``, ``_i3``) is
why no name that starts with an underscore is concluded unbound."""
DYNAMIC_BINDERS = frozenset({"exec", "globals", "vars", "__builtins__", "get_ipython", "__import__"})
"""Builtins through which code can bind names the text does not show."""

_BOUND: WeakKeyDictionary[ast.Module, frozenset[str] | None] = WeakKeyDictionary()


@dataclass(frozen=True, slots=True)
class _Binds:
    """What one top-level statement binds, worked out once per statement: a checked unit's module
    is made anew of statements that other units and checks share, so a module's names are the
    union of its statements'."""

    unseen: bool
    """It can bind names its text does not show."""
    anywhere: frozenset[str]
    """Every name it binds, in any scope."""
    outer: frozenset[str]
    """The names it binds in the module's own scope."""
    inner: frozenset[str]
    """The names it binds in any other scope (or declares ``global``/``nonlocal``)."""


_STATEMENTS: WeakKeyDictionary[ast.stmt, _Binds] = WeakKeyDictionary()


def _binds(statement: ast.stmt) -> _Binds:
    found = _STATEMENTS.get(statement)
    if found is None:
        anywhere: set[str] = set()
        unseen = False
        for node in ast.walk(statement):
            if _binds_unseen_names(node):
                unseen = True
                break
            _bind(node, anywhere)
        outer: set[str] = set()
        inner: set[str] = set()
        _collect(statement, outer, inner)
        found = _Binds(unseen, frozenset(anywhere), frozenset(outer), frozenset(inner))
        _STATEMENTS[statement] = found
    return found


def bound_anywhere(tree: ast.Module) -> frozenset[str] | None:
    """Every name the module binds somewhere, with the builtins; None when the module can bind
    names its text does not show."""
    if tree in _BOUND:
        return _BOUND[tree]
    found = _bound_names(tree)
    _BOUND[tree] = found
    return found


def _bound_names(tree: ast.Module) -> frozenset[str] | None:
    statements = [_binds(statement) for statement in tree.body]
    if any(s.unseen for s in statements):
        return None
    return frozenset().union(*(s.anywhere for s in statements)) | _ALWAYS_BOUND


_BUILTINS = frozenset(dir(builtins))
_ALWAYS_BOUND = MODULE_GLOBALS | IPYTHON_NAMES | _BUILTINS


def _binds_unseen_names(node: ast.AST) -> bool:
    match node:
        case ast.Name(id=name, ctx=ast.Load()):
            return name in DYNAMIC_BINDERS
        case ast.Attribute(value=ast.Name(id="sys"), attr="modules"):
            return True
        case ast.Import(names=aliases):
            return any(alias.name in ("builtins", "__builtin__") for alias in aliases)
        case ast.ImportFrom(module=module, names=aliases):
            return module in ("builtins", "__builtin__") or any(a.name == "*" for a in aliases)
    return False


def raises_name_error(name: str, tree: ast.Module, module_names: Container[str] | None) -> bool:
    """Reading ``name`` (found in no scope of the running code) raises NameError: no code of the
    module binds it, or only module-level code does and ``module_names`` — the module's globals as
    they are at this point of a run of the module from its top — lacks it (not bound yet)."""
    if name.startswith("_"):
        return False  # IPython's output history (`_`, `_3`, `_i3`) and other underscore magic
    if name in _BUILTINS:
        return False  # a global not bound (yet) is looked up in the builtins, which have it
    bound = bound_anywhere(tree)
    if bound is None:
        return False
    if name not in bound:
        return True
    return module_names is not None and name not in module_names and name in _module_level_only(tree)


_MODULE_LEVEL: WeakKeyDictionary[ast.Module, frozenset[str]] = WeakKeyDictionary()


def _module_level_only(tree: ast.Module) -> frozenset[str]:
    """Names that only statements at the module's own level bind (no function, class body,
    lambda or comprehension binds them, and no ``global`` or ``nonlocal`` names them)."""
    if tree not in _MODULE_LEVEL:
        statements = [_binds(statement) for statement in tree.body]
        outer = frozenset().union(*(s.outer for s in statements))
        inner = frozenset().union(*(s.inner for s in statements))
        _MODULE_LEVEL[tree] = outer - inner
    return _MODULE_LEVEL[tree]


_SCOPES = (
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
    ast.Lambda,
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
    ast.GeneratorExp,
)


def _collect(node: ast.AST, outer: set[str], inner: set[str]) -> None:
    """Sort the names ``node`` binds into the module's scope (``outer``) and any other (``inner``)."""
    if isinstance(node, ast.pattern):  # the interpreter does not bind captures: left unknown
        for child in ast.walk(node):
            _bind(child, inner)
        return
    if isinstance(node, _SCOPES):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            outer.add(node.name)
        for child in ast.walk(node):
            if child is not node:
                _bind(child, inner)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            inner.update(a.arg for a in ast.walk(node.args) if isinstance(a, ast.arg))
        return
    _bind(node, outer)
    for child in ast.iter_child_nodes(node):
        _collect(child, outer, inner)


def names_bound_in(node: ast.AST) -> set[str]:
    """Every name ``node`` binds, declares or deletes anywhere inside it, a nested scope's too (more
    than it binds in its own scope, never less)."""
    names: set[str] = set()
    for child in ast.walk(node):
        _bind(child, names)
    return names


def _bind(node: ast.AST, names: set[str]) -> None:
    match node:
        case ast.Name(id=name, ctx=ast.Store() | ast.Del()):
            names.add(name)
        case ast.FunctionDef(name=name) | ast.AsyncFunctionDef(name=name) | ast.ClassDef(name=name):
            names.add(name)
        case ast.Import(names=aliases):
            names.update(alias.asname or alias.name.split(".")[0] for alias in aliases)
        case ast.ImportFrom(names=aliases):
            names.update(alias.asname or alias.name for alias in aliases)
        case ast.Global(names=declared) | ast.Nonlocal(names=declared):
            names.update(declared)
        case ast.ExceptHandler(name=str() as name):
            names.add(name)
        case ast.MatchAs(name=str() as name) | ast.MatchStar(name=str() as name):
            names.add(name)
        case ast.MatchMapping(rest=str() as name):
            names.add(name)
        case ast.arg(arg=name):
            names.add(name)


_SINGLE: WeakKeyDictionary[ast.AST, frozenset[str]] = WeakKeyDictionary()
_COUNTS: WeakKeyDictionary[ast.AST, dict[str, int]] = WeakKeyDictionary()
_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def bound_once(scope: ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> frozenset[str]:
    """The names ``scope`` binds in its own body exactly once, outside every loop (a parameter is a
    function's one binding of its name): such a name holds one object for the whole of a run of the
    scope, wherever it is read after its binding (unless a ``global`` or ``nonlocal`` elsewhere
    lets other code rebind it). Nested scopes bind their own names; the name of a nested ``def`` or
    ``class`` is the scope's."""
    found = _SINGLE.get(scope)
    if found is None:
        found = _SINGLE[scope] = frozenset(name for name, count in bindings(scope).items() if count == 1)
    return found


def bindings(scope: ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> dict[str, int]:
    """How many times ``scope`` binds each name in its own body (a binding in a loop counts twice;
    a parameter once); a name it does not bind is a global (or a free variable) there."""
    found = _COUNTS.get(scope)
    if found is None:
        counts: dict[str, int] = {}
        if not isinstance(scope, ast.Module):
            for arg in ast.walk(scope.args):
                if isinstance(arg, ast.arg):
                    counts[arg.arg] = counts.get(arg.arg, 0) + 1
        body = [scope.body] if isinstance(scope, ast.Lambda) else scope.body
        for node in body:
            for name, count in _statement_bindings(node).items():
                counts[name] = counts.get(name, 0) + count
        found = _COUNTS[scope] = counts
    return found


_BINDINGS: WeakKeyDictionary[ast.AST, dict[str, int]] = WeakKeyDictionary()


def _statement_bindings(node: ast.AST) -> dict[str, int]:
    """The bindings one statement of a scope makes, by name (counted once per statement: a unit's
    module is a new tree over statements other units share)."""
    found = _BINDINGS.get(node)
    if found is None:
        found = _BINDINGS[node] = {}
        _count_bindings(node, found, in_loop=False)
    return found


def _count_bindings(node: ast.AST, counts: dict[str, int], *, in_loop: bool) -> None:
    """Count the bindings of ``node`` in the scope that holds it; a binding in a loop counts twice."""
    names: set[str] = set()
    _bind(node, names)
    for name in names:
        counts[name] = counts.get(name, 0) + (2 if in_loop else 1)
    if isinstance(node, _SCOPES):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
            for inner in ast.walk(node):  # `[y := f(x) for x in xs]` binds `y` outside, once per item
                if isinstance(inner, ast.NamedExpr) and isinstance(inner.target, ast.Name):
                    counts[inner.target.id] = counts.get(inner.target.id, 0) + 2
        return
    looping = in_loop or isinstance(node, _LOOPS)
    for child in ast.iter_child_nodes(node):
        _count_bindings(child, counts, in_loop=looping)


_LOOPED_CALLS: WeakKeyDictionary[ast.AST, frozenset[int]] = WeakKeyDictionary()


def calls_in_loops(scope: ast.AST) -> frozenset[int]:
    """The calls (by id) in a loop of ``scope``'s own body, or of a comprehension there: each runs
    more than once in one run of the scope."""
    if isinstance(scope, ast.Module):  # a unit's module: a new tree over statements units share
        return frozenset().union(*(calls_in_loops(statement) for statement in scope.body))
    found = _LOOPED_CALLS.get(scope)
    if found is None:
        looped: set[int] = set()
        starts: list[ast.AST] = (
            [scope] if isinstance(scope, ast.stmt) and not isinstance(scope, _SCOPES) else []
        )
        starts = starts or list(ast.iter_child_nodes(scope))
        pending: list[tuple[ast.AST, bool]] = [(child, False) for child in starts]
        while pending:
            node, in_loop = pending.pop()
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
                continue
            if in_loop and isinstance(node, ast.Call):
                looped.add(id(node))
            looping = in_loop or isinstance(node, _LOOPS + _COMPREHENSIONS)
            pending.extend((child, looping) for child in ast.iter_child_nodes(node))
        found = _LOOPED_CALLS[scope] = frozenset(looped)
    return found


HANDING_BUILTINS = frozenset({"vars", "setattr", "delattr"})
"""Builtins that change an object handed to them, or hand out what it holds to be changed."""
_ESCAPING: WeakKeyDictionary[ast.AST, frozenset[str]] = WeakKeyDictionary()


def read_only_through_attributes(scope: ast.AST, name: str) -> bool:
    """Every read of ``name`` in ``scope`` (its nested scopes too) reads one of its attributes
    (``args.lr``, not ``args.update(...)``) or hands the object to a call (``train(args)``,
    ``spawn(worker, args=(n, args))``, not ``vars(args)``): no method of it runs there, no other
    name is bound to it there."""
    statements = scope.body if isinstance(scope, ast.Module) else [scope]
    return not any(name in _escaping(statement) for statement in statements)


def _escaping(node: ast.AST) -> frozenset[str]:
    """The names read in ``node`` other than to read an attribute or be handed to a call."""
    found = _ESCAPING.get(node)
    if found is None:
        through: set[int] = set()
        methods: set[int] = set()
        for child in ast.walk(node):
            if isinstance(child, ast.Attribute) and isinstance(child.value, ast.Name):
                through.add(id(child.value))  # an assignment: see the callers
            if not isinstance(child, ast.Call):
                continue
            if isinstance(child.func, ast.Attribute) and isinstance(child.func.value, ast.Name):
                methods.add(id(child.func.value))  # `args.update(...)`: a method may change it
            if not (isinstance(child.func, ast.Name) and child.func.id in HANDING_BUILTINS):
                handed = [*child.args, *(k.value for k in child.keywords)]
                handed += [e for arg in handed if isinstance(arg, ast.Tuple | ast.List) for e in arg.elts]
                through.update(id(arg) for arg in handed if isinstance(arg, ast.Name))
        through -= methods
        found = _ESCAPING[node] = frozenset(
            child.id
            for child in ast.walk(node)
            if isinstance(child, ast.Name) and isinstance(child.ctx, ast.Load) and id(child) not in through
        )
    return found


MAX_LITERAL_NODES = 256
"""Larger literals (a vocabulary table) are not worth reading as values."""
_CONSTANTS: WeakKeyDictionary[ast.Module, list[ast.stmt]] = WeakKeyDictionary()


def constant_assignments(tree: ast.Module) -> list[ast.stmt]:
    """Module-level ``NAME = <literal>`` statements whose name nothing else binds: whenever the
    module's functions run after it, the name holds that literal (``STAGES = ("easy", "hard")``)."""
    if tree not in _CONSTANTS:
        _CONSTANTS[tree] = _constant_assignments(tree)
    return _CONSTANTS[tree]


def _constant_assignments(tree: ast.Module) -> list[ast.stmt]:
    counts: dict[str, int] = {}
    statements = [_constant_parts(statement) for statement in tree.body]
    for bound, _ in statements:
        for name, count in bound.items():
            counts[name] = counts.get(name, 0) + count
    return [
        statement
        for statement, (_, constant) in zip(tree.body, statements, strict=True)
        if constant is not None and counts.get(constant) == 1
    ]


_CONSTANT_PARTS: WeakKeyDictionary[ast.stmt, tuple[dict[str, int], str | None]] = WeakKeyDictionary()


def _constant_parts(statement: ast.stmt) -> tuple[dict[str, int], str | None]:
    """How many of the statement's nodes bind each name, and the name it binds to a literal
    (``NAME = <literal>``), if it does: worked out once per statement, where a unit's module (a
    new tree each) shares its statements with the file's other units."""
    found = _CONSTANT_PARTS.get(statement)
    if found is None:
        counts: dict[str, int] = {}
        for node in ast.walk(statement):
            names: set[str] = set()
            _bind(node, names)
            for name in names:
                counts[name] = counts.get(name, 0) + 1
        found = _CONSTANT_PARTS[statement] = (counts, _literal_target(statement))
    return found


def _literal_target(statement: ast.stmt) -> str | None:
    match statement:
        case ast.Assign(targets=[ast.Name(id=name)], value=value):
            if sum(1 for _ in ast.walk(value)) > MAX_LITERAL_NODES:
                return None
            try:
                ast.literal_eval(value)
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                return None
            return name
    return None


Imported = tuple[str, int, str]
"""How an import binds a name: ``("import", 0, "numpy.random")`` for ``import numpy.random as
npr``, ``("import", 0, "torch")`` for ``import torch.nn``, ``("from", level, "numpy.random")`` for
``from numpy import random`` (the dotted name of what it binds; a relative one from its level)."""

_IMPORTED: WeakKeyDictionary[ast.Module, dict[str, Imported]] = WeakKeyDictionary()


def imported_once(tree: ast.Module) -> frozenset[str]:
    """Names that only import statements of the module's own top level bind, each to one object
    (``import torch``, ``import torch.nn.functional as F``; ``import torch`` and ``import
    torch.nn`` both bind ``torch`` to the package): whenever a function of the module reads one
    after the module ran, it reads what was imported. Empty when the module can bind names its text
    does not show."""
    return frozenset(_imported(tree))


def imported_module(tree: ast.Module, name: str) -> str | None:
    """The dotted name of what ``name`` holds where only one import of the module's top level binds
    it (see ``imported_once``): ``import random`` -> ``random``, ``import numpy.random as npr`` ->
    ``numpy.random``, ``from numpy import random`` -> ``numpy.random`` (a module, or a name one
    defines); None for any other name, and for a relative import."""
    found = _imported(tree).get(name)
    return found[2] if found is not None and found[1] == 0 else None


def _imported(tree: ast.Module) -> dict[str, Imported]:
    """What each name of ``imported_once`` was imported as, worked out once per module."""
    if tree not in _IMPORTED:
        _IMPORTED[tree] = _import_bindings(tree)
    return _IMPORTED[tree]


def _import_bindings(tree: ast.Module) -> dict[str, Imported]:
    if bound_anywhere(tree) is None:
        return {}
    counts: dict[str, int] = {}
    for statement in tree.body:
        for name, count in _constant_parts(statement)[0].items():
            counts[name] = counts.get(name, 0) + count
    imports: dict[str, list[Imported]] = {}
    for statement in tree.body:
        if isinstance(statement, ast.Import):
            for alias in statement.names:
                bound = alias.asname or alias.name.split(".")[0]
                imports.setdefault(bound, []).append(("import", 0, alias.name if alias.asname else bound))
        elif isinstance(statement, ast.ImportFrom):
            for alias in statement.names:
                dotted = f"{statement.module}.{alias.name}" if statement.module else alias.name
                imports.setdefault(alias.asname or alias.name, []).append(("from", statement.level, dotted))
    return {
        name: objects[0]
        for name, objects in imports.items()
        if counts.get(name) == len(objects) and len(set(objects)) == 1
    }


def builtin_unshadowed(name: str, tree: ast.Module) -> bool:
    """``name`` is a builtin that no code of the module binds: read anywhere in it, it is the
    builtin. False when the module can bind names its text does not show."""
    if name not in _BUILTINS or bound_anywhere(tree) is None:
        return False
    return not any(name in _binds(statement).anywhere for statement in tree.body)
