"""Which parameters each optimizer owns, and what else sees gradients: what decides whether cutting
a graph somewhere changes what trains.

An *origin* is the identity of a set of parameters, as the interpreter made it: the constructor
call of a ``torch.nn`` module (``nn.Linear(4, 4)``) or of a parameter (``nn.Parameter(...)``, a
tensor made with ``requires_grad=True``), each under the chain of calls that ran it (``mlp()``
called twice makes two origins), or an object of one of the checked code's own ``nn.Module``
classes. A module built from others (``nn.Sequential(a, b)``) holds their origins too, and a
module whose attribute is set to another's part (tied weights) is linked to it. Never a name: two
modules spelled alike are apart, and one module reached by two names is one.

What the interpreter records here, over every entry point it ran:

- each optimizer construction, with the origins it was handed (``Adam(net.parameters())``, a list
  of them, param-group dicts, ``itertools.chain`` of them), or not known;
- each place something sees a gradient other than an optimizer: a ``.grad`` read, a hook
  registered on a tensor or for a module's backward, ``autograd.grad`` taken with respect to a
  tensor, and whatever code the checker does not follow was handed (a module, a parameter, a
  tensor): it may read gradients, register hooks or build an optimizer of its own.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from errknow_ls.analysis.values import (
    Const,
    GraphNode,
    Kwargs,
    NNModule,
    Number,
    Obj,
    Seq,
    Tensor,
    Value,
)

Origins = frozenset[int] | None
"""Origins, or None where they are not known."""

BACKWARD, STEP, CLEAR = "backward", "step", "clear"
"""What :attr:`Ownership.timeline` records."""

LASTING = sys.maxsize
"""The ``made`` of a gradient use that lasts: a hook, code that keeps what it was handed."""


@dataclass(frozen=True, slots=True)
class GradientUse:
    """Something other than an optimizer that sees gradients: of the graph nodes ``roots`` (a
    non-leaf tensor's own node), and of the parameters of ``origins`` (None: not known)."""

    roots: frozenset[int]
    origins: Origins
    how: str
    made: int
    """How many graph nodes had been made when it ran: what it saw of a graph made later is the
    same whether that graph is cut or not (LASTING: it sees every later gradient too, a hook)."""
    through: frozenset[int] | None = None
    """The graph it takes gradients over (``autograd.grad``'s outputs); None: any backward's."""


@dataclass(slots=True)
class Ownership:
    """What the interpreter learned about parameters, optimizers and gradient uses."""

    optimizers: list[Origins] = field(default_factory=list)
    """The origins each optimizer construction was handed (None: not all of them known)."""
    constructed: dict[ast.AST, Origins] = field(default_factory=dict)
    """The same, by the constructor call (every run of it: what any of them was handed)."""
    uses: list[GradientUse] = field(default_factory=list)
    several: set[int] = field(default_factory=set)
    """Origins whose constructor call ran more than once under the same calls (``[mlp(w) for w in
    widths]``): each stands for several modules, which parameters of them a graph reads is not
    known."""
    links: list[frozenset[int]] = field(default_factory=list)
    """Origins that share parameters (a module whose attribute was set to another's weight)."""
    steps: dict[ast.AST, Origins] = field(default_factory=dict)
    """Each call or statement that changed parameters in place (an optimizer's ``step()``, a
    hand-written update), with the origins it changed on any run (None: not known)."""
    stepped: list[tuple[int, Origins]] = field(default_factory=list)
    """The same, in the order they ran: the interpreter's tick when each ran, and what it changed."""
    timeline: list[tuple[str, ast.AST, Origins]] = field(default_factory=list)
    """Every backward run (``BACKWARD``), change of parameters in place (``STEP``, with what it
    changed) and optimizer's ``zero_grad()`` (``CLEAR``, with what that optimizer owns), in the
    order they ran: whether a gradient a backward sends is ever stepped (:meth:`stepped_uncleared`)."""
    parameterless: set[int] = field(default_factory=set)
    """Origins of torch modules that hold no parameter (``nn.MSELoss()``, ``nn.ReLU()``: a class
    of ``torch_api.PARAMETERLESS_MODULES`` built from no other module); a graph that runs one reads
    no parameter through it."""

    def construct(self, call: ast.AST, origins: Origins) -> None:
        """An optimizer built at ``call`` was handed ``origins``."""
        self.optimizers.append(origins)
        self.constructed[call] = _union(self.constructed.get(call, frozenset()), origins)

    def add_group(self, call: ast.AST | None, origins: Origins) -> None:
        """The optimizer built at ``call`` (None: not known) was handed ``origins`` too."""
        self.optimizers.append(origins)
        if call in self.constructed:
            self.constructed[call] = _union(self.constructed[call], origins)

    def owned(self, call: ast.AST | None) -> Origins:
        """What the optimizer built at ``call`` owns, on every run of it (None: not known)."""
        return self.constructed.get(call) if call is not None else None

    def step(self, site: ast.AST, tick: int, origins: Origins) -> None:
        """``site`` changed the parameters of ``origins`` in place at ``tick``."""
        self.stepped.append((tick, origins))
        self.steps[site] = _union(self.steps.get(site, frozenset()), origins)
        self.timeline.append((STEP, site, origins))

    def stepped_uncleared(
        self, backward: ast.AST, origins: frozenset[int], cleared_before: Callable[[ast.AST, ast.AST], bool]
    ) -> bool:
        """Whether, after some run of the backward at ``backward``, the first step that changes a
        parameter of ``origins`` (or a step whose changes are not known) is not preceded, since that
        run, by an optimizer's ``zero_grad()`` that cleared it and that runs wherever that step runs
        (``cleared_before(clear, step)``): what that backward sends there may be stepped. Also
        True where the backward ran fewer than twice (what follows its runs is not shown for a
        loop's later iterations)."""
        runs = [i for i, (what, site, _) in enumerate(self.timeline) if what == BACKWARD and site is backward]
        if len(runs) < 2:
            return True
        for index in runs:
            pending = set(origins)
            cleared: dict[int, ast.AST] = {}
            for later, site, changed in self.timeline[index + 1 :]:
                if not pending:
                    break
                if later == CLEAR and changed is not None:
                    cleared.update((origin, site) for origin in changed & pending)
                elif later == STEP and changed is None:
                    return True
                elif later == STEP and changed is not None:
                    for origin in changed & pending:
                        if origin not in cleared or not cleared_before(cleared[origin], site):
                            return True
                    pending -= changed
        return False

    def stepped_since(self, tick: int) -> Origins:
        """The origins the steps run at or after ``tick`` changed (None: one of them is not known)."""
        found: set[int] = set()
        for when, origins in reversed(self.stepped):
            if when < tick:
                break
            if origins is None:
                return None
            found |= origins
        return frozenset(found)

    def linked(self, origins: frozenset[int]) -> frozenset[int]:
        """``origins`` and every origin linked to them, to a fixpoint."""
        found = set(origins)
        changed = True
        while changed:
            changed = False
            for group in self.links:
                if group & found and not group <= found:
                    found |= group
                    changed = True
        return frozenset(found)


def _union(known: Origins, more: Origins) -> Origins:
    return None if known is None or more is None else known | more


def upstream_origins(nodes: list[GraphNode], upstream: Iterable[int]) -> Origins:
    """The origins whose parameters the graph ``upstream`` reads (None: one is not known)."""
    found: set[int] = set()
    for node_id in upstream:
        if node_id < 0 or node_id >= len(nodes):
            return None  # what unknown code gave back: its graph is not seen
        node = nodes[node_id]
        if not node.learns:
            continue
        if node.origins is None:
            return None
        found |= node.origins
    return frozenset(found)


def cut_keeps_training(
    nodes: list[GraphNode], upstream: frozenset[int], kept: frozenset[int], ownership: Ownership
) -> bool:
    """Whether cutting every path from later backwards into the graph ``upstream`` (detaching
    the values built from it) changes nothing that trains: no optimizer owns a parameter the graph
    reads, and nothing else sees a gradient there (a ``.grad`` read, a hook, an ``autograd.grad``
    with respect to a tensor of it, code the checker does not follow). ``kept``: the nodes of the
    values detached into leaves that still require grad (their own gradients are the same)."""
    origins = upstream_origins(nodes, upstream)
    if origins is None:
        return False
    origins = ownership.linked(origins)
    if any(owned is None or owned & origins for owned in ownership.optimizers):
        return False
    return gradient_unseen(nodes, upstream, kept, ownership)


def cut_keeps_owned(
    nodes: list[GraphNode], reached: frozenset[int], cut: frozenset[int], ownership: Ownership
) -> bool:
    """Whether a backward that reaches ``reached`` still reaches, with the nodes ``cut`` cut out,
    every parameter an optimizer owns that it reached before (a policy behind a rollout's
    log-probabilities, reached again through the loop's own forward pass): the optimizers update
    the same tensors. Shown only where what every optimizer was handed, and the origins of what
    stays reached and of what does not, are known."""
    kept = reached_avoiding(nodes, reached, cut)
    lost = upstream_origins(nodes, reached - kept)
    still = upstream_origins(nodes, kept)
    if lost is None or still is None or any(owned is None for owned in ownership.optimizers):
        return False
    if lost & still & ownership.several:
        return False  # the module reached again may be another one its constructor call made
    if any(group & lost for group in ownership.links):
        return False  # a part it shares with another module may be owned under that one's origin
    owned = frozenset().union(*(o for o in ownership.optimizers if o is not None))
    return not (lost - still) & owned


def gradient_unseen(
    nodes: list[GraphNode], upstream: frozenset[int], kept: frozenset[int], ownership: Ownership
) -> bool:
    """Nothing but the optimizers sees a gradient in the graph ``upstream`` after it was built: no
    ``.grad`` read, hook, ``autograd.grad`` with respect to a tensor of it, or code the checker does
    not follow reaches the parameters it reads or its tensors (but those of ``kept``)."""
    origins = upstream_origins(nodes, upstream)
    if origins is None or not upstream:
        return False
    origins = ownership.linked(origins)
    built = max(upstream) + 1  # the graph is cut after it was built: what ran before saw it whole
    for use in ownership.uses:
        if use.made < built or (use.through is not None and not use.through & upstream):
            continue
        if use.origins is None or use.origins & origins or use.roots & (upstream - kept):
            return False
    return True


def origins_in(
    value: Value, closure: Callable[[Obj], Origins], *, params: bool = False, strict: bool = False
) -> Origins:
    """The origins whose parameters ``value`` holds: a module's, a parameter's, those of the items
    of a container (only the ``"params"`` of a param-group dict, where ``params``) and of an
    object's attributes (``closure``). None where a part that may hold parameters is not known;
    where ``strict`` (what ``autograd.grad`` is asked about), anything but tensors, modules,
    objects, numbers and containers of them is not known; where ``params`` (what an optimizer is
    handed), a tensor that is not a leaf is not known either."""
    strict = strict or params
    found: set[int] = set()
    pending = [value]
    while pending:
        current = pending.pop()
        if isinstance(current, Tensor):
            if current.grad and not current.nodes:
                if current.owners is None:
                    return None
                found |= current.owners
            elif params and current.grad:
                return None  # an optimizer handed a tensor that is not a leaf: torch raises
        elif isinstance(current, NNModule):
            if current.origins is None:
                return None
            found |= current.origins
        elif isinstance(current, Obj):
            held = closure(current)
            if held is None:
                return None
            found |= held
        elif isinstance(current, Seq):
            if params and current.keys is not None and current.items is not None and "params" in current.keys:
                pending.append(current.items[current.keys.index("params")])
            elif current.items is not None:
                pending.extend(current.items)
            else:
                pending.append(current.item)
        elif isinstance(current, Kwargs):
            pending.extend(current.items.values())
        elif strict and not isinstance(current, Const | Number):
            return None
    return frozenset(found)


def tensor_roots(value: Value) -> frozenset[int]:
    """The graph nodes of the tensors in ``value`` themselves (a non-leaf tensor's own node; all
    its nodes where it may be one of several)."""
    found: set[int] = set()
    pending = [value]
    while pending:
        current = pending.pop()
        if isinstance(current, Tensor):
            found |= {current.root} if current.root is not None else current.nodes
        elif isinstance(current, Seq):
            pending.extend(current.items if current.items is not None else (current.item,))
        elif isinstance(current, Kwargs):
            pending.extend(current.items.values())
    return frozenset(found)


def cut_starves_owned(
    nodes: list[GraphNode],
    reached: frozenset[int],
    cut: frozenset[int],
    ownership: Ownership,
    stepped: frozenset[int],
) -> bool:
    """Whether cutting the nodes ``cut`` (the own nodes of the values a fix detaches) out of a
    backward that reaches ``reached`` leaves that backward no path to a parameter it reached before
    and that an optimizer it trains owns: every path to the nodes that read the parameter runs
    through ``cut`` (a policy read only through the log-probabilities a replay memory stores, a
    reward model read only through advantages built before the epochs). The optimizers it trains:
    those whose origins ``stepped`` holds (the optimizers stepped after it), and each optimizer
    that owns a parameter it still reaches after the cut (an encoder trained by another loop's
    optimizer, whose latents a flow's loop reads, is not one). Shown only where the origins of
    what stays reached and of what does not are both known; False otherwise."""
    kept = reached_avoiding(nodes, reached, cut)
    lost = upstream_origins(nodes, reached - kept)
    still = upstream_origins(nodes, kept)
    if not lost or still is None:
        return False
    still = ownership.linked(still)
    trained = set(stepped)
    for owned in ownership.optimizers:
        if owned is not None and owned & still:
            trained |= owned
    return bool((lost - still) & trained)


def reached_avoiding(nodes: list[GraphNode], reached: frozenset[int], cut: frozenset[int]) -> frozenset[int]:
    """The nodes of ``reached`` a backward still reaches from its own top nodes when it may not pass
    through ``cut``: ``below`` holds every node a node leads to, so a node's own inputs are those of
    its ``below`` that no other node of its ``below`` leads to."""
    tops = reached - frozenset().union(*(nodes[n].below for n in reached))
    found: set[int] = set()
    pending = [n for n in tops if n not in cut]
    while pending:
        current = pending.pop()
        if current in found:
            continue
        found.add(current)
        under = nodes[current].below & reached
        deeper = frozenset().union(*(nodes[n].below for n in under))
        pending.extend(n for n in under - deeper if n not in cut and n not in found)
    return frozenset(found)
