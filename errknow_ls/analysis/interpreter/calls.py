"""Calls: which callee a call reaches (the checked code's functions, methods and classes, the
project's modules, builtins, the standard library), and running the checked code's own functions."""

from __future__ import annotations

import ast
from collections.abc import Hashable
from dataclasses import replace

from errknow_ls.analysis import torch_api as api
from errknow_ls.analysis.events import HookRegistration
from errknow_ls.analysis.interpreter.autograd import decorated_no_grad, may_reach
from errknow_ls.analysis.interpreter.backward import receiver_expr
from errknow_ls.analysis.interpreter.base import (
    CACHE_SITE,
    CACHE_SIZE,
    FROZEN,
    Frame,
    FunctionNode,
    InterpreterBase,
    func_node,
    is_generator,
)
from errknow_ls.analysis.interpreter.memo import (
    Remembered,
    graph_free,
    lasting_uses_since,
    rebinds_outer_names,
    records_of,
    same_state,
    state_of,
    without_freed,
)
from errknow_ls.analysis.ownership import CLEAR, LASTING, GradientUse
from errknow_ls.analysis.state import Place, join_all
from errknow_ls.analysis.values import (
    ITERATOR,
    MAX_ITEMS,
    NUMBER,
    UNKNOWN,
    UNSEEN,
    Class,
    ClassInfo,
    Const,
    Func,
    GradFn,
    HookHandle,
    Instance,
    Kwargs,
    ModuleRef,
    NNModule,
    Obj,
    Opaque,
    Partial,
    Ref,
    Seq,
    Super,
    Tensor,
    TransformedDist,
    Unknown,
    Value,
    element,
    has_grad,
    join,
    join_many,
    maybe_of,
    normed_nodes,
    nth,
    walked,
)

MAX_CALL_DEPTH = 6
ITERATOR_STEPS = 2
"""How many items of an object's own iterator a ``for`` takes: a loop's body is followed twice."""


