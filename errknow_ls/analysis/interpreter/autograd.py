"""Autograd: what torch's ops, tensor methods, modules and optimizers do to the graph (a new node
for an op on a tensor that needs grad, none under ``no_grad``), and where grad is disabled."""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence
from dataclasses import replace

from errknow_ls.analysis import torch_api as api
from errknow_ls.analysis.interpreter.backward import flag, receiver_expr
from errknow_ls.analysis.interpreter.base import (
    CACHE_SIZE,
    CACHED_X,
    CACHED_Y,
    FROZEN,
    GRAPH_NODE_BUDGET,
    BudgetExceeded,
    FunctionNode,
    InterpreterBase,
)
from errknow_ls.analysis.ownership import CLEAR, Origins
from errknow_ls.analysis.state import Place
from errknow_ls.analysis.values import (
    KEYED_CONTAINERS,
    NUMBER,
    UNKNOWN,
    Const,
    Func,
    GraphNode,
    Instance,
    NNModule,
    Number,
    Obj,
    Opaque,
    Ref,
    Seq,
    Tensor,
    TransformedDist,
    Value,
    WeightNorm,
    has_grad,
    join_many,
    maybe_of,
    nodes_of,
    normed_nodes,
    tensors_in,
    touches_parameters,
    with_modules,
)


