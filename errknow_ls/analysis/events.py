"""What the interpreter observes; rules turn these into findings."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from errknow_ls.analysis.state import Entry, Free, Holder, Place
from errknow_ls.analysis.values import Value


@dataclass(slots=True)
class HookRegistration:
    """A function registered with ``register_forward_hook``: the statement each frame on the call
    stack was running when it was registered (by frame serial, as ``GraphNode.stmts``), and the
    graph nodes of the module outputs its runs were handed."""

    stmts: tuple[tuple[int, ast.stmt], ...]
    handed: set[int] = field(default_factory=set)


@dataclass(frozen=True, slots=True)
class Loop:
    """One execution of a loop statement (or the repeated calls of a training-step method)."""

    key: int
    node: ast.stmt | None
    method: ast.FunctionDef | ast.AsyncFunctionDef | None = None
    """For the repeated calls of a training-step method: that method."""
    frame: int = 0
    func: ast.FunctionDef | ast.AsyncFunctionDef | None = None
    """The function whose body holds the loop (None at module level)."""


@dataclass(slots=True)
class SecondPass:
    """A backward that reaches a node whose saved tensors an earlier backward freed: what the
    interpreter saw, not what it means (each rule in ``rules/`` decides whether it is its own)."""

    site: ast.Call
    report: ast.expr
    receiver: ast.expr | None
    conflict: frozenset[int]
    free: Free
    same_tensor: bool = False
    """It backwards what the earlier backward did: the same tensor, the same expression, or a thin
    wrapper of it (``scaler.scale(loss)``)."""
    carried_over: bool = False
    """It reaches nodes made in an earlier iteration of ``loop`` (carried into this one, or freed
    inside a loop that has ended)."""
    loop: Loop | None = None
    """With ``carried_over``: the loop whose iterations carry the graph. Otherwise the loop, still
    running, in which the earlier backward freed a graph built before it (for the same tensor:
    only when the same call freed it on an earlier iteration)."""
    loop_walks_tensors: bool = False
    """``loop`` iterates over tensors: each iteration may backward another of them."""
    carried: dict[Holder, Value] = field(default_factory=dict)
    """Loop-carried names (``hidden``) and places (an object's ``self.state``) whose values bring the
    freed nodes in; inside a stateful method's calls, its places by name (``self.state``)."""
    roots: tuple[int | None, ...] = ()
    reached: frozenset[int] = frozenset()
    frame: int = 0
    """The frame whose code holds ``report``."""
    guarded: frozenset[Holder] = frozenset()
    """Carried names and places that may be None when the loop starts."""
    entry: dict[Holder, Value] = field(default_factory=dict)
    """What carried names held when the loop started (a tuple there means a tuple here); for a
    graph built before the loop, the names that held it when the loop started."""
    spelled: dict[Place, str] = field(default_factory=dict)
    """Carried places (``self.records`` of object 7) as the loop's code can spell them
    (``recorder.records``)."""
    cache_sites: dict[Place, ast.Call] = field(default_factory=dict)
    """Carried inversions a ``torch.distributions`` transform kept, each with the call that gave
    the transform its cache (``super().__init__(cache_size=1)``)."""
    module: str | None = None
    """The other module of the project the backward runs in (None: the checked text)."""
    local: ast.expr | None = None
    """Where the backward or the earlier one lies in another module of the project: the call in the
    checked text through which it was reached (None when both are in the checked text)."""
    entered: Entry | None = None
    """Where this backward lies in another module of the project: how the checked text reached it."""
    stepped_between: bool = False
    """Parameters changed between the two passes (an optimizer stepped, or a method updated them in
    place, as SAM's ``first_step`` does): the second pass needs a fresh forward pass."""
    stepped_origins: frozenset[int] | None = frozenset()
    """The origins (see ``ownership.py``) of the parameters changed between the two passes; None
    where what one of those changes changed is not known."""
    removed_hooks: tuple[HookRegistration, ...] = ()
    """The forward hooks whose handle's ``remove()`` ran on every path to this backward."""


@dataclass(slots=True)
class SavedRead:
    """A read of a node's saved tensors (``t.grad_fn._saved_self``, ``saved_tensors``) after a
    backward without ``retain_graph`` freed them."""

    site: ast.expr
    free: Free
    tensor: ast.expr


Observation = SecondPass | SavedRead
"""What the interpreter reports for the rules to claim."""


@dataclass(slots=True)
class RetainSite:
    """A ``retain_graph=True`` backward inside a loop whose graph is rebuilt every iteration."""

    site: ast.Call
    loop: Loop
    justified: bool = False
    reached_later: bool = False
    foreign: bool = False
    """The retain lies in another module of the project (that module's own check reports it)."""
    unseen: bool = False
    """A later backward, like this one, holds what unknown code gave back: they may share a graph
    the checker cannot see, so whether the retain is needed is unknown (nothing is reported)."""