class Calls(InterpreterBase):
    """Resolves calls and runs the functions of the checked code; what torch's own calls do is in
    ``autograd.py``."""

    def call(self, node: ast.Call) -> Value:
        func = node.func
        if isinstance(func, ast.Attribute):
            receiver = self.eval(func.value)
            args, kwargs = self._arguments(node)
            return self.call_method(receiver, func.attr, args, kwargs, node)
        callee = self.eval(func)
        args, kwargs = self._arguments(node)
        name = func.id if isinstance(func, ast.Name) else ""
        return self.call_value(callee, name, args, kwargs, node)

    def _arguments(self, node: ast.Call) -> tuple[list[Value], dict[str, Value]]:
        args = []
        for arg in node.args:
            value = self.eval(arg)
            args.append(Seq(element(value)) if isinstance(arg, ast.Starred) else value)
        kwargs: dict[str, Value] = {}
        for kw in node.keywords:
            value = self.eval(kw.value)
            if kw.arg is not None:
                kwargs[kw.arg] = value
            elif isinstance(value, Kwargs):
                kwargs.update(value.items)
            elif (named := _named_items(value)) is not None:
                kwargs.update(named)  # `f(**config)` of a dict whose keys are known: each by its name
            else:
                kwargs["**"] = value
        return args, kwargs

    def call_value(
        self, callee: Value, name: str, args: list[Value], kwargs: dict[str, Value], node: ast.Call
    ) -> Value:
        if isinstance(callee, Ref):
            return self.call_qualified(callee.qualname, args, kwargs, node)
        if isinstance(callee, Partial):
            merged = {**callee.kwargs, **kwargs}
            return self.call_value(callee.func, name, [*callee.args, *args], merged, node)
        if isinstance(callee, Func):
            return self.call_function(callee, args, kwargs, node)
        if isinstance(callee, Class):
            return self.instantiate(callee.info, args, kwargs, node)
        if isinstance(callee, Obj):
            return self.call_object(callee, args, kwargs, node)
        if isinstance(callee, NNModule) and _runs_its_members(callee, args, kwargs):
            assert callee.members is not None  # _runs_its_members saw to it
            output = args[0]
            for _, member in callee.members:  # Sequential's forward: each module on the last output
                output = self.call_value(member, "", [output], {}, node)
            if not isinstance(output, Tensor) or not output.grad or self.no_grad:
                return output
            # what the container's call made learns from every parameter it holds
            made = self.new_node(node, output.nodes, saves=False, learns=True, origins=callee.origins)
            return replace(made, maybe=output.maybe)
        if isinstance(callee, NNModule):
            callee = self.weight_norm_hook(self.cached_weight(callee, node), node)
            carries = callee.carries | normed_nodes(callee)
            return self.call_module(
                args, kwargs, node, frozen=callee.frozen, origins=callee.origins, carries=carries
            )
        if callee is UNKNOWN and name and name not in self.state.env and name not in self.globals:
            return self.call_builtin(name, args, kwargs, node)
        self.forget_weight_norms(None)  # a callee not known may be any module's forward
        return self.unknown_call(args, kwargs)

    def call_method(
        self, receiver: Value, attr: str, args: list[Value], kwargs: dict[str, Value], node: ast.Call
    ) -> Value:
        if isinstance(receiver, Ref):
            return self.call_qualified(f"{receiver.qualname}.{attr}", args, kwargs, node)
        if isinstance(receiver, Tensor):
            return self.tensor_method(receiver, attr, args, kwargs, node)
        if isinstance(receiver, Instance):
            return self.library_method(receiver, attr, args, kwargs, node)
        if attr == "register_forward_hook" and args and isinstance(args[0], Func | Partial):
            self.forward_hooks.append(args[0])
            self.hook_registrations.append(
                HookRegistration(tuple((f.serial, f.stmt) for f in self.frames if f.stmt is not None))
            )
            return HookHandle(len(self.forward_hooks) - 1)
        if isinstance(receiver, HookHandle) and attr == "remove" and not args and not kwargs:
            self.state.hooks_removed |= {receiver.registration}
            return Const(None)
        if isinstance(receiver, GradFn) and attr in api.NODE_HOOK_METHODS:
            # a hook on a node of the graph: it sees the gradients that flow through it
            self.ownership.uses.append(GradientUse(frozenset({receiver.node}), frozenset(), attr, LASTING))
        if isinstance(receiver, Class) and receiver.info.function and attr == "apply":
            # a custom autograd.Function: its backward needs what its forward saved
            return self.op_node(node, [*args, *kwargs.values()], saves=_saves_for_backward(receiver.info))
        if isinstance(receiver, Obj):
            return self.object_method(receiver, attr, args, kwargs, node)
        if isinstance(receiver, Super):
            return self._super_method(receiver, attr, args, kwargs, node)
        if isinstance(receiver, TransformedDist):
            return self.distribution_method(receiver, attr, args, kwargs, node)
        if isinstance(receiver, ModuleRef):  # `steps.train(...)` after `import steps`: what it defines
            return self.call_value(self.attribute(receiver, attr, node), attr, args, kwargs, node)
        if isinstance(receiver, Class) and self._called_through_class(receiver, attr):
            # Model.helper(x), or a plain function called through its class with every argument
            return self.call_value(self.attribute(receiver, attr, node), attr, args, kwargs, node)
        if isinstance(receiver, Seq) and attr in ("append", "extend", "insert", "add", "update"):
            return self._grow(receiver, attr, args, node)
        if isinstance(receiver, Seq) and attr == "clear" and isinstance(node.func, ast.Attribute):
            self.assign_place(node.func.value, Seq(UNKNOWN, receiver.kind, ()))
            return Const(None)
        if isinstance(receiver, Seq) and attr in ("pop", "get", "values", "items", "copy", "keys"):
            if attr == "pop" and isinstance(node.func, ast.Attribute):
                self.forget_keys(node.func.value, receiver)
            return _container_view(receiver, attr)
        if isinstance(receiver, NNModule):
            return self.module_method(receiver, attr, args, kwargs, node)
        if isinstance(receiver, Unknown | Opaque):
            self.forget_weight_norms(None)  # a method of an object not known may run any module
        return self.unknown_call([receiver, *args], kwargs)

    def _super(self) -> Value:
        """``super()`` in a method the object it runs on has, defined in a class whose one base the
        checked code defines (:attr:`ClassInfo.parent`); anything else is not known."""
        frame = self.frames[-1] if self.frames else None
        method = frame.func if frame is not None else None
        if (
            frame is None
            or not isinstance(method, ast.FunctionDef | ast.AsyncFunctionDef)
            or not method.args.args
        ):
            return UNKNOWN
        obj = self.state.env.get(method.args.args[0].arg)
        if not isinstance(obj, Obj) or obj.oid != frame.bound:
            return UNKNOWN
        defining: ClassInfo | None = obj.cls
        while defining is not None and not any(child is method for child in defining.node.body):
            defining = defining.parent
        if defining is not None and defining.parent is None and defining.transform:
            return Super(obj, None)  # torch.distributions.Transform's own methods
        if defining is None or defining.parent is None:
            return UNKNOWN
        return Super(obj, defining.parent)

    def _super_method(
        self, receiver: Super, attr: str, args: list[Value], kwargs: dict[str, Value], node: ast.Call
    ) -> Value:
        """``super().forward(x)``: the base's method, run on the object; ``Transform.__init__``
        keeps the cache size it is given (0 or 1; torch refuses any other)."""
        if receiver.cls is None:
            if attr != "__init__":
                return self.unknown_call(args, kwargs)
            size = args[0] if args else kwargs.get("cache_size", Const(0))
            known = isinstance(size, Const) and size.value in (0, 1) and type(size.value) is int
            self.state.heap[Place(receiver.obj.oid, CACHE_SIZE)] = size if known else UNKNOWN
            self.state.heap[Place(receiver.obj.oid, CACHE_SITE)] = Const(node)
            return Const(None)
        method = receiver.cls.methods.get(attr)
        if method is None:
            return self.unknown_call(args, kwargs)
        bound = Func(method, receiver.obj, module=receiver.cls.homes.get(attr))
        return self.call_function(bound, args, kwargs, node)

    def _called_through_class(self, cls: Class, attr: str) -> bool:
        """A staticmethod or an undecorated function of the class: called through the class, it
        takes exactly the arguments given (a classmethod or a property would not)."""
        method = cls.info.methods.get(attr)
        return method is not None and (self.static_method(method) or not method.decorator_list)

    def iterated(self, items: Value, iterable: ast.expr) -> Value:
        """What a ``for`` over ``items`` walks. An object of the checked code's own class that
        defines ``__iter__`` gives what the iterator ``__iter__`` returns gives: a generator's items,
        or the values of ``__next__`` called once for each iteration a loop is followed (before the
        loop, as a generator's body runs at its call; a call that can only raise ``StopIteration``
        ends the items). Anything else is walked as it is."""
        if not isinstance(items, Obj):
            return walked(items)
        start = self.attribute(items, "__iter__", iterable)
        if not isinstance(start, Func):
            return items
        iterator = self.call_function(start, [], {}, None)
        if isinstance(iterator, Seq) or not isinstance(iterator, Obj):
            return iterator if isinstance(iterator, Seq) else UNKNOWN
        step = self.attribute(iterator, "__next__", iterable)
        if not isinstance(step, Func):
            return UNKNOWN
        given: list[Value] = []
        for _ in range(ITERATOR_STEPS):
            before = self.state.copy()
            value = self.call_function(step, [], {}, None)
            if self.state.dead:  # it can only stop here: the loop gets no more items
                self.state = before
                break
            given.append(value)
        return Seq(join_many(given), ITERATOR, tuple(given))

    def object_method(
        self, receiver: Obj, attr: str, args: list[Value], kwargs: dict[str, Value], node: ast.Call
    ) -> Value:
        """A method of an object of a class defined in the checked code."""
        method = self.attribute(receiver, attr, node)
        if isinstance(method, Func | Obj | NNModule | Class):
            return self.call_value(method, attr, args, kwargs, node)
        if receiver.cls.lightning and attr == "manual_backward" and args:
            return self.backward_call(node, args[0], kwargs, receiver_expr(node, 0), positional=args[1:])
        if receiver.cls.is_module and attr == "requires_grad_":
            frozen = bool(args) and isinstance(args[0], Const) and not args[0].value
            self.state.heap[Place(receiver.oid, FROZEN)] = Const(frozen)
            return receiver
        if receiver.cls.is_module and attr in api.MODULE_SELF_METHODS:
            return receiver  # model.to(device), model.eval(): the same module
        if receiver.cls.is_module and attr in ("parameters", "named_parameters", "buffers"):
            return self.module_method(NNModule(origins=self.closure(receiver)), attr, args, kwargs, node)
        if receiver.cls.is_module and attr in api.MODULE_GRADIENT_HOOK_METHODS:
            self.note_gradient_use(receiver, f"`{attr}`", lasting=True)
        if receiver.cls.is_module and attr == "zero_grad":  # nn.Module's own: it clears every gradient
            self.ownership.timeline.append((CLEAR, node, self.closure(receiver)))
        if receiver.cls.is_module:
            self.link(receiver, *args, *kwargs.values())  # `add_module(name, other)`
        self.forget_weight_norms([receiver])  # a method not followed may run its modules
        return self.unknown_call(args, kwargs)

    def _grow(self, container: Seq, attr: str, args: list[Value], node: ast.Call) -> Value:
        added = args[-1] if args else UNKNOWN
        many = attr in ("extend", "update")
        item = element(added) if many else added
        items = container.items
        if items is not None and attr == "append" and len(items) < MAX_ITEMS:
            items = (*items, added)
        elif items is not None and many and isinstance(added, Seq) and added.items is not None:
            items = (*items, *added.items)[:MAX_ITEMS]
        else:
            items = None
        assert isinstance(node.func, ast.Attribute)
        self.assign_place(node.func.value, Seq(join(element(container), item), container.kind, items))
        return Const(None)

    def call_qualified(
        self, qualname: str, args: list[Value], kwargs: dict[str, Value], node: ast.Call
    ) -> Value:
        short = qualname.rsplit(".", 1)[-1]
        if qualname in api.GRAD_FUNCS or qualname.endswith("autograd.grad"):
            return self.autograd_grad(node, args, kwargs)
        if qualname in api.BACKWARD_FUNCS or qualname.endswith("autograd.backward"):
            tensors = args[0] if args else kwargs.get("tensors", UNKNOWN)
            return self.backward_call(node, tensors, kwargs, receiver_expr(node, 0), positional=args[2:])
        if qualname == "copy.deepcopy" and len(args) == 1 and isinstance(args[0], NNModule):
            # a module of its own: new parameters, which no optimizer built before it holds
            copied = args[0]
            normed = copied.normed and replace(copied.normed, weight=None)  # torch refuses to copy it
            origins = frozenset({self.origin(node)})
            return replace(
                copied, origins=origins, parts=None, carries=frozenset(), normed=normed, members=None
            )
        if qualname == "functools.partial" and args:
            return Partial(args[0], tuple(args[1:]), kwargs)
        if qualname in api.LIBRARY_BACKWARD_CLASSES or qualname in api.GRAD_SCALER_CLASSES:
            return Instance(qualname)
        if short in api.GLOBAL_GRADIENT_HOOKS:  # every module's backward: any gradient
            self.ownership.uses.append(GradientUse(frozenset(), None, short, LASTING))
        if qualname == "itertools.chain":
            return Seq(join_many([element(a) for a in args]), "list")  # every item of each, in turn
        if qualname in api.STDLIB_CONTAINERS or (qualname in api.SAMPLING_FUNCS and args):
            # deque(...), OrderedDict(...); random.sample(buffer, k): some of the buffer's items
            return Seq(element(args[0]) if args else UNKNOWN, "list")
        if qualname in api.SAMPLE_ONE_FUNCS and args:
            return element(args[0])
        if qualname in api.TENSOR_DATASETS:
            # TensorDataset(x, y): items are (x[i], y[i]); a loader's batches stack them back
            return Seq(Seq(UNKNOWN, "tuple", tuple(element(a) for a in args)), "list")
        if qualname in api.DATA_LOADERS and args and isinstance(args[0], Seq):
            return Seq(element(args[0]), "list")
        if qualname.startswith(api.GRAPH_FREE_MODULES) or qualname in api.DATA_LOADERS:
            # numpy, math, random, ...: no graph of their own; what they were handed they may hold
            # (np.array of tensors), and may be handed back
            given = [*args, *kwargs.values()]
            self._note_unknown_reach(given)
            may = may_reach(given)
            return Opaque(may) if may and not self.no_grad else UNKNOWN
        if not qualname.startswith("torch."):
            return self.unknown_call(args, kwargs)
        return self.torch_call(qualname, short, args, kwargs, node)

    def call_builtin(self, name: str, args: list[Value], kwargs: dict[str, Value], node: ast.Call) -> Value:
        if name == "super" and not args and not kwargs:
            return self._super()
        if name in api.PURE_BUILTINS:
            self.forward_calls.add(node)  # range(n), len(x), reversed(xs): a fix may re-run it
        if name in ("sum", "max", "min"):
            parts = [element(args[0])] if len(args) == 1 else list(args)
            return self.op_node(node, parts, saves=name != "sum")
        if name in ("list", "tuple", "set", "dict", "frozenset"):
            inner = element(args[0]) if args else UNKNOWN
            return Seq(inner, "tuple" if name == "tuple" else "list")
        if name == "range":
            return Seq(NUMBER, "range", least=_range_length(args), counting=_range_counting(args))
        if name == "reversed" and len(args) == 1 and isinstance(args[0], Seq) and args[0].kind == "range":
            return Seq(NUMBER, "range", least=args[0].least, counting=None)  # the same numbers, downwards
        if name in ("len", "int", "round") and args:
            return NUMBER
        if name == "iter" and len(args) == 1:
            return args[0]
        if name == "next" and args and isinstance(args[0], Seq):
            return element(args[0])
        if name == "enumerate" and args:
            start = args[1] if len(args) > 1 else kwargs.get("start", Const(0))
            counting = (start.value, 1) if isinstance(start, Const) and type(start.value) is int else None
            return _zipped([Seq(NUMBER, "range", counting=counting), args[0]])
        if name == "zip" and len(node.args) == 1 and isinstance(node.args[0], ast.Starred):
            return _transposed(element(args[0]))
        if name == "zip":
            return _zipped(args)
        if name == "isinstance" and len(args) == 2:
            return _isinstance(args[0], args[1])
        if name == "abs" and args:
            return self.op_node(node, args, saves=True)
        if name in api.NON_TENSOR_BUILTINS:
            return UNKNOWN
        return self.unknown_call(args, kwargs)

    def unknown_call(self, args: list[Value], kwargs: dict[str, Value]) -> Value:
        """A call we cannot follow: its result is unknown, never a graph. What it was given may be
        backwarded inside it (a library's ``step(loss, retain_graph=True)``), so a retained graph
        handed to it is not proven unneeded."""
        given = [*args, *kwargs.values()]
        self._note_unknown_reach(given)
        self.note_escape(given)
        self.forget_weight_norms(given)
        if self.no_grad:
            return UNKNOWN
        # What it gives back may hold a graph of its own, which another such result may share.
        return Opaque(frozenset().union(*(maybe_of(v) for v in given)) | {UNSEEN})

    def call_object(self, obj: Obj, args: list[Value], kwargs: dict[str, Value], node: ast.Call) -> Value:
        name = "forward" if "forward" in obj.cls.methods else "__call__"
        method = obj.cls.methods.get(name)
        home = obj.cls.homes.get(name)
        frozen = self.state.heap.get(Place(obj.oid, FROZEN)) == Const(True)
        if method is None:
            if not obj.cls.is_module:
                return UNKNOWN
            return self.call_module(args, kwargs, node, frozen=frozen, origins=self.closure(obj))
        if obj.cls.is_module:
            self.forward_calls.add(node)
        if frozen and not any(has_grad(v) for v in [*args, *kwargs.values()]):
            saved, self.no_grad = self.no_grad, True  # no parameter needs grad, nor any input
            try:
                return self.call_function(Func(method, obj, module=home), args, kwargs, node)
            finally:
                self.no_grad = saved
        result = self.call_function(Func(method, obj, module=home), args, kwargs, node)
        return self._run_forward_hooks(result, args, node) if obj.cls.is_module else result

    def instantiate(
        self,
        info: ClassInfo,
        args: list[Value],
        kwargs: dict[str, Value],
        node: ast.Call | None,
        unknown_args: bool = False,
    ) -> Obj:
        obj = Obj(info, next(self._serial))
        if node is not None:
            module = self.frames[-1].module if self.frames else None
            self.allocations[obj.oid] = (module or "", node.lineno, node.col_offset)
        init = info.methods.get("__init__")
        if init is not None:
            home = info.homes.get("__init__")
            self.call_function(Func(init, obj, module=home), args, kwargs, node, unknown_args=unknown_args)
        elif info.fields is not None:
            for index, (name, default) in enumerate(info.fields):
                given = args[index] if index < len(args) and not unknown_args else kwargs.get(name)
                self.state.heap[Place(obj.oid, name)] = (
                    given if given is not None else _default_value(default)
                )
        return obj

    def call_function(
        self,
        func: Func,
        args: list[Value],
        kwargs: dict[str, Value],
        node: ast.Call | None,
        unknown_args: bool = False,
    ) -> Value:
        fn = func.node
        if len(self.frames) > MAX_CALL_DEPTH:
            self.forget_rebindable_places([*args, *kwargs.values(), *_receiver(func)])
            return self.unknown_call(args, kwargs)
        if any(frame.func is fn for frame in self.frames):
            self.note_escape([*args, *kwargs.values()])  # what it does with them again is not seen
            self.forget_rebindable_places([*args, *kwargs.values(), *_receiver(func)])
            return UNKNOWN  # recursion (repackage_hidden): no graph is assumed, not one invented
        if func.module is not None and not unknown_args and not self.isolated:
            summarised = self.summarised_call(func, args, kwargs, node)
            if summarised is not None:
                return summarised  # what running its body would give, and leave behind
        key = self._call_key(func, args, kwargs, unknown_args)
        if key is None:
            return self._run_call(func, args, kwargs, node, unknown_args)
        answered = self.call_memo.answer(key, self.state, self.globals)
        if answered is not None:
            self._note_called(fn, node)
            self.ownership.uses.extend(answered.uses)
            return answered.result
        before, names, records = state_of(self.state), dict(self.globals), records_of(vars(self))
        uses = len(self.ownership.uses)
        result = self._run_call(func, args, kwargs, node, unknown_args)
        if (
            graph_free(result)
            and records_of(vars(self)) == records
            and self.globals == names
            and same_state(self.state, before)
            and (added := lasting_uses_since(self.ownership, uses)) is not None
        ):
            # records hold the ticks and saved reads: equal, the run never looked at what was freed
            self.call_memo.remember(key, Remembered(without_freed(before), names, result, added))
        return result

    def _call_key(
        self, func: Func, args: list[Value], kwargs: dict[str, Value], unknown_args: bool
    ) -> Hashable | None:
        """What a run of ``func`` depends on beside the state (see ``memo.py``); None where its calls
        are not remembered."""
        fn = func.node
        if is_generator(func_node(fn)) or rebinds_outer_names(fn):
            return None
        key = (
            id(fn),
            func.bound,
            func.closure,
            func.module,
            tuple(args),
            tuple(sorted(kwargs.items(), key=lambda item: item[0])),
            unknown_args,
            self.no_grad,
            frozenset(self.fixed_flags.items()),
            len(self.frames),
            sum(len(frame.loops) for frame in self.frames),
            bool(self.loop_stack),
            frozenset(self._forced.items()),
            self._in_hook,
            self._conditional,
            self._module_running,
            self.split_retests,
            len(self.caching),
            tuple(self.forward_hooks),
            self.weight_normed,
        )
        try:
            hash(key)
        except TypeError:
            return None
        return key

    def _note_called(
        self, fn: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda, node: ast.Call | None
    ) -> None:
        """``node`` called ``fn``: run, or answered from the memo."""
        if node is None:
            return
        if isinstance(fn, ast.Lambda):
            self.called_lambdas.setdefault(node, set()).add(fn)
        else:
            self.called_functions.setdefault(node, set()).add(fn)

    def _run_call(
        self,
        func: Func,
        args: list[Value],
        kwargs: dict[str, Value],
        node: ast.Call | None,
        unknown_args: bool,
    ) -> Value:
        fn = func.node
        env = self._bind(fn, func.bound, args, kwargs, unknown_args)
        closure = self._closures.get(func.closure) if func.closure is not None else None
        frame = Frame(next(self._serial), fn, node, self.tick, closure=closure)
        self._note_called(fn, node)
        frame.bound = func.bound.oid if func.bound is not None else None
        caller_env, caller_no_grad, caller_globals = self.state.env, self.no_grad, self.globals
        frame.module = func.module
        if func.module is not None:
            self.globals = self.namespaces.get(func.module, {})  # its names are its module's
        elif self.frames and self.frames[-1].func is None and self.frames[-1].module is None:
            self.globals = caller_env  # a call from module level sees the module's names as they are
        self.state.env = env
        decorated = not isinstance(fn, ast.Lambda) and decorated_no_grad(fn)
        if decorated:
            self.no_grad = True
        switches = self.grad_mode_switches
        try:
            with self._frame(frame):
                self.exec_block(_lambda_body(fn) if isinstance(fn, ast.Lambda) else fn.body)
        finally:
            if decorated or self.grad_mode_switches == switches:
                self.no_grad = caller_no_grad  # a switch inside `@no_grad` ends with it
        outcomes = [state for _, state in frame.returns]
        if not self.state.dead:
            outcomes.append(self.state)
        result = join_many([value for value, _ in frame.returns]) if frame.returns else Const(None)
        if frame.yields:
            # A generator: what a `for` over it sees, item by item (its body ran at the call).
            yields = tuple(frame.yields[:MAX_ITEMS])
            result = Seq(join_many(list(yields)), "list", yields)
        self.state = join_all(outcomes, self.twin) if outcomes else self.state
        self.state.env = caller_env
        if func.module is not None:
            self.globals = caller_globals
        # A call whose every path raised raises in the caller too (a generator's body runs later).
        self.state.dead = not outcomes and not frame.yields and not is_generator(func_node(fn))
        return result

    def _bind(
        self,
        fn: FunctionNode | ast.Lambda,
        bound: Obj | None,
        args: list[Value],
        kwargs: dict[str, Value],
        unknown_args: bool,
    ) -> dict[str, Value]:
        params = [*fn.args.posonlyargs, *fn.args.args]
        env: dict[str, Value] = {}
        # Defaults line up with the parameters before ``self`` is bound: in ``def step(n=2)`` called
        # as a method, ``n`` is the one bound (the zip below failed on it).
        defaults = [None] * (len(params) - len(fn.args.defaults)) + list(fn.args.defaults)
        if bound is not None and params:
            env[params[0].arg] = bound
            params, defaults = params[1:], defaults[1:]
        spread = kwargs.get("**")  # `f(**batch)`: any parameter not named may come from it

        def missing(default: ast.expr | None) -> Value:
            if spread is None:
                return _default_value(default)
            return element(spread) if isinstance(spread, Seq) else UNKNOWN

        for i, (param, default) in enumerate(zip(params, defaults, strict=True)):
            if unknown_args:
                env[param.arg] = _default_value(default)
            elif i < len(args):
                env[param.arg] = args[i]
            else:
                env[param.arg] = kwargs.get(param.arg, missing(default))
        for param, kw_default in zip(fn.args.kwonlyargs, fn.args.kw_defaults, strict=True):
            env[param.arg] = kwargs.get(param.arg, missing(kw_default))
        if fn.args.vararg:
            extra = args[len(params) :]
            items = tuple(extra) if not unknown_args and len(extra) <= MAX_ITEMS else None
            env[fn.args.vararg.arg] = Seq(join_many(extra) if extra else UNKNOWN, "tuple", items)
        if fn.args.kwarg:
            named = {p.arg for p in [*params, *fn.args.kwonlyargs]}
            rest = {k: v for k, v in kwargs.items() if k not in named}
            env[fn.args.kwarg.arg] = UNKNOWN if unknown_args else Kwargs(rest)
        return env


