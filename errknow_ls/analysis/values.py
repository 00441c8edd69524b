"""The abstract values the interpreter computes: tensors as sets of graph nodes, and the rest."""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from errknow_ls.analysis import torch_api as api


@dataclass(frozen=True, slots=True)
class GraphNode:
    """One autograd node created at one source site, in one iteration of the loops around it."""

    id: int
    site: ast.expr
    stmt: ast.stmt | None
    saves: bool
    """Whether its backward needs saved tensors (a product, a layer, a loss; not a sum or a view)."""
    loops: tuple[tuple[int, int], ...]
    """(loop key, iteration) of every loop around the site when the node was made."""
    frame: int
    stmts: tuple[tuple[int, ast.stmt], ...] = ()
    """The statement each frame on the call stack was running when the node was made."""
    below: frozenset[int] = frozenset()
    """The nodes its backward leads to (the graph it was made from)."""
    learns: bool = False
    """Made from parameters (a module call, an op on a leaf that needs grad): training goes through it."""
    every_input_grad: bool = False
    """Every input of its op was a tensor that needs grad: each one its backward uses is saved
    (``a * b`` saves ``b`` for ``a``'s gradient only when ``a`` needs one)."""
    origins: frozenset[int] | None = frozenset()
    """Where a node that learns reads parameters directly: the origins (see ``ownership.py``) of
    the modules it ran and of the leaves that need grad among its inputs; None where one of them
    is not known."""

    def stmt_in(self, frame: int) -> ast.stmt | None:
        for serial, stmt in self.stmts:
            if serial == frame:
                return stmt
        return None


class Value:
    """Base of every abstract value."""

    __slots__ = ()


@dataclass(frozen=True, slots=True)
class Unknown(Value):
    """Anything the analysis does not follow: numbers, strings, optimizers, loaders, ..."""


UNKNOWN = Unknown()


@dataclass(frozen=True, slots=True)
class Opaque(Value):
    """What code the checker does not follow gave back, having been handed graphs: unknown, but
    it may hold those ``maybe`` nodes."""

    maybe: frozenset[int]


@dataclass(frozen=True, slots=True)
class ModuleRef(Value):
    """A module of the project itself, read: its names by its key (its path)."""

    key: str
    submodules: tuple[tuple[str, ModuleRef], ...] = ()
    """Its submodules ``import pkg.sub`` made attributes of it, by name (Python sets them on the
    package): read where the package's own names have none."""

    def submodule(self, name: str) -> ModuleRef | None:
        return next((module for held, module in self.submodules if held == name), None)


@dataclass(frozen=True, slots=True)
class Number(Value):
    """A Python number whose value is not known (a loop index, a size, ``loss.item()``): never a
    tensor, so an op with it saves no tensor of it."""


NUMBER = Number()


@dataclass(frozen=True, slots=True)
class AtLeast(Number):
    """A number not known but known to be at least ``least``: the counter of a ``for`` over a
    range of known first number and positive step, on the run through its body that stands for
    every iteration after the first (``if epoch > 0:`` holds there)."""

    least: int


@dataclass(frozen=True, slots=True)
class Const(Value):
    value: object


@dataclass(frozen=True, slots=True)
class GradFn(Value):
    """A tensor's ``grad_fn``: the graph node that made it (its saved tensors are read through
    ``_saved_*`` and ``saved_tensors``)."""

    node: int


@dataclass(frozen=True, slots=True)
class Choice(Value):
    """One of a few constants, which one not known: an item of a tuple of constants at an index we
    cannot tell (``STAGES[epoch * 3 // epochs]``). Nothing else makes one: a value joined over
    paths may have taken others on paths the analysis did not run (a counter)."""

    values: frozenset[object]


@dataclass(frozen=True, slots=True)
class Tensor(Value):
    nodes: frozenset[int] = frozenset()
    """Every non-leaf graph node a backward from this tensor would reach."""
    grad: bool = False
    root: int | None = None
    maybe: frozenset[int] = frozenset()
    """Nodes a backward from it may also reach through code the checker does not follow (an
    unknown call that was handed a graph): never enough to report, enough to doubt a claim that
    a retained graph is not needed."""
    owners: frozenset[int] | None = None
    """For a leaf that needs grad (a parameter): the origins it may belong to (see
    ``ownership.py``); None where that is not known."""
    identities: frozenset[int] = frozenset()
    """Which tensors it may be, each named by the node of the op that made it, where paths joined
    (``root`` is then None) or an in-place update (``loss += term``) gave the same tensor a new
    node; empty: only ``root`` (see :func:`identities_of`)."""


