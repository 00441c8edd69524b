"""Statements: what each kind does to the state, branches and how they join, classes, assignment."""

from __future__ import annotations

import ast
import functools
from collections.abc import Callable, Sequence
from dataclasses import replace
from weakref import WeakKeyDictionary

from errknow_ls.analysis import torch_api as api
from errknow_ls.analysis.interpreter.autograd import call_qualname, is_grad_disabled
from errknow_ls.analysis.interpreter.base import (
    SOME_BRANCH,
    STEP_BUDGET,
    BudgetExceeded,
    FunctionNode,
    InterpreterBase,
)
from errknow_ls.analysis.state import Place, join_all
from errknow_ls.analysis.values import (
    MAX_KEYS,
    UNKNOWN,
    Choice,
    Class,
    ClassInfo,
    Const,
    Func,
    Instance,
    NNModule,
    Obj,
    Opaque,
    Ref,
    Seq,
    Tensor,
    Unknown,
    Value,
    element,
    identities_of,
    join,
    join_many,
)


class Statements(InterpreterBase):
    """Runs statements: one ``match`` over their kinds; ``if`` chains (one branch always runs where
    their tests cover every case); ``with``, ``try``, classes, assignments."""

    def exec_block(self, stmts: Sequence[ast.stmt]) -> None:
        if self.split_retests:
            self._exec_splitting(stmts)
            return
        for stmt in stmts:
            if self.state.dead:
                return
            self.exec_stmt(stmt)

    def _exec_splitting(self, stmts: Sequence[ast.stmt]) -> None:
        """``exec_block`` in a run that splits at tests the block repeats (``retests.py``)."""
        index = 0
        while index < len(stmts) and not self.state.dead:
            stmt = stmts[index]
            last = self.split_until(stmts, index)
            if last is not None:
                assert isinstance(stmt, ast.If)  # split_until saw to it
                self.exec_split(stmt.test, stmts[index : last + 1])
                index = last + 1
                continue
            self.exec_stmt(stmt)
            index += 1

    def exec_stmt(self, stmt: ast.stmt) -> None:  # noqa: PLR0915
        self.steps += 1
        self.total_steps += 1
        if self.steps > max(STEP_BUDGET, self.budget) or self.total_steps > self.budget:
            limit = self.budget if self.total_steps > self.budget else max(STEP_BUDGET, self.budget)
            raise BudgetExceeded(f"stopped after {limit:,} interpreted statements, the budget")
        self._current_stmt = stmt
        if self.frames:
            self.frames[-1].stmt = stmt
        match stmt:
            case ast.Expr(value=value):
                self.eval(value)
            case ast.Assign(targets=targets, value=value):
                result = self.eval(value)
                for target in targets:
                    self.assign(target, result)
            case ast.AnnAssign(target=target, value=value):
                if value is not None:  # a bare annotation binds nothing (and is not evaluated
                    self.assign(target, self.eval(value))  # in a function)
            case ast.AugAssign(target=target, op=op, value=value):
                current = self.eval(target)
                if self.no_grad and isinstance(current, Tensor) and current.grad and not current.nodes:
                    self._note_step(
                        stmt, current.owners
                    )  # `w -= lr * w.grad` under no_grad: a hand-written optimizer
                self.assign(target, _in_place(current, self.binop(current, self.eval(value), op, stmt)))
            case ast.If(test=test, body=body, orelse=orelse):
                chosen = self._forced.get(id(stmt))
                if chosen is None:
                    self.exec_if(test, body, orelse, stmt)
                else:
                    self.exec_chosen(stmt, chosen)
            case (
                ast.For(target=target, iter=iterable, body=body, orelse=orelse)
                | ast.AsyncFor(target=target, iter=iterable, body=body, orelse=orelse)
            ):
                walked = self.iterated(self.eval(iterable), iterable)
                self.exec_loop(stmt, body, orelse, target=target, items=walked)
                self._note_freezing_loop(target, iterable, body)
            case ast.While(test=test, body=body, orelse=orelse):
                self.exec_loop(stmt, body, orelse, test=test)
            case ast.With(items=items, body=body) | ast.AsyncWith(items=items, body=body):
                self.exec_with(items, body, stmt)
            case (
                ast.Try(body=body, handlers=handlers, orelse=orelse, finalbody=final)
                | ast.TryStar(body=body, handlers=handlers, orelse=orelse, finalbody=final)
            ):
                self.exec_try(body, handlers, orelse, final)
            case ast.Return(value=value):
                result = self.eval(value) if value is not None else Const(None)
                if not self.state.dead:  # evaluating the value may have raised
                    self.frames[-1].returns.append((result, self.state.copy()))
                self.state.dead = True
            case ast.Break():
                self._loop_context().breaks.append(self.state.copy()) if self._in_loop() else None
                self.state.dead = True
            case ast.Continue():
                self._loop_context().continues.append(self.state.copy()) if self._in_loop() else None
                self.state.dead = True
            case ast.Raise():
                self.state.dead = True
            case ast.FunctionDef() | ast.AsyncFunctionDef():
                closure = self.state.env if self.frames and self.frames[-1].func is not None else None
                scope = id(closure) if closure is not None else None
                self.state.env[stmt.name] = Func(stmt, None, scope, self._home())
                if closure is not None:
                    self._closures[id(closure)] = closure
            case ast.ClassDef():
                self.define_class(stmt)
            case ast.Import(names=names):
                for alias in names:
                    if alias.asname:
                        self.state.env[alias.asname] = self._import(alias.name, 0) or Ref(alias.name)
                        continue
                    bound = alias.name.split(".")[0]
                    self.state.env[bound] = self._import_package(alias.name, self.state.env.get(bound))
            case ast.ImportFrom(module=module, names=names, level=level):
                self._import_from(module, names, level)
            case ast.Delete(targets=targets):
                for target in targets:
                    if isinstance(target, ast.Name):
                        self.state.env.pop(target.id, None)
                    elif isinstance(target, ast.Subscript) and isinstance(target.slice, ast.Slice):
                        self.assign_place(target.value, Seq(UNKNOWN, "list", ()))  # del xs[:]
                    elif isinstance(target, ast.Subscript):
                        self.forget_keys(target.value, self.eval(target.value))
            case ast.Assert(test=test, msg=msg):
                self.eval(test)
                if msg is not None:
                    with self._maybe_evaluated():  # the message only when the test fails
                        self.eval(msg)
            case ast.Match(subject=subject, cases=cases):
                self.eval(subject)
                self.exec_branches([case.body for case in cases], fallthrough=True)
            case _:
                for child in ast.iter_child_nodes(stmt):
                    if isinstance(child, ast.expr):
                        self.eval(child)

    def exec_if(
        self, test: ast.expr, body: list[ast.stmt], orelse: list[ast.stmt], stmt: ast.If | None = None
    ) -> None:
        chain = _elif_chain(test, body, orelse)
        if chain is not None and self._exhaustive([t for t, _ in chain]):
            # `if k % 2 == 0: ... elif k % 2 == 1: ...`: one branch always runs, none is skipped
            self._exec_some_branch(chain)
            return
        truth = self.test_truth(test)
        if truth is not None:
            self.exec_block(body if truth else orelse)
            return
        if stmt is not None and self.loop_stack:
            self._note_flag_test(stmt, test)
        self.exec_branches([body, orelse], fallthrough=False)

    def _note_flag_test(self, stmt: ast.If, test: ast.expr) -> None:
        """An ``if self.<flag>:`` (or ``not``) whose outcome is unknown, run inside a loop: which
        object it tested, for the loop to run once per outcome (see ``Loops.exec_loop``)."""
        tested = test.operand if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) else test
        if not (isinstance(tested, ast.Attribute) and isinstance(tested.value, ast.Name)):
            return
        owner = self.eval(tested.value)  # a name: reading it again changes nothing
        oid = owner.oid if isinstance(owner, Obj) else None
        self.flag_notes += 1
        known = self._flag_tests.get(id(stmt))
        if known is not None and known[1] != oid:
            oid = None
        self._flag_tests[id(stmt)] = (stmt, oid)

    def _exhaustive(self, tests: list[ast.expr]) -> bool:
        """One of ``tests`` always holds: by their form (``_exhaustive``), or because they compare
        one name with every constant it can hold (``stage`` taken from a tuple of stage names), or
        with two or more constants while what it holds is not known at all and no code the check
        read compares it with another (a mode read from a configuration: taking it to be none of
        the values the code names would be a guess, and a path only that guess allows is no
        witness; AWP's ``args.attack == 'free'``, tested apart from a chain of the other attacks,
        keeps that chain's path where none runs)."""
        always, tested = _forms(tests)
        if always:
            return True
        if tested is None:
            return False
        first = tests[0]
        assert isinstance(first, ast.Compare)  # _tested_constants saw to it
        subject = first.left if not isinstance(first.left, ast.Constant) else first.comparators[0]
        value = self.eval(subject)  # a name or attributes: reading it again changes nothing
        if isinstance(value, Const):
            return any(value.value == constant for constant in tested[1])
        if isinstance(value, Choice):
            return value.values <= tested[1]
        if len(tests) < 2 or not isinstance(value, Unknown | Opaque):
            return False
        trees = [self.module, *self.trees.values()]
        return all(_compared_constants(tree).get(tested[0], set()) <= tested[1] for tree in trees)

    def exec_branches(self, blocks: list[list[ast.stmt]], fallthrough: bool) -> None:
        self.exec_apart([functools.partial(self.exec_block, block) for block in blocks], fallthrough)

    def exec_apart(self, runs: Sequence[Callable[[], None]], fallthrough: bool) -> None:
        """Each of ``runs`` from the state here, apart, then the state that may be any of theirs
        (or, with ``fallthrough``, the state here as it was)."""
        start = self.state
        outcomes = []
        start_mode, switches = self.no_grad, self.grad_mode_switches
        modes = [start_mode] if fallthrough else []
        for run in runs:
            self.state = start.copy()
            self.no_grad = start_mode
            run()
            outcomes.append(self.state)
            modes.append(self.no_grad)
        if fallthrough:
            outcomes.append(start)
        self.state = join_all(outcomes, self.twin)
        if self.grad_mode_switches != switches:
            self.no_grad = any(modes)  # a branch switched grad off: not known to be on after it

    def exec_chosen(self, stmt: ast.If, chosen: int) -> None:
        """An ``if``/``elif`` chain whose branch this path has chosen: the same at every iteration
        of the loop whose run chose it (its tests read nothing the loop changes); ``SOME_BRANCH``:
        one of its branches, not known which, never none of them."""
        chain = chain_of(stmt)
        if chosen == SOME_BRANCH:
            self._exec_some_branch(chain)
            return
        for index, (test, _) in enumerate(chain[: chosen + 1]):
            truth = self.test_truth(test)
            if truth is (index != chosen):  # a test known to go the other way: not this path
                self.state.dead = True
                return
        if chosen < len(chain):
            self.exec_block(chain[chosen][1])
        else:
            self.exec_block(chain_else(stmt))

    def _exec_some_branch(self, chain: list[tuple[ast.expr, list[ast.stmt]]]) -> None:
        """One branch of ``chain`` runs, any whose test may hold after those before it failed (the
        tests read only names and attributes: evaluating each once changes nothing)."""
        blocks = []
        for test, block in chain:
            truth = self.test_truth(test)
            if truth is not False:
                blocks.append(block)
            if truth is True:
                break
        if not blocks:
            self.state.dead = True  # each test known false: a path on which none runs, not this one
            return
        self.exec_branches(blocks, fallthrough=False)

    def exec_with(self, items: list[ast.withitem], body: list[ast.stmt], stmt: ast.stmt) -> None:
        saved, caching = self.no_grad, len(self.caching)
        for item in items:
            value = self.eval(item.context_expr)
            qualname = call_qualname(item.context_expr, value)
            if qualname in api.NO_GRAD_CONTEXTS or is_grad_disabled(item.context_expr, qualname):
                self.no_grad = True
            elif qualname in api.GRAD_CONTEXTS:
                self.no_grad = False
            elif (
                isinstance(value, Instance) and value.qualname == api.PARAMETRIZE_CACHED and not self.caching
            ):
                self.caching.append(stmt)
                self.cached_contexts.add(stmt)
            if item.optional_vars is not None:
                self.assign(item.optional_vars, UNKNOWN)
        try:
            self.exec_block(body)
        finally:
            self.no_grad = saved
            if len(self.caching) > caching:
                del self.caching[caching:]
                self.end_caching()

    def exec_try(
        self,
        body: list[ast.stmt],
        handlers: list[ast.ExceptHandler],
        orelse: list[ast.stmt],
        final: list[ast.stmt],
    ) -> None:
        start = self.state.copy()
        self.exec_block(body)
        self.exec_block(orelse)
        after_body = self.state
        outcomes = [after_body]
        for handler in handlers:
            self.state = start.copy()
            if handler.name:
                self.state.env[handler.name] = UNKNOWN
            self.exec_block(handler.body)
            outcomes.append(self.state)
        self.state = join_all(outcomes, self.twin)
        if final:
            was_dead = self.state.dead
            self.state.dead = False
            self.exec_block(final)
            self.state.dead = self.state.dead or was_dead

    def define_class(self, stmt: ast.ClassDef) -> None:
        methods: dict[str, FunctionNode] = {}
        homes: dict[str, str | None] = {}
        is_module = layer = function = lightning = transform = False
        base_values = [self.eval(base) for base in stmt.bases]
        for base_value in base_values:
            if isinstance(base_value, Class):
                methods.update(base_value.info.methods)
                homes.update(base_value.info.homes)
                is_module = is_module or base_value.info.is_module
                layer = layer or base_value.info.layer
                function = function or base_value.info.function
                lightning = lightning or base_value.info.lightning
                transform = transform or base_value.info.transform
            elif isinstance(base_value, Ref) and base_value.qualname in api.LIGHTNING_MODULES:
                is_module = lightning = True
            elif isinstance(base_value, Ref) and base_value.qualname.startswith(
                ("torch.nn", "pytorch_lightning", "lightning")
            ):
                is_module = True
                layer = layer or api.is_layer(base_value.qualname)
            elif isinstance(base_value, Ref) and base_value.qualname.endswith("autograd.Function"):
                function = True
            elif isinstance(base_value, Ref) and base_value.qualname in api.DISTRIBUTION_TRANSFORMS:
                transform = True
        for child in stmt.body:
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                methods[child.name] = child
                homes[child.name] = self._home()
        fields = self._dataclass_fields(stmt)
        only = base_values[0] if len(base_values) == 1 and not stmt.keywords else None
        parent = only.info if isinstance(only, Class) else None
        info = ClassInfo(
            stmt, methods, is_module, layer, function, fields, homes, lightning, parent, transform
        )
        self.classes[stmt.name] = info
        self.state.env[stmt.name] = Class(info)

    def _dataclass_fields(self, stmt: ast.ClassDef) -> tuple[tuple[str, ast.expr | None], ...] | None:
        """The fields of a class decorated with ``dataclasses.dataclass``, else None."""
        for decorator in stmt.decorator_list:
            target = decorator.func if isinstance(decorator, ast.Call) else decorator
            value = self.eval(target)
            if isinstance(value, Ref) and value.qualname == "dataclasses.dataclass":
                return tuple(
                    (child.target.id, child.value)
                    for child in stmt.body
                    if isinstance(child, ast.AnnAssign) and isinstance(child.target, ast.Name)
                )
        return None

    def assign(self, target: ast.expr, value: Value) -> None:
        match target:
            case ast.Name(id=name):
                self.state.env[name] = value
            case ast.Tuple(elts=elts) | ast.List(elts=elts):
                self._unpack(elts, value)
            case ast.Starred(value=inner):
                self.assign(inner, Seq(element(value)))
            case ast.Attribute(value=base, attr=attr):
                self.attributes_stored.add(attr)
                owner = self.eval(base)
                if isinstance(owner, Obj):
                    self.state.heap[Place(owner.oid, attr)] = value
                elif isinstance(owner, NNModule):
                    self.link(owner, value)  # `dec.weight = enc.weight`: tied, they share it
                elif attr == "requires_grad" and isinstance(base, ast.Name) and isinstance(owner, Tensor):
                    grad = not (isinstance(value, Const) and not value.value)
                    owners = owner.owners if owner.grad else frozenset({self.origin(target)})
                    self.state.env[base.id] = replace(owner, grad=grad, owners=owners, maybe=frozenset())
            case ast.Subscript(value=base, slice=index):
                container = self.eval(base)
                key = self.eval(index)
                if isinstance(container, Seq) and container.keys is not None and isinstance(key, Const):
                    self.assign_place(base, _with_key(container, key.value, value))
                elif isinstance(container, Tensor) and isinstance(value, Tensor) and value.grad:
                    # `buffer[idx] = w[idx]`: an index_put on the buffer, whose backward saved the
                    # indices; the buffer now has that graph
                    self.assign_place(base, self.op_node(target, [container, value, key], saves=True))
                elif _whole_slice(index) and isinstance(container, Seq) and isinstance(value, Seq):
                    # `xs[:] = ys`: the same list, holding ys's items (as `del xs[:]` empties it)
                    self.assign_place(base, Seq(value.item, container.kind, value.items))
                elif isinstance(container, NNModule):
                    self.link(container, value)  # `nets["G"] = other`: it holds other's parameters
                    self.assign_place(base, NNModule(container.label, container.frozen, container.origins))
                elif isinstance(container, Seq | Tensor) or container is UNKNOWN:
                    updated = _with_item(container, value)
                    if updated is not None:
                        self.assign_place(base, updated)

    def forget_keys(self, target: ast.expr, held: Value) -> None:
        """A key removed from the dict ``target`` holds (``del d[k]``, ``d.pop(k)``): which keys
        it has is no longer known (``f(**d)`` passes it by name only while it is)."""
        if isinstance(held, Seq) and held.keys is not None:
            self.assign_place(target, Seq(held.item, held.kind))

    def assign_place(self, target: ast.expr, value: Value) -> None:
        """Store back into a name or attribute (for ``xs.append(v)``, ``xs[i] = v``)."""
        if isinstance(target, ast.Name | ast.Attribute):
            self.assign(target, value)

    def _unpack(self, elts: list[ast.expr], value: Value) -> None:
        if isinstance(value, Seq) and value.items is not None and len(value.items) == len(elts):
            for elt, item in zip(elts, value.items, strict=True):
                self.assign(elt, item)
            return
        # Unpacking a tensor walks its first dimension: every part is a view into the same graph.
        item = element(value)
        for elt in elts:
            self.assign(elt, item)