def _named_items(value: Value) -> dict[str, Value] | None:
    """A dict's items by name, where its keys are all known strings (a literal, keys set by
    constant subscripts): ``**`` of it passes exactly those."""
    if not (isinstance(value, Seq) and value.kind == "dict" and value.keys is not None):
        return None
    if value.items is None or not all(isinstance(key, str) for key in value.keys):
        return None
    return {str(key): item for key, item in zip(value.keys, value.items, strict=True)}


def _range_length(args: list[Value]) -> int:
    """How many numbers ``range(*args)`` gives, where its arguments are constant ints (else 0)."""
    if not args or not all(isinstance(a, Const) and type(a.value) is int for a in args):
        return 0
    bounds = [a.value for a in args if isinstance(a, Const) and isinstance(a.value, int)]
    try:
        return len(range(*bounds))
    except (TypeError, ValueError):
        return 0


def _range_counting(args: list[Value]) -> tuple[int, int] | None:
    """The first number and the step of ``range(*args)``, where both are constant ints."""
    if len(args) == 1:
        return (0, 1)
    first, step = (
        a.value if isinstance(a, Const) else None for a in (args[0], args[2] if len(args) > 2 else Const(1))
    )
    if type(first) is int and type(step) is int and step != 0:
        return (first, step)
    return None


