"""Expressions: names, attributes, operators, comparisons, containers and comprehensions."""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, cast

from errknow_ls.analysis import torch_api as api
from errknow_ls.analysis.interpreter.base import InterpreterBase
from errknow_ls.analysis.names import raises_name_error
from errknow_ls.analysis.state import Place
from errknow_ls.analysis.values import (
    MAX_ITEMS,
    MAX_KEYS,
    NUMBER,
    UNKNOWN,
    AtLeast,
    Choice,
    Class,
    Const,
    Func,
    GradFn,
    ModuleRef,
    NNModule,
    Number,
    Obj,
    Opaque,
    Ref,
    Seq,
    Tensor,
    Unknown,
    Value,
    element,
    join,
    join_many,
    nodes_of,
    nth,
    number_at,
    outside,
    renamed,
    walked,
)


class Expressions(InterpreterBase):
    """Evaluates expressions to abstract values."""

    def eval(self, expr: ast.expr) -> Value:
        match expr:
            case ast.Constant(value=value):
                return Const(value)
            case ast.Name(id=name):
                return self.lookup(name)
            case ast.Attribute(value=base, attr=attr):
                return self.attribute(self.eval(base), attr, expr)
            case ast.Call():
                return self.call(expr)
            case ast.BinOp(left=left, op=op, right=right):
                return self.binop(self.eval(left), self.eval(right), op, expr)
            case ast.UnaryOp(op=unary, operand=operand):
                operand_value = self.eval(operand)
                if isinstance(unary, ast.Not):
                    return _const_not(operand_value)
                return self.op_node(expr, [operand_value], saves=False)
            case ast.BoolOp(op=op, values=operands):
                return self.bool_op(isinstance(op, ast.And), operands)
            case ast.Compare(left=first, comparators=comparators):
                compared = [self.eval(first), *(self.eval(c) for c in comparators)]
                return self._or_flagged(expr, _compare_const(expr, compared))
            case ast.IfExp(test=test, body=body, orelse=orelse):
                return self.if_exp(test, body, orelse)
            case ast.Tuple(elts=elts) | ast.List(elts=elts) | ast.Set(elts=elts):
                kind = "tuple" if isinstance(expr, ast.Tuple) else "list"
                return self.display(elts, kind)
            case ast.Dict(keys=keys, values=values):
                for key in keys:
                    if key is not None:
                        self.eval(key)
                evaluated = tuple(self.eval(v) for v in values)
                constant = [k.value for k in keys if isinstance(k, ast.Constant)]
                limit = MAX_KEYS if len(constant) == len(keys) else MAX_ITEMS
                known = evaluated if len(evaluated) <= limit else None
                named = tuple(constant) if known is not None and len(constant) == len(keys) else None
                if named is not None and len(set(named)) != len(named):
                    named, known = None, None  # a key given twice: the last wins, not worth following
                return Seq(join_many(list(evaluated)), "dict", known, keys=named)
            case ast.Subscript(value=base, slice=index):
                return self.subscript(self.eval(base), self.eval(index), index, expr)
            case (
                ast.ListComp(elt=elt, generators=gens)
                | ast.SetComp(elt=elt, generators=gens)
                | (ast.GeneratorExp(elt=elt, generators=gens))
            ):
                return self.list_comprehension(gens, elt)
            case ast.DictComp(key=key, value=elt, generators=gens):
                return self.dict_comprehension(gens, key, elt)
            case ast.Lambda():
                if not self.frames or self.frames[-1].func is None:
                    return Func(expr, module=self._home())
                scope = self.state.env  # a lambda in a function reads that function's names
                self._closures[id(scope)] = scope
                return Func(expr, None, id(scope), self._home())
            case ast.Starred(value=inner):
                return self.eval(inner)
            case ast.NamedExpr(target=target, value=value):
                result = self.eval(value)
                self.assign(target, result)
                return result
            case ast.Yield(value=inner) | ast.YieldFrom(value=inner):
                yielded = self.eval(inner) if inner is not None else Const(None)
                if self.frames:
                    self.frames[-1].yields.append(
                        element(yielded) if isinstance(expr, ast.YieldFrom) else yielded
                    )
                return UNKNOWN
            case ast.Await(value=inner):
                return self.eval(inner)
            case ast.JoinedStr(values=values):
                for part in values:
                    self.eval(part)
                return UNKNOWN
            case ast.FormattedValue(value=inner):
                self.eval(inner)
                return UNKNOWN
            case ast.Slice(lower=lower, upper=upper, step=step):
                for bound in (lower, upper, step):
                    if bound is not None:
                        self.eval(bound)
                return UNKNOWN
        return UNKNOWN

    def bool_op(self, conjunction: bool, operands: list[ast.expr]) -> Value:
        """``a and b`` / ``a or b`` as Python evaluates them: an operand whose truth is known and
        ends the evaluation (a false one in ``and``, a true one in ``or``) is the value, and what
        follows it is not evaluated; one whose truth is known and does not end it is not the
        value; one whose truth is not known may be the value or not."""
        given: list[Value] = []
        certain = True
        for index, operand in enumerate(operands):
            with self._maybe_evaluated(not certain):
                value = self.eval(operand)
            truth = truth_of(value)
            if index == len(operands) - 1 or truth is None:
                given.append(value)
                certain = False
            elif truth is not conjunction:  # `False and …`, `True or …`: the evaluation ends
                given.append(value)
                break
        return join_many(given)

    def test_truth(self, test: ast.expr) -> bool | None:
        """What ``bool(test)`` gives where it is known, evaluating ``test`` as Python does: ``not``,
        ``and`` and ``or`` by their operands' truth (``unknown and False`` is false, whatever the
        first operand holds), the flags this run fixed (``flags.py``), and the tests a split of
        this run decides (``retests.py``; ``not x`` too, before its operand is looked at)."""
        split = self.retest_truth(test)
        if split is not None:
            return split
        match test:
            case ast.UnaryOp(op=ast.Not(), operand=operand):
                truth = self.test_truth(operand)
                return None if truth is None else not truth
            case ast.BoolOp(op=op, values=operands):
                conjunction = isinstance(op, ast.And)
                certain = True
                for operand in operands:
                    with self._maybe_evaluated(not certain):
                        truth = self.test_truth(operand)
                    if truth is None:
                        certain = False
                    elif truth is not conjunction:  # `… and False`, `… or True`: the outcome
                        return truth
                return conjunction if certain else None
        truth = truth_of(self.eval(test))
        return truth if truth is not None else self.flag_truth(test)

    def _or_flagged(self, test: ast.expr, value: Value) -> Value:
        """``value``, or what a flag this run fixed makes of ``test`` where ``value`` is not known
        (``per_context = self.mask_dict is not None``): see ``flags.py``."""
        if isinstance(value, Const):
            return value
        truth = self.flag_truth(test)
        return value if truth is None else Const(truth)

    def if_exp(self, test: ast.expr, body: ast.expr, orelse: ast.expr) -> Value:
        truth = self.test_truth(test)
        if truth is not None:  # a known test: only that branch is evaluated
            return self.eval(body if truth else orelse)
        with self._maybe_evaluated():  # one of the two, as the test says
            return join(self.eval(body), self.eval(orelse))

    def display(self, elts: list[ast.expr], kind: str) -> Seq:
        """``[a, *rest, b]``: the items in order, those of ``rest`` spliced in where each is known
        (otherwise ``rest`` stands as one item: what it holds, not where)."""
        given = [self.eval(elt.value if isinstance(elt, ast.Starred) else elt) for elt in elts]
        spliced: list[Value] = []
        for elt, value in zip(elts, given, strict=True):
            spread = _known_items(walked(value)) if isinstance(elt, ast.Starred) else (value,)
            if spread is None:
                spliced = given
                break
            spliced.extend(spread)
        return Seq(join_many(spliced) if spliced else UNKNOWN, kind, tuple(spliced))

    def list_comprehension(self, generators: list[ast.comprehension], elt: ast.expr) -> Seq:
        """Two items when one ``for`` walks something whose items we know not: ``[crit(h(f), y) for h
        in heads]`` makes one loss per head, and a later ``for loss in losses`` sees them apart."""
        if len(generators) != 1:
            return Seq(self.comprehension(generators, elt), "list")
        iterable = walked(self.eval(generators[0].iter))
        known = _known_items(iterable)
        if generators[0].ifs:
            if known is not None:
                return self._filtered(generators[0], elt, known)
            return Seq(self.comprehension(generators, elt, element(iterable)), "list")
        if isinstance(iterable, Seq) and iterable.kind == "range" and 0 < iterable.least <= MAX_ITEMS:
            # `range(6)`: six items, each its own, with its own number
            numbers = range(iterable.least)
            items = tuple(self.comprehension(generators, elt, number_at(iterable, i)) for i in numbers)
            return Seq(join_many(list(items)), "list", items)
        count = min(len(iterable.items), MAX_ITEMS) if isinstance(iterable, Seq) and iterable.items else 2
        items = tuple(self.comprehension(generators, elt, nth(iterable, i)) for i in range(count))
        return Seq(join_many(list(items)), "list", items if items else None)

    def _filtered(self, generator: ast.comprehension, elt: ast.expr, items: tuple[Value, ...]) -> Seq:
        """``[m.alpha for m in blocks if isinstance(m, AdaRound)]`` over items each known: every
        item's conditions are evaluated on it, and the items they are known to keep are the list's
        (an item whose conditions are not known may be kept: the list's items are then not known)."""
        kept: list[Value] = []
        decided = True
        with self._comprehension_scope():
            for item in items:
                self.assign(generator.target, item)
                truths: list[bool | None] = []
                for cond in generator.ifs:
                    with self._maybe_evaluated(bool(truths)):  # a later condition: if the earlier held
                        truths.append(truth_of(self.eval(cond)))
                    if truths[-1] is False:
                        break
                if truths[-1] is False:
                    continue
                certain = all(truths)
                decided = decided and certain
                with self._maybe_evaluated(not certain):
                    kept.append(self.eval(elt))
        return Seq(join_many(kept), "list", tuple(kept) if decided else None)

    def dict_comprehension(self, generators: list[ast.comprehension], key: ast.expr, elt: ast.expr) -> Seq:
        """``{k: torch.cat([t[k] for t in batch]) for k in batch[0].keys()}`` over items each known,
        whose keys come out constant and apart: a dict of those keys, each with its own value, as
        the literal of them is; otherwise one value stands for every item."""
        iterable = walked(self.eval(generators[0].iter))
        known = _known_items(iterable) if len(generators) == 1 and not generators[0].ifs else None
        if known is None:  # (at most MAX_ITEMS, fewer than a dict keeps apart by key)
            return Seq(self.comprehension(generators, elt, element(iterable)), "dict")
        keys: list[Value] = []
        values: list[Value] = []
        with self._comprehension_scope():
            for item in known:
                self.assign(generators[0].target, item)
                with self._maybe_evaluated():  # as ``comprehension`` evaluates an item's expression
                    keys.append(self.eval(key))
                    values.append(self.eval(elt))
        named = tuple(k.value for k in keys if isinstance(k, Const) and isinstance(k.value, str | int))
        if len(named) != len(keys) or len(set(named)) != len(named):
            return Seq(join_many(values), "dict")
        return Seq(join_many(values), "dict", tuple(values), keys=named)

    def comprehension(
        self, generators: list[ast.comprehension], elt: ast.expr, first: Value | None = None
    ) -> Value:
        with self._comprehension_scope():
            for index, gen in enumerate(generators):
                if index == 0 and first is not None:
                    self.assign(gen.target, first)  # what the first iterable gives, evaluated already
                else:
                    with self._maybe_evaluated(index > 0):  # the first iterable is always evaluated
                        self.assign(gen.target, element(self.eval(gen.iter)))
                with self._maybe_evaluated():
                    for cond in gen.ifs:
                        self.eval(cond)
            with self._maybe_evaluated():  # only for an item the iterables give
                result = self.eval(elt)
        return result

    @contextmanager
    def _comprehension_scope(self) -> Iterator[None]:
        """A comprehension's names are its own: those it binds are gone after it, and those of
        the scope around it keep what it left in them (not restored where its evaluation raises:
        the budget or the stack then ends the run)."""
        saved = dict(self.state.env)
        yield
        self.state.env = {**saved, **{k: v for k, v in self.state.env.items() if k in saved}}

    def lookup(self, name: str) -> Value:
        if name in self.state.env:
            return self.state.env[name]
        frame = self.frames[-1] if self.frames else None
        if frame is not None and frame.closure is not None and name in frame.closure:
            return frame.closure[name]
        if name in self.globals:
            return self.globals[name]
        if name in ("True", "False", "None"):
            return Const({"True": True, "False": False, "None": None}[name])
        home = self._home()
        tree = self.module if home is None else self.trees.get(home)
        module_names = self.globals if self._module_running and home is None else None
        if frame is not None and frame.func is None and module_names is not None:
            module_names = self.state.env  # module-level code reads the module's names directly
        if tree is not None and raises_name_error(name, tree, module_names):
            self._name_error()
        return UNKNOWN

    def _name_error(self) -> None:
        """Reading a name bound nowhere raises NameError: the path ends here. What a retained graph
        was kept for after this point is not seen."""
        if self._conditional:
            return  # a part of an expression that may not be evaluated
        self.state.dead = True
        for site in self.retain_sites.values():
            site.unseen = True

    def attribute(self, owner: Value, attr: str, expr: ast.expr) -> Value:
        if isinstance(owner, Ref):
            return outside(f"{owner.qualname}.{attr}")
        if isinstance(owner, ModuleRef):
            named = self.namespaces.get(owner.key, {}).get(attr)
            return named if named is not None else owner.submodule(attr) or UNKNOWN
        if isinstance(owner, Obj):
            stored = self.state.heap.get(Place(owner.oid, attr))
            if stored is not None:
                return stored
            method = owner.cls.methods.get(attr)
            if method is None and owner.cls.layer and api.is_parameter_name(attr):
                # `self.weight` of a subclass of nn.Linear
                return Tensor(frozenset(), True, owners=frozenset({self.object_origin(owner)}))
            if method is None:
                return UNKNOWN
            bound = None if self.static_method(method) else owner  # a staticmethod takes no self
            return Func(method, bound, module=owner.cls.homes.get(attr))
        if isinstance(owner, Class):
            method = owner.info.methods.get(attr)
            return Func(method, module=owner.info.homes.get(attr)) if method is not None else UNKNOWN
        if attr == "grad" and isinstance(owner, Tensor | NNModule | Unknown | Opaque):
            self.note_gradient_use(owner, "`.grad`")
        if isinstance(owner, NNModule) and owner.normed is not None and owner.normed.name == attr:
            return owner.normed.weight or UNKNOWN  # what the old weight norm computed last, if known
        if isinstance(owner, NNModule):
            cached = owner.parametrization is not None and owner.parametrization[0] == attr and owner.carries
            if cached and self.caching:
                # the tensor `parametrize.cached()` keeps: the graph the first read computed
                self.cached_reads[expr] = self.cached_reads.get(expr, frozenset()) | owner.carries
                return Tensor(owner.carries, True, owners=owner.origins)
            made = api.is_layer(f"torch.nn.{owner.label}") and api.is_parameter_name(attr)
            return NNModule(attr, owner.frozen, owner.origins, parameter=made)
        if isinstance(owner, Tensor) and attr == "grad_fn" and owner.root is not None:
            return GradFn(owner.root)
        if isinstance(owner, GradFn) and (attr.startswith("_saved_") or attr in api.SAVED_TENSOR_ATTRIBUTES):
            self._read_saved(owner, expr)
            return UNKNOWN
        if isinstance(owner, Tensor):
            if attr in api.CUT_ATTRIBUTES:
                return Tensor(grad=False)
            if attr in api.VIEW_ATTRIBUTES:
                return self.op_node(expr, [owner], saves=False)
            if attr in api.SCALAR_ATTRIBUTES or attr.startswith("_"):
                return UNKNOWN
            if attr == "indices":
                return Tensor(grad=False)
            if attr == "values":  # `.values` of what max(), topk() or sort() give: that graph
                return Tensor(owner.nodes, owner.grad, None)
        return UNKNOWN

    def static_method(self, method: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
        """Decorated with the builtin ``staticmethod`` (not a name the program binds)."""
        return any(
            isinstance(d, ast.Name) and d.id == "staticmethod" and d.id not in self.globals
            for d in method.decorator_list
        )

    def subscript(self, base: Value, index: Value, index_expr: ast.expr, expr: ast.expr) -> Value:
        if isinstance(base, NNModule) and base.parameter:
            base = _as_operand(base)  # a slice of a layer's parameter: ``policy.weight[:, :2]``
        if isinstance(base, NNModule) or (isinstance(base, Obj) and base.cls.is_module):
            # model[0], self.heads["label"]: a submodule, part of what it holds (that part, where
            # the container's parts are known by key)
            parts = dict(base.parts) if isinstance(base, NNModule) and base.parts else {}
            key = index.value if isinstance(index, Const) else None
            if key in parts and (isinstance(key, str) or type(key) is int):
                members = dict(base.members) if isinstance(base, NNModule) and base.members else {}
                return members[key] if key in members else NNModule("item", origins=parts[key])
            return NNModule("item", origins=self.origins_of(base))
        if isinstance(base, Tensor):
            return self.op_node(expr, [base], saves=_advanced_index(index))
        if isinstance(base, Seq):
            if base.keys is not None and base.items is not None and isinstance(index, Const):
                if index.value in base.keys:
                    return base.items[base.keys.index(index.value)]
                # A key it was never given here: stored through another name for the same dict
                # (``for t in batch: t["advantage"] = ...``), which is not followed, or a KeyError.
                # Either way, none of the items it is known to hold is the value.
                return UNKNOWN
            if base.items is not None and isinstance(index, Const) and isinstance(index.value, int):
                position = index.value
                if -len(base.items) <= position < len(base.items):
                    return base.items[position]
            if isinstance(index_expr, ast.Slice):
                items = _sliced(base.items, index_expr)
                some_of = base.items if items is None and base.kind == "list" else None
                return Seq(element(base), base.kind, items, some_of=some_of)
            counted = self._counted_read(base, index_expr)
            if counted is not None:
                return counted
            return _choice_of(base) or element(base)
        return UNKNOWN

    def _counted_read(self, base: Seq, index_expr: ast.expr) -> Value | None:
        """``losses[i]``, ``i`` the counter of a loop around (:attr:`LoopContext.counter`), in a list
        whose items are known: any of its items, but another one at each iteration. What the items
        do not all share (each one's own graph) is, at each iteration, a twin of its own, the same
        for every such read in that iteration; what they share (a trunk they were all computed
        from) stays the same graph. None where the read is not such a read."""
        if not isinstance(index_expr, ast.Name) or base.items is None or len(base.items) < 2:
            return None
        if base.kind not in ("list", "tuple") or base.keys is not None or not self.frames:
            return None
        context = next((c for c in reversed(self.frames[-1].loops) if c.counter == index_expr.id), None)
        if context is None:
            return None
        own = [nodes_of(item) for item in base.items]
        shared = frozenset.intersection(*own)
        apart = frozenset().union(*own) - shared
        value = element(base)
        if not apart:
            return value
        where = (context.loop.key, context.iteration)
        names = {node: self._counted_twin(where, node) for node in sorted(apart)}
        return renamed(value, names)

    def _counted_twin(self, where: tuple[int, int], node: int) -> int:
        """The twin of ``node`` that reads by a loop's counter give at one iteration of it."""
        key = (*where, node)
        twin = self._counted_reads.get(key)
        if twin is None:
            twin = self._counted_reads[key] = self.twin(node)
        return twin

    def binop(self, left: Value, right: Value, op: ast.operator, expr: ast.AST) -> Value:
        if isinstance(left, Seq) and isinstance(right, Seq) and isinstance(op, ast.Add):
            return Seq(join(element(left), element(right)), left.kind)
        numbers = [
            isinstance(v, Number) or (isinstance(v, Const) and _is_number(v.value)) for v in (left, right)
        ]
        if all(numbers):
            return _folded(left, right, op) or NUMBER
        saves = not isinstance(op, ast.Add | ast.Sub)  # even `w * 2` saves: torch raises on its second pass
        operands = [_as_operand(left), _as_operand(right)]
        if isinstance(left, Const) and isinstance(right, Const):
            return UNKNOWN
        if isinstance(op, ast.Mult | ast.Div):
            self._note_factor(expr, _constant_factor(left, right, op))
        return self.op_node(expr, operands, saves=saves)

    def _note_factor(self, site: ast.AST, factor: float | None) -> None:
        """The number ``site`` scaled a tensor by on this run (None: not one known constant)."""
        if site in self.constant_factors and self.constant_factors[site] != factor:
            factor = None
        self.constant_factors[site] = factor


def _is_number(value: object) -> bool:
    return type(value) in (int, float, bool)


def _constant_factor(left: Value, right: Value, op: ast.operator) -> float | None:
    """``c * t``, ``t * c`` or ``t / c`` with ``c`` a constant number and ``t`` not one: ``c``
    (``1 / c`` for a quotient); None otherwise."""
    by_left, by_right = _constant_number(left), _constant_number(right)
    if by_left is None and by_right is not None:
        if isinstance(op, ast.Div):
            return 1.0 / by_right if by_right else None
        return by_right
    if by_right is None and by_left is not None and isinstance(op, ast.Mult):
        return by_left
    return None


def _constant_number(value: Value) -> float | None:
    number = value.value if isinstance(value, Const) else None
    return float(number) if isinstance(number, int | float) and not isinstance(number, bool) else None


_ARITHMETIC: dict[type[ast.operator], Callable[[Any, Any], object]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
}
_ORDERINGS: dict[type[ast.cmpop], Callable[[Any, Any], bool]] = {
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
}
_FOLDED_LIMIT = 2**53
"""Constant arithmetic is done only on numbers this small (a loop index, a step count)."""


def _folded(left: Value, right: Value, op: ast.operator) -> Const | None:
    """``left op right`` where both are constant ints (``step % 2``, ``epoch + 1``)."""
    arithmetic = _ARITHMETIC.get(type(op))
    if arithmetic is None or not (isinstance(left, Const) and isinstance(right, Const)):
        return None
    if type(left.value) is not int or type(right.value) is not int:
        return None
    if isinstance(op, ast.FloorDiv | ast.Mod) and right.value == 0:
        return None  # raises ZeroDivisionError: not a number
    result = arithmetic(left.value, right.value)
    return Const(result) if isinstance(result, int) and abs(result) < _FOLDED_LIMIT else None


def _sliced(items: tuple[Value, ...] | None, index: ast.Slice) -> tuple[Value, ...] | None:
    """The items a slice with constant bounds keeps (``xs[::-1]``: each item still apart)."""
    parts = (index.lower, index.upper, index.step)
    if items is None or not all(p is None or _int_constant(p) is not None for p in parts):
        return None
    lower, upper, step = (None if p is None else _int_constant(p) for p in parts)
    try:
        return items[lower:upper:step]
    except ValueError:  # a step of 0
        return None


def _int_constant(expr: ast.expr) -> int | None:
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.USub):
        inner = _int_constant(expr.operand)
        return None if inner is None else -inner
    if isinstance(expr, ast.Constant) and type(expr.value) is int:
        return expr.value
    return None