def _whole_slice(index: ast.expr) -> bool:
    """``[:]``: every item of a sequence."""
    return isinstance(index, ast.Slice) and index.lower is None and index.upper is None and index.step is None


def _elif_chain(
    test: ast.expr, body: list[ast.stmt], orelse: list[ast.stmt]
) -> list[tuple[ast.expr, list[ast.stmt]]] | None:
    """``if a: ... elif b: ...`` with no final ``else``, as its tests and blocks (None otherwise)."""
    chain = [(test, body)]
    while len(orelse) == 1 and isinstance(orelse[0], ast.If):
        chain.append((orelse[0].test, orelse[0].body))
        orelse = orelse[0].orelse
    return chain if len(chain) > 1 and not orelse else None


_COMPLEMENTS = {ast.Lt: ast.GtE, ast.GtE: ast.Lt, ast.Gt: ast.LtE, ast.LtE: ast.Gt, ast.Eq: ast.NotEq}
_COMPLEMENTS |= {ast.NotEq: ast.Eq, ast.Is: ast.IsNot, ast.IsNot: ast.Is}


_FORMS: WeakKeyDictionary[ast.expr, tuple[bool, tuple[str, set[object]] | None]] = WeakKeyDictionary()


def _forms(tests: list[ast.expr]) -> tuple[bool, tuple[str, set[object]] | None]:
    """``_exhaustive`` and ``_tested_constants`` of an ``if``/``elif`` chain's tests, worked out
    once per chain (one in a loop or a helper is met on every run of it), by its first test: the
    test of the ``if`` whose ``elif`` branches are the rest."""
    known = _FORMS.get(tests[0])
    if known is None:
        known = _FORMS[tests[0]] = (_exhaustive(tests), _tested_constants(tests))
    return known