def _lambda_body(fn: ast.Lambda) -> list[ast.stmt]:
    """A lambda's expression as the ``return`` statement it amounts to."""
    return [ast.copy_location(ast.Return(fn.body), fn.body)]


def _container_view(container: Seq, attr: str) -> Value:
    if attr in ("pop", "get"):
        return element(container)
    named = container.keys if container.items is not None else None
    if attr == "keys":
        if named is None:
            return Seq(UNKNOWN, "list")
        constants = tuple(Const(name) for name in named)
        return Seq(join_many(list(constants)), "list", constants)
    if attr == "items":
        if named is not None:
            keys: tuple[Value, ...] | None = tuple(Const(name) for name in named)
        else:
            keys = tuple(UNKNOWN for _ in container.items) if container.items is not None else None
        return _zipped([Seq(UNKNOWN, "list", keys), container])
    return Seq(container.item, "list", container.items)


def _zipped(sources: list[Value]) -> Seq:
    """``zip``/``enumerate``: tuples, item by item where every source's items are known."""
    sources = [walked(s) for s in sources]
    pair = Seq(UNKNOWN, "tuple", tuple(element(s) for s in sources))
    lengths = [len(s.items) for s in sources if isinstance(s, Seq) and s.items is not None]
    known = all(isinstance(s, Seq) and (s.items is not None or s.kind == "range") for s in sources)
    if not known or not lengths:
        ranges = tuple(s if isinstance(s, Seq) and s.kind == "range" else None for s in sources)
        return Seq(pair, "list", numbered=ranges if any(r is not None for r in ranges) else None)
    items = tuple(Seq(UNKNOWN, "tuple", tuple(nth(s, i) for s in sources)) for i in range(min(lengths)))
    return Seq(pair, "list", items)