def _as_operand(value: Value) -> Value:
    """What an operand of arithmetic holds: a torch layer's parameter is a leaf that requires grad;
    any other attribute of a module that is not followed (``model.model[-1].nl``, an int there) may
    be an int, a buffer or a parameter: unknown."""
    if isinstance(value, NNModule):
        return Tensor(frozenset(), True, owners=value.origins) if value.parameter else UNKNOWN
    return value


def _const_not(value: Value) -> Value:
    return Const(not value.value) if isinstance(value, Const) else UNKNOWN


def _definitely_not_none(value: Value) -> bool:
    return isinstance(value, Tensor | Seq | Obj | NNModule | Func | Class) or (
        isinstance(value, Const) and value.value is not None
    )


def _compare_const(expr: ast.Compare, values: list[Value]) -> Value:
    if len(values) == 2 and len(expr.ops) == 1 and isinstance(expr.ops[0], ast.Is | ast.IsNot):
        subject, other = values
        if isinstance(other, Const) and other.value is None:
            is_none = isinstance(subject, Const) and subject.value is None
            if is_none or _definitely_not_none(subject):
                return Const(is_none == isinstance(expr.ops[0], ast.Is))
    if len(values) == 2 and len(expr.ops) == 1 and isinstance(expr.ops[0], ast.Eq | ast.NotEq):
        choice, other = values if isinstance(values[0], Choice) else values[::-1]
        if isinstance(choice, Choice) and isinstance(other, Const) and other.value not in choice.values:
            return Const(isinstance(expr.ops[0], ast.NotEq))  # none of the values it can take
    if len(values) == 2 and len(expr.ops) == 1 and any(isinstance(v, AtLeast) for v in values):
        bounded = _bounded_compare(values[0], expr.ops[0], values[1])
        if bounded is not None:
            return Const(bounded)
    if len(values) == 2 and all(isinstance(v, Const) for v in values) and len(expr.ops) == 1:
        left, right = (v.value for v in values if isinstance(v, Const))
        if isinstance(expr.ops[0], ast.Eq):
            return Const(left == right)
        if isinstance(expr.ops[0], ast.NotEq):
            return Const(left != right)
        ordering = _ORDERINGS.get(type(expr.ops[0]))
        if ordering is not None and _is_number(left) and _is_number(right):
            return Const(ordering(left, right))
    if any(isinstance(v, Tensor) for v in values):
        return Tensor(grad=False)
    return UNKNOWN