class Autograd(InterpreterBase):
    """Builds graph nodes as torch would; a backward's effects are in ``backward.py``."""

    def op_node(self, site: ast.AST, inputs: Sequence[Value], *, saves: bool) -> Value:
        """The result of a differentiable op on ``inputs``: a new node when any input needs grad."""
        self.forward_calls.add(site)
        may = may_reach(inputs)
        if not any(isinstance(v, Tensor | NNModule) or tensors_in(v) for v in inputs):
            return Opaque(may) if may and not self.no_grad else UNKNOWN
        graph = frozenset().union(*(nodes_of(v) for v in inputs))
        if self.no_grad or not any(has_grad(v) or isinstance(v, NNModule) for v in inputs):
            # an input unknown code gave back may carry its graph: not known to need no grad
            return Opaque(may) if may and not self.no_grad else Tensor(frozenset(), False)
        tensors = [v for v in inputs if isinstance(v, Tensor)]
        every = all(isinstance(v, Tensor | Const | Number) for v in inputs) and all(
            has_grad(t) for t in tensors
        )
        learns = touches_parameters(list(inputs))
        origins = self.origins_of(Seq(UNKNOWN, "tuple", tuple(inputs))) if learns else frozenset()
        made = self.new_node(site, graph, saves=saves, learns=learns, every_input_grad=every, origins=origins)
        return Tensor(made.nodes, made.grad, made.root, may - made.nodes) if may - made.nodes else made

    def new_node(
        self,
        site: ast.AST,
        inputs: frozenset[int],
        *,
        saves: bool,
        learns: bool = False,
        every_input_grad: bool = False,
        origins: Origins = frozenset(),
    ) -> Tensor:
        node_id = self._next_node_id()
        stmt = self._current_stmt
        frame = self.frames[-1].serial if self.frames else 0
        # A statement's node (``hyp["box"] *= w``) keeps the statement's place: where it was made.
        site_expr = site if isinstance(site, ast.expr) else ast.copy_location(ast.Constant(None), site)
        if not hasattr(site_expr, "lineno"):
            site_expr.lineno, site_expr.col_offset = 0, 0
        stmts = tuple((f.serial, f.stmt) for f in self.frames if f.stmt is not None)
        loops = tuple(self.loop_stack)
        node = GraphNode(
            node_id, site_expr, stmt, saves, loops, frame, stmts, inputs, learns, every_input_grad, origins
        )
        self.nodes.append(node)
        return Tensor(inputs | {node_id}, True, node_id)

    def twin(self, node_id: int) -> int:
        """A copy of a graph node under a new id (see ``State.join``)."""
        twin_id = self._next_node_id()
        self.nodes.append(replace(self.nodes[node_id], id=twin_id))
        return twin_id

    def _next_node_id(self) -> int:
        """The id the next graph node gets; the run stops where it would pass the budget of them."""
        if len(self.nodes) >= GRAPH_NODE_BUDGET:
            raise BudgetExceeded(f"stopped after {GRAPH_NODE_BUDGET:,} graph nodes, the budget")
        return len(self.nodes)

    def tensor_method(
        self, receiver: Tensor, attr: str, args: list[Value], kwargs: dict[str, Value], node: ast.Call
    ) -> Value:
        if attr == "backward":
            return self.backward_call(node, receiver, kwargs, receiver_expr(node, None), positional=args[1:])
        updated = (
            self._updated_parameter(node, receiver)
            if attr.endswith("_") and not attr.endswith("__")
            else None
        )
        if updated is not None:
            self._note_step(
                node, updated.owners
            )  # `p.data.add_(p.grad, alpha=-lr)`: a hand-written optimizer
        if attr == "detach_":
            self._detach_in_place(receiver)
            self._rebind_receiver(node, Tensor(grad=False))
            return Tensor(grad=False)
        if attr in api.CUT_METHODS or attr in api.INTEGER_CASTS:
            if attr not in api.RANDOM_METHODS:
                self.forward_calls.add(node)  # reads the tensor: a fix may re-run it
            return Tensor(grad=False)
        if attr in ("type", "to") and any(_integer_dtype(v) for v in [*args, *kwargs.values()]):
            return Tensor(grad=False)  # an integer tensor cannot carry a graph
        if attr in api.NUMBER_METHODS:
            self.forward_calls.add(node)  # t.size(0), t.item(): reads the tensor
            return NUMBER
        if attr in api.SCALAR_METHODS:
            if attr not in api.EFFECT_METHODS:
                self.forward_calls.add(node)
            return UNKNOWN
        if attr in api.GRADIENT_HOOK_METHODS:
            self.note_gradient_use(receiver, f"`{attr}`", lasting=True)
        if attr == "requires_grad_":
            off = args and isinstance(args[0], Const) and not args[0].value
            owners = receiver.owners if receiver.grad else frozenset({self.origin(node)})
            result = replace(receiver, grad=not off, owners=owners, maybe=frozenset())
            self._rebind_receiver(node, result)
            return result
        # `.to(x)`, `.type_as(x)` take x's dtype and device, not its graph
        inputs = [receiver] if attr in ("to", "type_as") else [receiver, *args]
        op_result = self.op_node(node, inputs, saves=attr not in api.NO_SAVE_OPS)
        if attr.endswith("_") and not attr.endswith("__"):
            self._rebind_receiver(node, op_result)
            self._note_parameters_updated(receiver, args, op_result)
        return op_result

    def _note_parameters_updated(self, receiver: Tensor, args: list[Value], updated: Value) -> None:
        """An update in place of a parameter of a frozen module, with grad on, from tensors that
        carry a graph (``p_target.copy_(tau * p + (1 - tau) * p_target)``, a soft update outside
        ``no_grad``): the module's parameters now carry that graph, wherever the module is held.
        A module whose parameters need grad is not changed: torch refuses the update in place."""
        if self.no_grad or receiver.owners is None or not isinstance(updated, Tensor):
            return
        if not any(nodes_of(a) for a in args):
            return
        self._carry(lambda m: m.frozen and m.origins == receiver.owners, updated.nodes)

    def _carry(self, which: Callable[[NNModule], bool], nodes: frozenset[int]) -> None:
        """Every module ``which`` picks, wherever it is held, now carries ``nodes``."""

        def carrying(value: Value) -> Value:
            return replace(value, carries=nodes) if isinstance(value, NNModule) and which(value) else value

        self.state.env = {k: carrying(v) for k, v in self.state.env.items()}
        self.state.heap = {k: carrying(v) for k, v in self.state.heap.items()}

    def cached_weight(self, module: NNModule, node: ast.Call) -> NNModule:
        """``module`` as a forward pass under ``parametrize.cached()`` finds it: its parametrized
        tensor computed at the first read and kept (:attr:`NNModule.carries`)."""
        if module.parametrization is None or not self.caching or module.carries or self.no_grad:
            return module
        weight = self.parametrized_weight(module, node)
        if not nodes_of(weight) or module.origins is None:
            return module
        self._carry(lambda m: m.parametrization is not None and m.origins == module.origins, nodes_of(weight))
        return replace(module, carries=nodes_of(weight))

    def parametrized_weight(self, module: NNModule, node: ast.Call) -> Value:
        """The tensor ``module``'s parametrization computes from its original parameter."""
        if module.parametrization is None:
            return UNKNOWN
        _, parametrization = module.parametrization
        original = Tensor(frozenset(), not module.frozen, owners=module.origins)
        return self.call_value(parametrization, "", [original], {}, node)

    def end_caching(self) -> None:
        """``parametrize.cached()`` exits: every parametrized tensor is computed anew at its next read."""
        self._carry(lambda m: m.parametrization is not None and bool(m.carries), frozenset())

    def _updated_parameter(self, node: ast.Call, receiver: Tensor) -> Tensor | None:
        """The parameter an in-place op changes: the receiver under ``no_grad``, or the tensor whose
        ``.data`` it is (None: not a parameter's update)."""
        if self.no_grad and receiver.grad and not receiver.nodes:
            return receiver
        func = node.func
        if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Attribute)):
            return None
        owner_expr = func.value.value
        if func.value.attr != "data" or not isinstance(owner_expr, ast.Name):
            return None
        owner = self.state.env.get(owner_expr.id)
        return owner if isinstance(owner, Tensor) and owner.grad and not owner.nodes else None

    def _detach_in_place(self, tensor: Tensor) -> None:
        """``t.detach_()`` changes the tensor object itself: every name, attribute and container
        item that holds it (``for s in state: s.detach_()``) now holds a leaf without a graph."""
        if not tensor.nodes:
            return
        cut = Tensor(grad=False)
        self.state.env = {k: _replace_tensor(v, tensor, cut) for k, v in self.state.env.items()}
        self.state.heap = {k: _replace_tensor(v, tensor, cut) for k, v in self.state.heap.items()}

    def _rebind_receiver(self, node: ast.Call, value: Value) -> None:
        if isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name | ast.Attribute):
            self.assign_place(node.func.value, value)

    def torch_call(
        self, qualname: str, short: str, args: list[Value], kwargs: dict[str, Value], node: ast.Call
    ) -> Value:
        namespace = qualname.rpartition(".")[0]
        if short in ("Parameter", "UninitializedParameter"):
            return self._parameter(short, args, kwargs, node)
        if short == "Variable" and namespace in ("torch.autograd", "torch.autograd.variable"):
            return self._variable(args, kwargs, node)
        if _is_optimizer_class(namespace, short):
            self.optimizer_calls.add(node)
            handed = args[0] if args else kwargs.get("params", UNKNOWN)
            self.ownership.construct(node, self.origins_of(handed, params=True))
            return Instance(qualname, node)  # an optimizer (its ``step(closure)`` is modelled)
        if qualname == api.PARAMETRIZE_CACHED:
            return Instance(qualname)
        if qualname == api.REGISTER_PARAMETRIZATION:
            return self._register_parametrization(args, node)
        if qualname in api.OLD_WEIGHT_NORM:
            return self._weight_norm(qualname, args, kwargs, node)
        if qualname in api.PASS_THROUGH_FUNCS and args:
            return args[0]  # torch.compile(f), torch.jit.script(f): f, as far as autograd goes
        if qualname in api.FUNCTIONAL_CALLS and len(args) >= 2:
            self.forget_weight_norms(args[:1])
            # functional_call(module, params, args): the module run on those parameters
            origins = self.origins_of(Seq(UNKNOWN, "tuple", tuple(args[:2])))
            return self.new_node(
                node,
                nodes_of(args[1]) | nodes_of(join_many(args[2:])),
                saves=True,
                learns=True,
                origins=origins,
            )
        if qualname in api.CHECKPOINT_FUNCS and args:
            output = self.call_value(args[0], "", list(args[1:]), {}, node)
            return self.op_node(node, [output], saves=True)
        if namespace == "torch.distributions" or namespace.startswith("torch.distributions."):
            as_op = self.op_node(node, [*args, *kwargs.values()], saves=True)
            if qualname in api.TRANSFORMED_DISTRIBUTIONS and len(args) == 2 and not kwargs:
                return self._transformed(args[0], args[1], as_op)
            return as_op
        if short[:1].isupper():
            if not namespace.startswith("torch.nn"):
                return self.unknown_call(args, kwargs)
            # A module holds its own parameters and those of the modules it is built from.
            held = self.origins_of(Seq(UNKNOWN, "tuple", (*args, *kwargs.values())))
            origin = self.origin(node)
            origins = None if held is None else held | {origin}
            if held == frozenset() and short in api.PARAMETERLESS_MODULES:
                self.ownership.parameterless.add(origin)  # a loss, an activation: no parameter
            self.forget_weight_norms([*args, *kwargs.values()])  # its forward runs theirs unseen
            items = _container_items(short, args)
            parts = None if items is None else tuple((key, self.origins_of(item)) for key, item in items)
            members = _own_members(items)
            return NNModule(short, origins=origins, parts=parts, torch_class=qualname, members=members)
        if qualname in api.DIFFERENTIABLE_UTILS:
            return self.op_node(node, [*args, *kwargs.values()], saves=False)
        if namespace not in api.OP_NAMESPACES:
            return self.unknown_call(args, kwargs)
        if short in api.CREATION_FUNCS:
            if short not in api.RANDOM_CREATION_FUNCS and short not in ("load", "manual_seed"):
                self.forward_calls.add(node)  # torch.eye(n), torch.zeros_like(x): the same every time
            grad = kwargs.get("requires_grad")
            needs = isinstance(grad, Const) and bool(grad.value)
            return Tensor(frozenset(), needs, owners=frozenset({self.origin(node)}) if needs else None)
        if short == "set_grad_enabled":
            self.switch_grad_mode(args[0] if args else kwargs.get("mode"))
            return UNKNOWN
        if short in api.NOT_OPS:
            if short in api.PURE_READS:
                self.forward_calls.add(node)  # torch.equal(a, b): only reads, a fix may re-run it
            return UNKNOWN
        return self.op_node(node, [*args, *kwargs.values()], saves=short not in api.NO_SAVE_OPS)

    def _transformed(self, base: Value, given: Value, as_op: Value) -> Value:
        """``TransformedDistribution(base, transforms)`` modelled where every transform is an
        object of the checked code's ``Transform`` class whose cache size is 1 (a list of them, or
        one); anything else stays the op it was."""
        transforms = given.items if isinstance(given, Seq) and given.kind == "list" else (given,)
        if transforms is None or not transforms:
            return as_op
        kept: list[Obj] = []
        for transform in transforms:
            if not isinstance(transform, Obj) or not transform.cls.transform:
                return as_op
            if self.state.heap.get(Place(transform.oid, CACHE_SIZE)) != Const(1):
                return as_op
            kept.append(transform)
        return TransformedDist(base, tuple(kept), as_op)

    def distribution_method(
        self,
        receiver: TransformedDist,
        attr: str,
        args: list[Value],
        kwargs: dict[str, Value],
        node: ast.Call,
    ) -> Value:
        """``log_prob(value)`` as torch computes it: ``value`` inverted through the transforms, the
        last first (each gives back its kept inversion for the very same input), each one's
        ``log_abs_det_jacobian(x, y)``, and the base distribution's ``log_prob`` of what is left.
        Anything else is done with the op the distribution was before the model."""
        if attr != "log_prob" or len(args) != 1 or kwargs or not node.args:
            return self.call_value(self.attribute(receiver.as_op, attr, node), attr, args, kwargs, node)
        y, same = args[0], self.same_object(node.args[0])
        terms: list[Value] = []
        for transform in reversed(receiver.transforms):
            x = self._inverted(transform, y, same, node)
            jacobian = self.attribute(transform, "log_abs_det_jacobian", node)
            terms.append(self.call_value(jacobian, "log_abs_det_jacobian", [x, y], {}, node))
            y, same = x, None  # a later transform's input: not told apart from another
        if isinstance(receiver.base, Tensor):
            terms.append(self.tensor_method(receiver.base, "log_prob", [y], {}, node))
        else:
            terms.append(self.unknown_call([receiver.base, y], {}))
        return self.op_node(node, terms, saves=True)

    def _inverted(self, transform: Obj, y: Value, same: Const | None, node: ast.Call) -> Value:
        """``transform.inv(y)`` with ``cache_size=1``: the kept inversion where ``y`` is shown to be
        the very object it was of (``same``), else its ``_inverse(y)``, kept with what it was of."""
        kept = Place(transform.oid, CACHED_X)
        if same is not None and self.state.heap.get(Place(transform.oid, CACHED_Y)) == same:
            return self.state.heap.get(kept, UNKNOWN)
        inverse = self.attribute(transform, "_inverse", node)
        x = self.call_value(inverse, "_inverse", [y], {}, node)
        self.state.heap[kept] = x
        self.state.heap[Place(transform.oid, CACHED_Y)] = same if same is not None else Const(None)
        return x

    def same_object(self, expr: ast.expr) -> Const | None:
        """What tells the object ``expr`` gives from any other: a name its function (or the checked
        module's body) binds in one place, outside every loop (so at most once in a call; not a
        parameter, not declared global or nonlocal anywhere in it), in this call; None otherwise."""
        frame = self.frames[-1] if self.frames else None
        function = frame.func if frame is not None else None
        if not isinstance(expr, ast.Name):
            return None
        scope: ast.AST
        if isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            assert frame is not None
            scope, call = function, frame.serial
        elif function is None and self._home() is None:
            scope, call = self.module, -1  # the module's body runs once
        else:
            return None
        name = expr.id
        bound = 0
        for node in ast.walk(scope):
            if isinstance(node, ast.Global | ast.Nonlocal) and name in node.names:
                return None
            if isinstance(node, ast.arg) and node.arg == name:
                return None
            bound += isinstance(node, ast.Name) and node.id == name and not isinstance(node.ctx, ast.Load)
            if isinstance(node, ast.For | ast.AsyncFor | ast.While) and _binds(node, name):
                return None  # bound again on every turn of the loop
        return Const((call, name)) if bound == 1 else None

    def _register_parametrization(self, args: list[Value], node: ast.Call) -> Value:
        """``register_parametrization(module, "weight", parametrization)``: the module now computes
        that tensor from its original parameter (one parametrized tensor per module is followed)."""
        if len(args) < 3 or not isinstance(args[0], NNModule) or not node.args:
            return self.unknown_call(args, {})
        module, name, parametrization = args[0], args[1], args[2]
        target = node.args[0]
        if not isinstance(name, Const) or not isinstance(name.value, str):
            return self.unknown_call(args, {})
        if module.parametrization is not None or not isinstance(target, ast.Name | ast.Attribute):
            return self.unknown_call(args, {})
        registered = replace(module, parametrization=(name.value, parametrization))
        self.assign_place(target, registered)
        return registered

    def _weight_norm(
        self, qualname: str, args: list[Value], kwargs: dict[str, Value], node: ast.Call
    ) -> Value:
        """The old ``weight_norm(module, name)`` (``api.OLD_WEIGHT_NORM``): the module, whose
        attribute ``name`` now holds a tensor computed from its new parameters; a name or attribute
        handed to it (``weight_norm(self.fc)`` changes the module in place) holds that module too."""
        module = args[0] if args else kwargs.get("module", UNKNOWN)
        name = args[1] if len(args) > 1 else kwargs.get("name", Const("weight"))
        if not isinstance(module, NNModule) or module.normed is not None or not _is_str(name):
            return self.unknown_call(args, kwargs)  # a second weight norm of one name: torch raises
        assert isinstance(name, Const) and isinstance(name.value, str)  # _is_str saw to it
        norm = WeightNorm(name.value, None, node, qualname)
        normed = replace(module, normed=replace(norm, weight=self._normed_weight(module, node, norm)))
        self.weight_normed = True
        target = node.args[0] if node.args else None
        if isinstance(target, ast.Name | ast.Attribute):
            self.assign_place(target, normed)
        return normed

    def _normed_weight(self, module: NNModule, site: ast.Call, norm: WeightNorm) -> Tensor:
        """The tensor weight norm computes from ``module``'s ``_g`` and ``_v`` parameters at
        ``site``."""
        if self.no_grad:
            return Tensor(grad=False)
        made = self.new_node(site, frozenset(), saves=True, learns=True, origins=module.origins)
        assert made.root is not None
        self.weight_norm_nodes[made.root] = (norm.applied, norm.qualname)
        return made

    def weight_norm_hook(self, module: NNModule, node: ast.Call) -> NNModule:
        """A forward pass of ``module`` at ``node``: the old weight norm's pre-hook computes its
        attribute anew, seen wherever a module of the same origins holds one (one that is not known
        stays not known)."""
        norm = module.normed
        if norm is None or norm.weight is None:
            return module
        weight = self._normed_weight(module, node, norm)

        def renormed(held: NNModule) -> NNModule:
            normed = held.normed
            if normed is None or normed.applied is not norm.applied or normed.weight is None:
                return held
            return replace(held, normed=replace(normed, weight=weight))

        self._change_modules(renormed)
        return replace(module, normed=replace(norm, weight=weight))

    def forget_weight_norms(self, given: Sequence[Value] | None) -> None:
        """Code the checker does not follow was handed ``given`` (None: may reach any module): the
        forward pass of a weight-normed module among them may run there unseen, so what its
        attribute holds is not known from now on."""
        if not self.weight_normed:
            return
        origins = None if given is None else self.origins_of(Seq(UNKNOWN, "tuple", tuple(given)))
        if origins is not None and not origins:
            return

        def forgotten(held: NNModule) -> NNModule:
            normed = held.normed
            if normed is None or normed.weight is None:
                return held
            if origins is not None and held.origins is not None and not held.origins & origins:
                return held
            return replace(held, normed=replace(normed, weight=None))

        self._change_modules(forgotten)

    def _change_modules(self, change: Callable[[NNModule], NNModule]) -> None:
        """Every module held by a name, an attribute or a container, ``change``d."""
        self.state.env = {k: with_modules(v, change) for k, v in self.state.env.items()}
        self.state.heap = {k: with_modules(v, change) for k, v in self.state.heap.items()}

    def switch_grad_mode(self, mode: Value | None) -> None:
        """``torch.set_grad_enabled(mode)`` switches the grad mode when it is called, until it is
        switched again (as a ``with`` item, the block's exit restores the mode it found). A mode
        whose value is not known is taken as off: what is computed then is not known to build a
        graph, and unknown never reports."""
        self.no_grad = not (isinstance(mode, Const) and bool(mode.value))
        self.grad_mode_switches += 1

    def _parameter(self, short: str, args: list[Value], kwargs: dict[str, Value], node: ast.Call) -> Tensor:
        """``nn.Parameter(data, requires_grad=True)`` (``UninitializedParameter(requires_grad=True)``):
        a leaf that needs grad unless the flag says otherwise; a flag whose value is not known
        makes it a leaf that is not known to need grad, as ``torch.zeros(n, requires_grad=flag)``."""
        position = 1 if short == "Parameter" else 0
        given = kwargs.get("requires_grad", args[position] if len(args) > position else None)
        if given is None and "**" in kwargs:
            given = kwargs["**"]  # Parameter(x, **options): the flag may be among them
        needs = given is None or (isinstance(given, Const) and bool(given.value))
        return Tensor(frozenset(), needs, owners=frozenset({self.origin(node)}) if needs else None)

    def _variable(self, args: list[Value], kwargs: dict[str, Value], node: ast.Call) -> Value:
        """``Variable(x, requires_grad=False)``: since torch 0.4 a new leaf on ``x``'s data, cut
        from ``x``'s graph (as ``x.detach()``), that needs grad only when asked with a flag known to
        be true (keyword or second argument)."""
        given = kwargs.get("requires_grad", args[1] if len(args) > 1 else None)
        if flag(given) is True:
            return Tensor(frozenset(), True, owners=frozenset({self.origin(node)}))
        return Tensor(frozenset(), False)

    def module_method(
        self, module: NNModule, attr: str, args: list[Value], kwargs: dict[str, Value], node: ast.Call
    ) -> Value:
        """A method of a module, or of a parameter reached as ``model.weight``."""
        if attr == "requires_grad_":
            frozen = bool(args) and isinstance(args[0], Const) and not args[0].value
            frozen = frozen or _const_false(kwargs.get("requires_grad"))
            result = NNModule(module.label, frozen, module.origins)
            self._rebind_receiver(node, result)
            return result
        if attr in api.MODULE_SELF_METHODS:
            return module
        if attr in ("parameters", "buffers", "named_parameters"):
            self.forward_calls.add(node)  # only reads the module: a fix may re-run it
        own = Tensor(module.carries, True, owners=module.origins)  # one of its parameters
        if attr in ("parameters", "buffers"):
            return Seq(own if attr == "parameters" else Tensor(frozenset(), False), "list")
        if attr == "named_parameters":
            return Seq(Seq(UNKNOWN, "tuple", (UNKNOWN, own)), "list")
        if (
            attr in ("values", "items") and module.label in KEYED_CONTAINERS
        ) or attr in api.SUBMODULE_METHODS:
            # a ModuleDict's modules, a ParameterDict's parameters, `children()`, `named_modules()`
            part = own if module.label == "ParameterDict" else NNModule("item", module.frozen, module.origins)
            named = attr == "items" or attr.startswith("named_")
            return Seq(Seq(UNKNOWN, "tuple", (UNKNOWN, part)) if named else part, "list")
        if attr in ("forward", "__call__"):
            module = self.weight_norm_hook(self.cached_weight(module, node), node)
            carries = module.carries | normed_nodes(module)
            return self.call_module(args, kwargs, node, origins=module.origins, carries=carries)
        if attr in api.TENSOR_METHODS or attr in api.NO_SAVE_OPS:
            return self.tensor_method(own, attr, args, kwargs, node)
        if attr in api.MODULE_GRADIENT_HOOK_METHODS or attr in api.GRADIENT_HOOK_METHODS:
            # a module's hook, or a tensor's on an attribute of one that may be a parameter
            # (`encoder[0].weight.register_hook(...)`): it sees the module's gradients
            self.note_gradient_use(module, f"`{attr}`", lasting=True)
        elif module.parameter:
            # a torch layer's parameter (`fc.weight.detach()`) is a tensor: any method is a tensor's
            return self.tensor_method(own, attr, args, kwargs, node)
        if attr == "zero_grad":
            self.ownership.timeline.append((CLEAR, node, module.origins))
        self.link(module, *args, *kwargs.values())  # `add_module(name, other)`: they may share parts
        if module.parts is not None:
            self._rebind_receiver(
                node, replace(module, parts=None, members=None)
            )  # which is which: not known
        return self.unknown_call(args, kwargs)

    def library_method(
        self, receiver: Instance, attr: str, args: list[Value], kwargs: dict[str, Value], node: ast.Call
    ) -> Value:
        """A method of a library object modelled on purpose; any other method is unknown."""
        qualname = receiver.qualname
        if qualname in api.LIBRARY_BACKWARD_CLASSES and attr == "backward" and args:
            return self.backward_call(node, args[0], kwargs, receiver_expr(node, 0), positional=args[1:])
        if qualname in api.GRAD_SCALER_CLASSES and attr == "scale" and args:
            return self.op_node(node, args[:1], saves=True)
        if qualname in api.GRAD_SCALER_CLASSES and attr == "step":
            stepped = args[0] if args else kwargs.get("optimizer")
            made = stepped.made if isinstance(stepped, Instance) else None
            self._note_step(node, self.ownership.owned(made))  # scaler.step(optimizer) steps the optimizer
            return UNKNOWN
        if qualname in api.LIBRARY_BACKWARD_CLASSES and attr in api.LIBRARY_PREPARE_METHODS:
            # accelerator.prepare(model, optimizer), fabric.setup(...): the same objects, wrapped
            return args[0] if len(args) == 1 else Seq(join_many(args), "tuple", tuple(args))
        if qualname.startswith("torch.optim.") and attr == "step":
            self._note_step(node, self.ownership.owned(receiver.made))
            closure = args[0] if args else kwargs.get("closure")
            if isinstance(closure, Func):
                # optimizer.step(closure) (LBFGS) runs the closure and gives back what it returned.
                return self.call_function(closure, [], {}, node)
            return UNKNOWN
        if qualname.startswith("torch.optim.") and attr == "add_param_group":
            group = args[0] if args else kwargs.get("param_group", UNKNOWN)
            self.ownership.add_group(receiver.made, self.origins_of(group, params=True))  # it owns them too
            return UNKNOWN
        if qualname.startswith("torch.optim.") and attr == "zero_grad":
            self.ownership.timeline.append((CLEAR, node, self.ownership.owned(receiver.made)))
            return UNKNOWN
        if qualname.startswith("torch.optim.") and attr == "state_dict":
            return UNKNOWN
        return self.unknown_call(args, kwargs)

    def call_module(
        self,
        args: list[Value],
        kwargs: dict[str, Value],
        node: ast.Call,
        *,
        frozen: bool = False,
        origins: Origins = None,
        carries: frozenset[int] = frozenset(),
    ) -> Value:
        """A module's forward whose insides are not followed; ``origins``: the module's; ``carries``:
        the graph its parameters carry (:attr:`NNModule.carries`)."""
        self.forget_weight_norms([*args, *kwargs.values()])  # a module handed in may be run there
        self.forward_calls.add(node)
        self.module_calls.add(node)
        if origins and origins <= self.ownership.parameterless and not carries and not frozen:
            # `nn.AvgPool2d(k)(batch)`, `nn.MSELoss()(out, y)`: no parameter, an op on its inputs
            given = [*args, *kwargs.values()]
            output = self.op_node(node, given, saves=True)
            if isinstance(output, Tensor) and not output.grad and any(v is UNKNOWN for v in given):
                output = UNKNOWN  # an input not known at all may need grad: so may the output
            return self._run_forward_hooks(output, args, node)
        weights = [Tensor(carries, True)] if carries else []
        if frozen:  # its parameters need no grad; its forward hooks run all the same
            return self._run_forward_hooks(
                self.op_node(node, [*args, *kwargs.values(), *weights], saves=True), args, node
            )
        if self.no_grad:
            return Tensor(grad=False)
        given = [*args, *kwargs.values(), *weights]
        graph = frozenset().union(*(nodes_of(v) for v in given))
        inputs = self.origins_of(Seq(UNKNOWN, "tuple", tuple(given)))  # leaves that need grad
        origins = None if origins is None or inputs is None else origins | inputs
        output = self.new_node(node, graph, saves=True, learns=True, origins=origins)
        may = may_reach(given) - output.nodes
        if may:
            output = Tensor(output.nodes, output.grad, output.root, may)
        return self._run_forward_hooks(output, args, node)

    def _run_forward_hooks(self, output: Value, args: list[Value], node: ast.Call) -> Value:
        """``hook(module, inputs, output)`` for every registered forward hook: a module we do not
        follow may hold the hooked layer, so each one runs (once per call, not nested)."""
        if not self.forward_hooks or self._in_hook:
            return output
        self._in_hook = True
        try:
            for registration, hook in enumerate(list(self.forward_hooks)):
                if registration in self.state.hooks_removed:
                    continue  # its handle's remove() ran on every path here
                self.hook_registrations[registration].handed.update(nodes_of(output))
                self.call_value(hook, "", [UNKNOWN, Seq(join_many(args), "tuple"), output], {}, node)
        finally:
            self._in_hook = False
        return output

    def _note_step(self, site: ast.AST, origins: Origins = None) -> None:
        """``site`` changed the parameters of ``origins`` in place (None: which ones is not known)."""
        self.stepping.update(key for key, _ in self.loop_stack)
        self.step_tick = self.tick
        self.ownership.step(site, self.tick, origins)

    def _note_freezing_loop(self, target: ast.expr, iterable: ast.expr, body: list[ast.stmt]) -> None:
        """``for p in backbone.parameters(): p.requires_grad = False`` freezes ``backbone``."""
        if not (
            isinstance(target, ast.Name)
            and isinstance(iterable, ast.Call)
            and isinstance(iterable.func, ast.Attribute)
            and iterable.func.attr == "parameters"
            and _sets_requires_grad_false(body, target.id)
        ):
            return
        owner_expr = iterable.func.value
        owner = self.eval(owner_expr)
        if isinstance(owner, Obj):
            self.state.heap[Place(owner.oid, FROZEN)] = Const(True)
        elif isinstance(owner, NNModule) and isinstance(owner_expr, ast.Name | ast.Attribute):
            self.assign_place(owner_expr, NNModule(owner.label, True, owner.origins))