def _exhaustive(tests: list[ast.expr]) -> bool:
    """Whether one of ``tests`` always holds, by their form alone: ``x`` / ``not x``, ``a < b`` /
    ``a >= b`` (and the other complementary comparisons), ``n % k == 0`` ... ``n % k == k - 1``."""
    dumps = [ast.dump(t) for t in tests]
    for test in tests:
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) and ast.dump(test.operand) in dumps:
            return True
        if isinstance(test, ast.Compare) and len(test.ops) == 1:
            flipped = _COMPLEMENTS.get(type(test.ops[0]))
            if flipped is not None:
                other = ast.Compare(test.left, [flipped()], test.comparators)
                if ast.dump(other) in dumps:
                    return True
    return _covers_residues(tests)


def _covers_residues(tests: list[ast.expr]) -> bool:
    """``n % k == 0``, ``n % k == 1``, ... for every residue of one ``n % k`` (k a constant)."""
    subject: str | None = None
    modulus = 0
    seen: set[int] = set()
    for test in tests:
        if not (
            isinstance(test, ast.Compare)
            and len(test.ops) == 1
            and isinstance(test.ops[0], ast.Eq)
            and isinstance(test.left, ast.BinOp)
            and isinstance(test.left.op, ast.Mod)
            and isinstance(test.left.right, ast.Constant)
            and type(test.left.right.value) is int
            and isinstance(test.comparators[0], ast.Constant)
            and type(test.comparators[0].value) is int
        ):
            continue
        if subject is None:
            subject, modulus = ast.dump(test.left), test.left.right.value
        if ast.dump(test.left) == subject:
            seen.add(test.comparators[0].value)
    return 0 < modulus <= 64 and seen >= set(range(modulus))