def identities_of(tensor: Tensor) -> frozenset[int]:
    """Which tensors ``tensor`` may be (by the node of the op that made each)."""
    if tensor.identities:
        return tensor.identities
    return frozenset({tensor.root}) if tensor.root is not None else frozenset()


@dataclass(frozen=True, slots=True)
class Seq(Value):
    """A list, tuple, dict or other container; ``items`` is kept for fixed-size tuples."""

    item: Value = UNKNOWN
    kind: str = "list"
    items: tuple[Value, ...] | None = None
    least: int = 0
    """How many items it has at least (``range(10)``: 10), so a loop over it runs its body."""
    keys: tuple[object, ...] | None = None
    """A dict's constant keys, one per item (``{"loss": a, "logits": b}``): items apart by key."""
    some_of: tuple[Value, ...] | None = None
    """A slice at bounds not known of a list whose items are known: it holds some of these, which
    ones not known (``middles[start : start + 2]``)."""
    counting: tuple[int, int] | None = (0, 1)
    """A ``range``'s first number and step (``range(1, n)``: ``(1, 1)``); None where either is
    not known, so its numbers are not."""
    numbered: tuple[Seq | None, ...] | None = None
    """``zip``'s or ``enumerate``'s pairs where what they walk is not all known: for each place of
    a pair, the range it counts from (None for the others), so that each step's numbers are known
    as a ``for`` over that range knows them (``enumerate(tasks)``: 0 at the first step)."""


@dataclass(frozen=True, slots=True)
class Kwargs(Value):
    """A ``**kwargs`` dict whose keys are known, so ``f(**kwargs)`` passes them on."""

    items: dict[str, Value] = field(default_factory=dict, hash=False)


@dataclass(frozen=True, slots=True)
class Partial(Value):
    """``functools.partial(f, *args, **kwargs)``: calling it calls ``f`` with those first."""

    func: Value
    args: tuple[Value, ...] = ()
    kwargs: dict[str, Value] = field(default_factory=dict, hash=False)


@dataclass(frozen=True, slots=True)
class Ref(Value):
    """An imported module or object, by qualified name (``torch.nn.functional``)."""

    qualname: str


def outside(qualname: str) -> Value:
    """What a name from outside the project (``numpy.inf``, ``torch.nn``) is: the number of a
    documented library constant, else a reference by that name."""
    constant = api.LIBRARY_CONSTANTS.get(qualname)
    return Ref(qualname) if constant is None else Const(constant)


@dataclass(frozen=True, slots=True)
class HookHandle(Value):
    """What ``register_forward_hook`` gives back: ``remove()`` on it stops that hook."""

    registration: int
    """The hook's index among the interpreter's forward hooks."""


@dataclass(frozen=True, slots=True)
class Instance(Value):
    """An object of a library class the checker models on purpose (an optimizer, an
    ``accelerate.Accelerator``, a ``GradScaler``), by the class's qualified name."""

    qualname: str
    made: ast.AST | None = None
    """For an optimizer, the constructor call that built it (what it owns: ``Ownership.constructed``);
    None where that is not known (one of two optimizers, or another object)."""


