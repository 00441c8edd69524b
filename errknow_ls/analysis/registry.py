"""Every rule's code, name, record and default severity, in one place (tests guard it)."""

from __future__ import annotations

from dataclasses import dataclass

from errknow_ls.core import Severity

SECOND_BACKWARD_RECORD = "pytorch/backward-through-freed-graph"


@dataclass(frozen=True, slots=True)
class RuleInfo:
    """A rule's identity: what every table of rules (the checker's priorities, ``--statistics``,
    SARIF, ``errknow-ls rule``, the README's table, the tests) derives from."""

    code: str
    name: str
    record_id: str
    severity: Severity
    summary: str
    """One line: what the rule reports."""
    finds: str
    """What it finds, with the shapes it covers (Markdown): the README's rule table."""
    raises: bool
    """What it reports raises at run time (the labelled programs' runs check it); else a warning
    about code that runs."""
    priority: int
    """Where the analysis sees one call several ways, the finding of the lowest priority is kept:
    a graph carried across iterations explains a second pass better than the same tensor does."""


RULES: tuple[RuleInfo, ...] = (
    RuleInfo(
        "EK001",
        "double-backward",
        SECOND_BACKWARD_RECORD,
        Severity.ERROR,
        "the same tensor is backwarded twice",
        "the same tensor backwarded twice (also `autograd.grad` then `backward`, wrappers such as"
        " `scaler.scale(loss).backward()`, `accelerator.backward(loss)`, `self.manual_backward(loss)`)",
        raises=True,
        priority=1,
    ),
    RuleInfo(
        "EK002",
        "pre-loop-graph-backward",
        SECOND_BACKWARD_RECORD,
        Severity.ERROR,
        "a graph built once, before the loop, is backwarded on every iteration",
        "a graph built once before a loop (the loss, an intermediate, a parameter transform in"
        " `__init__`) backwarded every iteration",
        raises=True,
        priority=2,
    ),
    RuleInfo(
        "EK003",
        "carried-graph-backward",
        SECOND_BACKWARD_RECORD,
        Severity.ERROR,
        "a graph carried over from an earlier iteration is backwarded again",
        "a graph carried across iterations or steps: RNN state without `.detach()`, running totals,"
        " cached losses, state kept on `self`",
        raises=True,
        priority=0,
    ),
    RuleInfo(
        "EK004",
        "shared-graph-backward",
        SECOND_BACKWARD_RECORD,
        Severity.ERROR,
        "two losses that share a subgraph are backwarded one after the other",
        "two losses sharing a subgraph backwarded one after the other (multi-task, actor-critic, a"
        " GAN without `fake.detach()`)",
        raises=True,
        priority=3,
    ),
    RuleInfo(
        "EK006",
        "saved-tensor-after-free",
        SECOND_BACKWARD_RECORD,
        Severity.ERROR,
        "a node's saved tensors are read after a backward freed them",
        "a read of what a graph node saved (`t.grad_fn._saved_self`, `saved_tensors`) after a backward"
        " without `retain_graph=True` freed it",
        raises=True,
        priority=4,
    ),
    RuleInfo(
        "EK005",
        "retain-graph-in-loop",
        SECOND_BACKWARD_RECORD,
        Severity.WARNING,
        "retain_graph=True on every iteration while the graph is rebuilt every iteration",
        "the record's dead end: `retain_graph=True` every iteration while the graph is rebuilt every"
        " iteration",
        raises=False,
        priority=5,
    ),
)
"""The rules, by code."""

BY_CODE = {rule.code: rule for rule in RULES}
BY_NAME = {rule.name: rule for rule in RULES}


def rule(code: str) -> RuleInfo:
    return BY_CODE[code]


def resolve(selector: str) -> list[RuleInfo]:
    """Rules a ``--select``/``--ignore`` entry names: a code, a prefix (``EK``, ``EK00``) or a name."""
    selector = selector.strip()
    if selector in BY_NAME:
        return [BY_NAME[selector]]
    upper = selector.upper()
    if upper == "ALL":
        return list(RULES)
    return [r for r in RULES if r.code.startswith(upper)]


def markdown_table() -> str:
    """The README's table of rules."""
    rows = ["| code | name | finds |", "| --- | --- | --- |"]
    for info in RULES:
        level = "" if info.severity is Severity.ERROR else f" ({info.severity.value})"
        rows.append(f"| {info.code} | `{info.name}`{level} | {info.finds} |")
    return "\n".join(rows) + "\n"