def _tested_constants(tests: list[ast.expr]) -> tuple[str, set[object]] | None:
    """``x == "a"``, ``x == "b"``, ``x in ("c", "d")`` …: the one subject (a name or attribute,
    dumped) and every constant the tests compare it with; None for any other test."""
    subject: str | None = None
    constants: set[object] = set()
    for test in tests:
        if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
            return None
        left, right = test.left, test.comparators[0]
        if isinstance(test.ops[0], ast.Eq) and isinstance(left, ast.Constant):
            left, right = right, left
        if not isinstance(left, ast.Name | ast.Attribute) or any(
            not isinstance(n, ast.Name | ast.Attribute | ast.Load) for n in ast.walk(left)
        ):
            return None
        compared = (
            constants_compared(test.ops[0], right) if isinstance(test.ops[0], ast.Eq | ast.In) else None
        )
        if compared is None:
            return None
        constants.update(compared)
        if subject not in (None, ast.dump(left)):
            return None
        subject = ast.dump(left)
    return (subject, constants) if subject is not None else None


_COMPARED: WeakKeyDictionary[ast.Module, dict[str, set[object]]] = WeakKeyDictionary()


def constants_compared(op: ast.cmpop, other: ast.expr) -> frozenset[object] | None:
    """The constants ``== other`` (``!=``) or ``in other`` (``not in``) compares with, where
    ``other`` is a constant or a literal list, tuple or set of constants; None otherwise."""
    if isinstance(op, ast.Eq | ast.NotEq) and isinstance(other, ast.Constant):
        return frozenset([other.value])
    if not (isinstance(op, ast.In | ast.NotIn) and isinstance(other, ast.List | ast.Tuple | ast.Set)):
        return None
    elements = [e.value for e in other.elts if isinstance(e, ast.Constant)]
    return frozenset(elements) if len(elements) == len(other.elts) else None