def _bounded_compare(left: Value, op: ast.cmpop, right: Value) -> bool | None:
    """``n > 0`` and the like, where one side is a number known to be at least some bound and the
    other a constant number, and the bound decides it."""
    if isinstance(left, Const):
        flipped = _FLIPPED.get(type(op))
        if flipped is None:
            return None
        left, op, right = right, flipped(), left
    if not isinstance(left, AtLeast) or not isinstance(right, Const) or not _is_number(right.value):
        return None
    bound = cast("float", right.value)
    if left.least > bound:  # every value it can take is above the constant
        return {
            ast.Gt: True,
            ast.GtE: True,
            ast.Lt: False,
            ast.LtE: False,
            ast.Eq: False,
            ast.NotEq: True,
        }.get(type(op))
    if left.least == bound:
        return {ast.GtE: True, ast.Lt: False}.get(type(op))
    return None


_FLIPPED: dict[type[ast.cmpop], type[ast.cmpop]] = {
    ast.Lt: ast.Gt,
    ast.Gt: ast.Lt,
    ast.LtE: ast.GtE,
    ast.GtE: ast.LtE,
    ast.Eq: ast.Eq,
    ast.NotEq: ast.NotEq,
}


def truth_of(value: Value) -> bool | None:
    """What ``bool(value)`` gives, where the value is a known constant (or a number known to be
    at least 1)."""
    if isinstance(value, Const) and isinstance(value.value, bool | int | float | str | bytes | type(None)):
        return bool(value.value)
    if isinstance(value, AtLeast) and value.least > 0:
        return True
    return None


def _choice_of(base: Seq) -> Choice | None:
    """An item of a tuple of constants, at an index not known."""
    if base.kind != "tuple" or not base.items or len(base.items) > MAX_ITEMS:
        return None
    if not all(isinstance(item, Const) for item in base.items):
        return None
    return Choice(frozenset(item.value for item in base.items if isinstance(item, Const)))


def _advanced_index(index: Value) -> bool:
    """``t[idx]`` with a tensor or a list as the index (or among a tuple's): advanced indexing,
    whose backward keeps the index tensor (freed with the graph). Integers, slices, ``None`` and
    ``...`` keep nothing; an index not known is not taken to keep anything."""
    if isinstance(index, Tensor):
        return True
    if isinstance(index, Seq) and index.kind == "list":
        return True
    if isinstance(index, Seq) and index.kind == "tuple" and index.items is not None:
        return any(_advanced_index(item) for item in index.items)
    return False


def _known_items(iterable: Value) -> tuple[Value, ...] | None:
    """The items a ``for`` over ``iterable`` walks, where each is known, at most ``MAX_ITEMS``."""
    if not isinstance(iterable, Seq) or iterable.kind == "range" or iterable.items is None:
        return None
    return iterable.items if len(iterable.items) <= MAX_ITEMS else None