def _transposed(row: Value) -> Seq:
    """``zip(*rows)`` where each row is a tuple of known length (a batch of transitions): one
    tuple per field, each holding that field of every row."""
    if not isinstance(row, Seq) or row.items is None:
        return Seq(Seq(element(row), "tuple"), "list")
    columns = tuple(Seq(field, "tuple") for field in row.items)
    return Seq(join_many(list(columns)), "list", columns)


def _isinstance(value: Value, kind: Value) -> Value:
    """``isinstance(h, torch.Tensor)`` where we know what ``h`` is (repackage_hidden, guards);
    ``isinstance(m, AdaRound)`` of a class the checked code defines, where ``m`` is an object of
    that very class, or a torch layer or another value that no class of the code makes."""
    if isinstance(kind, Class):
        if isinstance(value, Obj) and value.cls is kind.info:
            return Const(True)
        made_elsewhere = isinstance(value, NNModule) and value.torch_class is not None
        return Const(False) if made_elsewhere or isinstance(value, Tensor | Seq | Const) else UNKNOWN
    names = [k.qualname for k in ([kind] if isinstance(kind, Ref) else [])]
    if isinstance(kind, Seq) and kind.items is not None:
        names = [k.qualname for k in kind.items if isinstance(k, Ref)]
        if len(names) != len(kind.items):
            return UNKNOWN
    if not names or not all(n.endswith("Tensor") for n in names):
        return UNKNOWN
    if isinstance(value, Tensor):
        return Const(True)
    if isinstance(value, Seq | Const):
        return Const(False)
    return UNKNOWN