def _compared_constants(tree: ast.Module) -> dict[str, set[object]]:
    """Every name or attribute the module's code compares with constants (``x == "a"``, ``x !=
    "b"``, ``x in ("c", "d")``), by its tree's dump, with those constants (once per tree)."""
    found = _COMPARED.get(tree)
    if found is None:
        found = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.Compare) and len(node.ops) == 1:
                compared = _tested_constants([ast.Compare(node.left, [ast.Eq()], node.comparators)])
                if isinstance(node.ops[0], ast.In | ast.NotIn):
                    compared = _tested_constants([ast.Compare(node.left, [ast.In()], node.comparators)])
                elif not isinstance(node.ops[0], ast.Eq | ast.NotEq):
                    compared = None
                if compared is not None:
                    found.setdefault(compared[0], set()).update(compared[1])
        _COMPARED[tree] = found
    return found


def chain_of(stmt: ast.If) -> list[tuple[ast.expr, list[ast.stmt]]]:
    """An ``if``/``elif`` chain's tests and blocks, in order."""
    chain = [(stmt.test, stmt.body)]
    orelse = stmt.orelse
    while len(orelse) == 1 and isinstance(orelse[0], ast.If):
        chain.append((orelse[0].test, orelse[0].body))
        orelse = orelse[0].orelse
    return chain