def _is_str(value: Value) -> bool:
    return isinstance(value, Const) and isinstance(value.value, str)


def _const_false(value: Value | None) -> bool:
    return isinstance(value, Const) and value.value is False


def _replace_tensor(value: Value, tensor: Tensor, by: Tensor) -> Value:
    """``value`` with ``tensor`` (the same node, or the same graph where it was made on several
    paths) replaced ``by``, wherever it is held."""
    if isinstance(value, Tensor):
        same = value.root == tensor.root if tensor.root is not None else value.nodes == tensor.nodes
        return by if same else value
    if isinstance(value, Seq):
        items = None if value.items is None else tuple(_replace_tensor(i, tensor, by) for i in value.items)
        return Seq(_replace_tensor(value.item, tensor, by), value.kind, items, value.least, value.keys)
    return value


def may_reach(inputs: Sequence[Value]) -> frozenset[int]:
    """What an op's result may reach beyond its known graph: what its inputs may."""
    return frozenset().union(*(maybe_of(v) for v in inputs))


def _integer_dtype(value: Value) -> bool:
    return isinstance(value, Ref) and value.qualname in api.INTEGER_DTYPES


def _is_optimizer_class(namespace: str, short: str) -> bool:
    """``torch.optim.Adam``, ``torch.optim.sgd.SGD``; not a scheduler or an averaging wrapper."""
    return (
        (namespace == "torch.optim" or namespace.startswith("torch.optim."))
        and not namespace.startswith(("torch.optim.lr_scheduler", "torch.optim.swa_utils"))
        and short[:1].isupper()
    )