@dataclass(frozen=True, slots=True)
class NNModule(Value):
    """An ``nn.Module`` (or other callable with parameters) whose insides are not followed."""

    label: str = ""
    frozen: bool = False
    """``requires_grad_(False)``: its parameters need no grad."""
    origins: frozenset[int] | None = None
    """The origins whose parameters it may hold (see ``ownership.py``): the constructor call that
    made it, and what it was built from; None where that is not known."""
    parts: tuple[tuple[object, frozenset[int] | None], ...] | None = None
    """A container's modules by key (``nn.ModuleDict({"G": g, "D": d})``, ``nn.Sequential(a, b)``:
    0, 1), each with its origins, while nothing changed them: ``nets["G"]`` holds only G's."""
    carries: frozenset[int] = frozenset()
    """The graph its parameters carry since an update in place recorded one (a frozen target
    network's ``p_target.copy_(tau * p + (1 - tau) * p_target)`` outside ``no_grad`` makes each
    parameter the output of that update), or since ``parametrize.cached()`` kept the tensor its
    parametrization computed: every forward pass through the module reaches it."""
    parametrization: tuple[str, Value] | None = None
    """``register_parametrization(module, name, parametrization)``: the tensor's name and the
    module that computes it from the original parameter."""
    parameter: bool = False
    """A parameter a torch layer makes, read as its attribute (``nn.Linear(4, 2).weight``): a leaf
    that requires grad where arithmetic reads it. Any other attribute of a module is unknown there."""
    normed: WeightNorm | None = None
    """The old ``nn.utils.weight_norm`` applied to it."""
    torch_class: str | None = None
    """The ``torch.nn`` class whose constructor made it (``torch.nn.ReLU``), while that is known:
    it is no instance of a class the checked code defines."""
    members: tuple[tuple[object, Value], ...] | None = None
    """A container's modules themselves, by key as in :attr:`parts`, where one of them is an object
    of the checked code's own module class (``nn.Sequential(AdaRound(fc), nn.ReLU())``,
    ``nn.ModuleList(Block() for _ in range(2))``), while nothing changed them: ``blocks[0]`` is
    that object, a ``for`` over the container walks them, a ``Sequential`` runs them in turn."""


@dataclass(frozen=True, slots=True)
class WeightNorm:
    """The old ``nn.utils.weight_norm(module, name)`` on a module."""

    name: str
    """The attribute it computes (``weight``)."""
    weight: Tensor | None
    """What the attribute holds: computed from ``<name>_g`` and ``<name>_v`` when weight norm was
    applied and again before each forward pass (a pre-hook); None once code the checker does not
    follow was handed the module, which may run its forward pass unseen."""
    applied: ast.Call
    """The call that applied it."""
    qualname: str
    """What that call resolved to (``torch.nn.utils.weight_norm``)."""


@dataclass(frozen=True, slots=True)
class ClassInfo:
    node: ast.ClassDef
    methods: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = field(hash=False, compare=False)
    is_module: bool = False
    layer: bool = False
    """Derives from a torch layer (``nn.Linear``), whose constructor made ``weight`` and ``bias``."""
    function: bool = False
    """Derives from ``torch.autograd.Function``: ``.apply`` is a differentiable op."""
    fields: tuple[tuple[str, ast.expr | None], ...] | None = field(default=None, compare=False)
    """A dataclass's fields in order, with their defaults: what its generated ``__init__`` sets."""
    homes: dict[str, str | None] = field(default_factory=dict, hash=False, compare=False)
    """The module each method was defined in, where that is another module of the project."""
    lightning: bool = False
    """Derives from Lightning's ``LightningModule``: the framework calls ``training_step`` step after
    step, and ``manual_backward(loss)`` is ``loss.backward()``."""
    parent: ClassInfo | None = field(default=None, hash=False, compare=False)
    """The class it derives from, where that is its one base and a class the checked code defines:
    what ``super()`` in its methods finds first."""
    transform: bool = False
    """Derives from ``torch.distributions.Transform``, directly where :attr:`parent` is None: with
    ``cache_size=1`` it keeps its last inversion and gives it back for the very same input."""


@dataclass(frozen=True, slots=True)
class Obj(Value):
    """An instance of a class defined in the analysed source; attributes live in the state's heap."""

    cls: ClassInfo
    oid: int


@dataclass(frozen=True, slots=True)
class Super(Value):
    """``super()`` in a method of a class whose one base the checked code defines: ``obj``, with
    its methods looked up from ``cls`` (that base) on; ``cls`` None: the base is
    ``torch.distributions.Transform`` (:attr:`ClassInfo.transform`), whose ``__init__`` is modelled."""

    obj: Obj
    cls: ClassInfo | None