def chain_else(stmt: ast.If) -> list[ast.stmt]:
    orelse = stmt.orelse
    while len(orelse) == 1 and isinstance(orelse[0], ast.If):
        orelse = orelse[0].orelse
    return orelse


def _with_key(container: Seq, key: object, value: Value) -> Seq:
    """``d[key] = value`` on a dict whose keys are known."""
    keys, items = container.keys or (), container.items or ()
    if key in keys:
        at = keys.index(key)
        items = (*items[:at], value, *items[at + 1 :])
    elif len(keys) < MAX_KEYS:
        keys, items = (*keys, key), (*items, value)
    else:
        return Seq(join(element(container), value), container.kind)
    return Seq(join_many(list(items)), container.kind, items, keys=keys)


def _with_item(container: Value, value: Value) -> Value | None:
    if isinstance(container, Seq):
        return Seq(join(element(container), value), container.kind)
    if isinstance(container, Tensor):
        if isinstance(value, Tensor):
            return Tensor(container.nodes | value.nodes, container.grad or value.grad, None)
        return None
    return Seq(value, "list")


def _in_place(current: Value, updated: Value) -> Value:
    """What ``current += ...`` leaves: on a tensor the update is in place (``Tensor.__iadd__``), so
    the result is the same tensor, now made by a new op."""
    if isinstance(current, Tensor) and isinstance(updated, Tensor):
        return replace(updated, identities=identities_of(current) | identities_of(updated))
    return updated
