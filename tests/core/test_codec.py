"""The one JSON form of a finding: it reads back exactly, and damage is refused."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from errknow_ls.core import Applicability, Edit, Finding, Fix, Related, Severity, Span
from errknow_ls.core.codec import CodecError, decode_finding, decode_fix, encode_finding, encode_fix

SPAN = Span.of(3, 4, 3, 19)
FIX = Fix("add retain_graph=True", Applicability.UNSAFE, (Edit(SPAN, "x, retain_graph=True"),), 1)
FINDING = Finding(
    "EK001",
    "double-backward",
    "pytorch/backward-through-freed-graph",
    Severity.WARNING,
    "second backward through 「loss」 😋",
    SPAN,
    (FIX, Fix("display", Applicability.DISPLAY_ONLY, ())),
    (Related(Span.of(1, 0, 1, 5), "first backward"),),
    "loss",
    {"why": "freed"},
)


def test_reads_back_exactly_through_json() -> None:
    text = json.dumps(encode_finding(FINDING), ensure_ascii=False)
    assert decode_finding(json.loads(text)) == FINDING
    assert decode_fix(json.loads(json.dumps(encode_fix(FIX)))) == FIX


DAMAGES: list[Callable[[dict[str, Any]], object]] = [
    lambda d: d.update(severity="fatal"),
    lambda d: d.update(span=[1, 2, 3]),
    lambda d: d.update(span=[1, 2, 3, -1]),
    lambda d: d["fixes"][0].update(workaround="1"),
    lambda d: d["fixes"][0].update(applicability="maybe"),
    lambda d: d["fixes"][0]["edits"][0].pop("content"),
    lambda d: d["related"][0].update(extra=1),
    lambda d: d.pop("tensor"),
    lambda d: d.update(extra={"a": 1}),
]


@pytest.mark.parametrize("damage", DAMAGES)
def test_damage_is_refused(damage: Callable[[dict[str, Any]], object]) -> None:
    data = encode_finding(FINDING)
    damage(data)
    with pytest.raises(CodecError):
        decode_finding(data)