@dataclass(frozen=True, slots=True)
class TransformedDist(Value):
    """``torch.distributions.TransformedDistribution(base, transforms)`` where every transform is
    an object of the checked code's ``Transform`` class that keeps its last inversion
    (``cache_size=1``): ``log_prob`` inverts through them as torch does. ``as_op``: the value it
    was before that model (an op of what it was built from), for anything else done with it."""

    base: Value
    transforms: tuple[Obj, ...]
    as_op: Value


@dataclass(frozen=True, slots=True)
class Func(Value):
    node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda
    bound: Obj | None = None
    closure: int | None = None
    module: str | None = None
    """The other module of the project it was defined in (its names are that module's), if any."""


@dataclass(frozen=True, slots=True)
class Class(Value):
    info: ClassInfo


def nodes_of(value: Value) -> frozenset[int]:
    if isinstance(value, Tensor):
        return value.nodes
    if isinstance(value, TransformedDist):
        return nodes_of(value.as_op)
    if isinstance(value, NNModule):
        return value.carries | normed_nodes(value)
    if isinstance(value, Seq):
        found = nodes_of(value.item)
        for item in value.items or ():
            found |= nodes_of(item)
        return found
    return frozenset()


def normed_nodes(module: NNModule) -> frozenset[int]:
    """The graph of the tensor the old weight norm keeps on ``module`` (:attr:`NNModule.normed`)."""
    weight = module.normed.weight if module.normed is not None else None
    return weight.nodes if weight is not None else frozenset()


def with_modules(value: Value, change: Callable[[NNModule], NNModule]) -> Value:
    """``value`` with every module it holds, itself or as an item of a container, ``change``d (the
    same object where nothing changed)."""
    if isinstance(value, NNModule):
        return change(value)
    if isinstance(value, Seq):
        item = with_modules(value.item, change)
        items = None if value.items is None else tuple(with_modules(i, change) for i in value.items)
        some = None if value.some_of is None else tuple(with_modules(i, change) for i in value.some_of)
        if item is value.item and _same_items(items, value.items) and _same_items(some, value.some_of):
            return value
        return replace(value, item=item, items=items, some_of=some)
    return value


def _same_items(new: tuple[Value, ...] | None, old: tuple[Value, ...] | None) -> bool:
    return new is None or old is None or all(a is b for a, b in zip(new, old, strict=True))


UNSEEN = -1
"""In a ``maybe``: what code the checker does not follow gave back may hold a graph of its own,
which it cannot tell apart from another such graph; two values holding it may share it."""


def maybe_of(value: Value) -> frozenset[int]:
    """Every node ``value`` may reach: its own, and those it may hold through unknown code."""
    if isinstance(value, Tensor):
        return value.nodes | value.maybe
    if isinstance(value, TransformedDist):
        return maybe_of(value.as_op)
    if isinstance(value, Opaque):
        return value.maybe
    if isinstance(value, NNModule):
        return value.carries | normed_nodes(value)
    if isinstance(value, Seq):
        found = maybe_of(value.item)
        for item in value.items or ():
            found |= maybe_of(item)
        return found
    if isinstance(value, Kwargs):
        return frozenset().union(*(maybe_of(v) for v in value.items.values()))
    return frozenset()


def has_grad(value: Value) -> bool:
    if isinstance(value, Tensor):
        return value.grad
    if isinstance(value, Seq):
        return has_grad(value.item) or any(has_grad(item) for item in value.items or ())
    return False


def touches_parameters(values: list[Value] | tuple[Value, ...]) -> bool:
    """A module, or a leaf tensor that needs grad (a parameter), among ``values``."""
    return any(isinstance(v, NNModule) or any(t.grad and not t.nodes for t in tensors_in(v)) for v in values)