def _saves_for_backward(info: ClassInfo) -> bool:
    """A custom ``autograd.Function`` whose ``forward`` saves tensors with
    ``ctx.save_for_backward`` (what it keeps as ``ctx`` attributes a backward does not free)."""
    forward = info.methods.get("forward")
    return forward is not None and any(
        isinstance(call, ast.Call)
        and isinstance(call.func, ast.Attribute)
        and call.func.attr == "save_for_backward"
        and any(not (isinstance(a, ast.Constant) and a.value is None) for a in call.args)
        for call in ast.walk(forward)
    )


def _default_value(default: ast.expr | None) -> Value:
    if isinstance(default, ast.Constant):
        return Const(default.value)
    return UNKNOWN


def _runs_its_members(module: NNModule, args: list[Value], kwargs: dict[str, Value]) -> bool:
    """A ``Sequential`` whose modules are known (:attr:`NNModule.members`), called on one input,
    with nothing of its own that a forward pass would also run (a frozen flag, a weight norm, a
    graph its parameters carry)."""
    return (
        module.label == "Sequential"
        and module.members is not None
        and len(args) == 1
        and not kwargs
        and not module.frozen
        and module.normed is None
        and not module.carries
        and module.parametrization is None
    )


def _receiver(func: Func) -> list[Value]:
    """The object a method is bound to, if any."""
    return [func.bound] if func.bound is not None else []
