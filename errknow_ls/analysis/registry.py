"""Every rule's code, name, record and default severity, in one place (tests guard it)."""

from __future__ import annotations

from dataclasses import dataclass

from errknow_ls.core import Severity

SECOND_BACKWARD_RECORD = "pytorch/grad-accumulation-required-grad-false"


@dataclass(frozen=True, slots=True)
class RuleInfo:
    code: str
    name: str
    record_id: str
    severity: Severity
    summary: str


RULES: tuple[RuleInfo, ...] = (
    RuleInfo(
        "EK001",
        "double-backward",
        SECOND_BACKWARD_RECORD,
        Severity.ERROR,
        "the same tensor is backwarded twice",
    ),
    RuleInfo(
        "EK002",
        "pre-loop-graph-backward",
        SECOND_BACKWARD_RECORD,
        Severity.ERROR,
        "a graph built once, before the loop, is backwarded on every iteration",
    ),
    RuleInfo(
        "EK003",
        "carried-graph-backward",
        SECOND_BACKWARD_RECORD,
        Severity.ERROR,
        "a graph carried over from an earlier iteration is backwarded again",
    ),
    RuleInfo(
        "EK004",
        "shared-graph-backward",
        SECOND_BACKWARD_RECORD,
        Severity.ERROR,
        "two losses that share a subgraph are backwarded one after the other",
    ),
    RuleInfo(
        "EK005",
        "retain-graph-in-loop",
        SECOND_BACKWARD_RECORD,
        Severity.WARNING,
        "retain_graph=True on every iteration while the graph is rebuilt every iteration",
    ),
)

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