def _sets_requires_grad_false(body: list[ast.stmt], name: str) -> bool:
    for node in (n for stmt in body for n in ast.walk(stmt)):
        if (
            isinstance(node, ast.Assign)
            and any(
                isinstance(t, ast.Attribute) and t.attr == "requires_grad" and ast.unparse(t.value) == name
                for t in node.targets
            )
            and isinstance(node.value, ast.Constant)
            and node.value.value is False
        ):
            return True
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "requires_grad_"
            and ast.unparse(node.func.value) == name
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and node.args[0].value is False
        ):
            return True
    return False


def call_qualname(expr: ast.expr, value: Value) -> str:
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute | ast.Name):
        return _dotted(expr.func)
    return value.qualname if isinstance(value, Ref) else ""


def _dotted(expr: ast.expr) -> str:
    if isinstance(expr, ast.Name):
        return expr.id if expr.id != "autograd" else "torch.autograd"
    if isinstance(expr, ast.Attribute):
        return f"{_dotted(expr.value)}.{expr.attr}"
    return ""


def is_grad_disabled(expr: ast.expr, qualname: str) -> bool:
    """``torch.set_grad_enabled(False)`` (a constant ``False`` only)."""
    if not qualname.endswith("set_grad_enabled") or not isinstance(expr, ast.Call) or not expr.args:
        return qualname.endswith(("no_grad", "inference_mode"))
    first = expr.args[0]
    return isinstance(first, ast.Constant) and first.value is False