def renamed(value: Value, names: dict[int, int]) -> Value:
    """``value`` with the graph nodes ``names`` maps replaced by what it maps them to (its
    ``root``, which says which tensor it is, unchanged)."""
    match value:
        case Tensor(nodes=nodes, maybe=maybe) if nodes & names.keys() or maybe & names.keys():
            return replace(value, nodes=_renamed_ids(nodes, names), maybe=_renamed_ids(maybe, names))
        case Opaque(maybe=maybe) if maybe & names.keys():
            return Opaque(_renamed_ids(maybe, names))
        case NNModule(carries=carries, normed=normed) if (carries | normed_nodes(value)) & names.keys():
            weight = normed.weight if normed is not None else None
            if normed is not None and weight is not None:
                normed = replace(normed, weight=replace(weight, nodes=_renamed_ids(weight.nodes, names)))
            return replace(value, carries=_renamed_ids(carries, names), normed=normed)
        case Seq(item=item, items=items, some_of=some_of):
            new_item = renamed(item, names)
            new_items = tuple(renamed(i, names) for i in items) if items is not None else None
            new_some = tuple(renamed(i, names) for i in some_of) if some_of is not None else None
            unchanged = all(
                parts is None or all(a is b for a, b in zip(new_parts or (), parts, strict=True))
                for parts, new_parts in ((items, new_items), (some_of, new_some))
            )
            if new_item is item and unchanged:
                return value
            return replace(value, item=new_item, items=new_items, some_of=new_some)
        case Kwargs(items=entries):
            return Kwargs({k: renamed(v, names) for k, v in entries.items()})
    return value


def _renamed_ids(ids: frozenset[int], names: dict[int, int]) -> frozenset[int]:
    return frozenset(names.get(i, i) for i in ids)


def tensors_in(value: Value) -> list[Tensor]:
    if isinstance(value, Tensor):
        return [value]
    if isinstance(value, Seq):
        found = tensors_in(value.item)
        for item in value.items or ():
            found.extend(tensors_in(item))
        return found
    return []


def join(a: Value | None, b: Value | None) -> Value:
    """The value that may be either ``a`` or ``b``."""
    if a is b and a is not None:
        return a
    if a is None:
        return b if b is not None else UNKNOWN
    if b is None or a == b:
        return a
    if isinstance(a, Tensor) and isinstance(b, Tensor):
        root = a.root if a.root == b.root else None
        identities = identities_of(a) | identities_of(b) if root is None else a.identities | b.identities
        owners = _joined_owners(a, b)
        return Tensor(a.nodes | b.nodes, a.grad or b.grad, root, a.maybe | b.maybe, owners, identities)
    if isinstance(a, Opaque) or isinstance(b, Opaque):
        may = maybe_of(a) | maybe_of(b)
        other = b if isinstance(a, Opaque) else a
        if isinstance(other, Tensor):
            return replace(other, maybe=other.maybe | may)
        if not isinstance(other, Seq | Obj | NNModule | Instance | Func | Class | Ref):
            return Opaque(may)
    if isinstance(a, Seq) and isinstance(b, Seq):
        items = None
        if a.keys != b.keys:  # dicts of other keys: their items do not line up
            return Seq(join(element(a), element(b)), a.kind if a.kind == b.kind else "list")
        if a.items is not None and b.items is not None:
            # Item i may be either list's item i: a list that grew in a loop keeps its items apart.
            short, long = sorted((a.items, b.items), key=len)
            items = tuple(join(x, y) for x, y in zip(short, long, strict=False)) + long[len(short) :]
        keys = a.keys if items is not None and a.keys is not None and len(a.keys) == len(items) else None
        return Seq(join(a.item, b.item), a.kind if a.kind == b.kind else "list", items, keys=keys)
    if isinstance(a, NNModule) and isinstance(b, NNModule):
        origins = None if a.origins is None or b.origins is None else a.origins | b.origins
        parts = a.parts if a.parts == b.parts else None
        members = a.members if a.members == b.members else None
        torch_class = a.torch_class if a.torch_class == b.torch_class else None
        parameter = a.parameter and b.parameter  # a parameter on one path only: unknown
        normed = _joined_normed(a.normed, b.normed)
        return replace(
            a,
            origins=origins,
            parts=parts,
            carries=a.carries | b.carries,
            parameter=parameter,
            normed=normed,
            members=members,
            torch_class=torch_class,
        )
    if isinstance(a, Instance) and isinstance(b, Instance):
        return replace(a, made=None)  # one of two objects: which constructor made it is not known
    for kind in (Tensor, Seq, Obj, NNModule, Instance, Func, Class, Ref):
        if isinstance(a, kind):
            return a
        if isinstance(b, kind):
            return b
    return UNKNOWN


def _joined_normed(a: WeightNorm | None, b: WeightNorm | None) -> WeightNorm | None:
    """The weight norm of a module that may be either: either tensor; weight norm on one path
    only, applied by another call, or a tensor not known on either path: not known."""
    if a is None and b is None:
        return None
    if a is None or b is None or a.applied is not b.applied or a.weight is None or b.weight is None:
        known = a or b
        assert known is not None
        return replace(known, weight=None)
    joined = join(a.weight, b.weight)
    return replace(a, weight=joined if isinstance(joined, Tensor) else None)


def _joined_owners(a: Tensor, b: Tensor) -> frozenset[int] | None:
    """What a leaf that may be ``a`` or ``b`` may belong to: a tensor that needs no grad adds
    nothing; an owner not known makes it not known."""
    if not a.grad:
        return b.owners
    if not b.grad:
        return a.owners
    return None if a.owners is None or b.owners is None else a.owners | b.owners


def join_many(values: list[Value]) -> Value:
    """The value that may be any of ``values`` (unknown when there are none)."""
    result: Value | None = None
    for value in values:
        result = join(result, value)
    return result if result is not None else UNKNOWN


MAX_ITEMS = 16
MAX_KEYS = 64
"""A dict of constant keys keeps its items apart up to this many (a run's configuration)."""


ITERATOR = "iterator"
"""The kind of a :class:`Seq` of what an object's own iterator gives (``__iter__``/``__next__``),
one item per step of a loop: made on demand, not a collection the loop walks."""


def nth(value: Value, index: int) -> Value:
    """What the ``index``-th step of a ``for`` over ``value`` gives, as precisely as known."""
    if isinstance(value, Seq):
        if value.kind == "range":
            # The first number is certain; a loop's second run through its body stands for every
            # later one (a comprehension's second item for every later item), so its number is
            # known only where it is the range's last (``range(2)``, whose length is known).
            if index > 0 and index != value.least - 1:
                return _later_number(value)
            return number_at(value, index)
        if value.items is not None and index < len(value.items):
            return value.items[index]
        pair = value.item
        if value.numbered is not None and isinstance(pair, Seq) and pair.items is not None:
            counted = (pair.items[k] if r is None else nth(r, index) for k, r in enumerate(value.numbered))
            return Seq(pair.item, pair.kind, tuple(counted))
    return element(value)


def _later_number(numbers: Seq) -> Number:
    """A range's number after its first: at least the second, where the step is positive."""
    if numbers.counting is None or numbers.counting[1] <= 0:
        return NUMBER
    first, step = numbers.counting
    return AtLeast(first + step)


def number_at(numbers: Seq, index: int) -> Value:
    """The ``index``-th number of a range, where its first number and step are known."""
    if numbers.counting is None:
        return NUMBER
    first, step = numbers.counting
    return Const(first + index * step)


def element(value: Value) -> Value:
    """What iterating over ``value`` gives."""
    if isinstance(value, Seq):
        item = value.item
        for each in value.items or ():
            item = join(item, each)
        return item
    if isinstance(value, Tensor):
        return Tensor(value.nodes, value.grad, None, value.maybe, value.owners)
    if isinstance(value, Opaque):
        return value
    if isinstance(value, NNModule) and value.label not in KEYED_CONTAINERS:
        members = [member for _, member in value.members or ()]
        if members and all(m == members[0] for m in members):
            return members[0]  # the same module at every key
        # a ModuleList or Sequential gives its modules: part of what it holds
        return NNModule("item", value.frozen, value.origins)
    return UNKNOWN


def walked(value: Value) -> Value:
    """What a ``for``, ``zip`` or ``enumerate`` walks: a container's modules where they are known
    (:attr:`NNModule.members`), as a list of them; anything else as it is."""
    if isinstance(value, NNModule) and value.members is not None and value.label not in KEYED_CONTAINERS:
        members = tuple(member for _, member in value.members)
        return Seq(join_many(list(members)), "list", members)
    return value


KEYED_CONTAINERS = frozenset({"ModuleDict", "ParameterDict"})
"""torch.nn containers that give their keys when iterated."""