def decorated_no_grad(fn: FunctionNode) -> bool:
    for decorator in fn.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        if _dotted(target).endswith(("no_grad", "inference_mode")):
            return True
    return False


def _container_items(short: str, args: list[Value]) -> list[tuple[object, Value]] | None:
    """The modules a container is built from, by key: a ``ModuleDict`` of a dict whose keys are
    constants, a ``Sequential`` of modules, a ``ModuleList`` of a list of known length."""
    items: list[tuple[object, Value]] = []
    given = args[0] if len(args) == 1 else None
    if short == "ModuleDict" and isinstance(given, Seq) and given.keys is not None and given.items:
        items = list(zip(given.keys, given.items, strict=True))
    elif short == "ModuleList" and isinstance(given, Seq) and given.items is not None:
        items = list(enumerate(given.items))
    elif short == "Sequential" and args and all(isinstance(a, NNModule | Obj) for a in args):
        items = list(enumerate(args))
    return items or None


def _own_members(items: list[tuple[object, Value]] | None) -> tuple[tuple[object, Value], ...] | None:
    """A container's modules themselves (:attr:`NNModule.members`), where each is known to be a
    module: a torch layer, or an object of the checked code's own module class."""
    if items is None or not all(isinstance(v, NNModule) or _own_module(v) for _, v in items):
        return None
    return tuple(items)


def _own_module(value: Value) -> bool:
    return isinstance(value, Obj) and value.cls.is_module


def _binds(node: ast.AST, name: str) -> bool:
    """``node`` binds ``name`` somewhere inside it."""
    return any(
        isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load) for n in ast.walk(node)
    )
