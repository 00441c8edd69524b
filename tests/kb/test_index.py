"""Matching messages against the loaded records, and surviving a record whose regex never ends."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from errknow_ls.kb import KnowledgeBase
from tests.support import GOOD_FILE, GOOD_ID, KB_FIXTURES, SHIPPED_ID, copy_into

# The wordings torch has printed for a second backward through a freed graph, verbatim.
WORDINGS = {
    "torch>=1.9": (
        "RuntimeError: Trying to backward through the graph a second time (or directly access saved "
        "tensors after they have already been freed). Saved intermediate values of the graph are freed "
        "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward "
        "through the graph a second time or if you need to access saved tensors after calling backward."
    ),
    "torch-1.x": (
        "RuntimeError: Trying to backward through the graph a second time, but the saved intermediate "
        "results have already been freed. Specify retain_graph=True when calling backward the first time."
    ),
    "torch-1.x-autograd.grad": (
        "RuntimeError: Trying to backward through the graph a second time, but the saved intermediate "
        "results have already been freed. Specify retain_graph=True when calling .backward() or "
        "autograd.grad() the first time."
    ),
    "torch-0.x": (
        "RuntimeError: Trying to backward through the graph a second time, but the buffers have already "
        "been freed. Specify retain_graph=True when calling backward the first time."
    ),
}

# Other errors, each matched by its own record and never by the second-backward one.
OTHER_ERRORS = {
    "inplace": (
        "RuntimeError: one of the variables needed for gradient computation has been modified by an "
        "inplace operation: [torch.FloatTensor [3]], which is output 0 of ExpBackward0, is at version 1; "
        "expected version 0 instead. Hint: enable anomaly detection to find the operation that failed to "
        "compute its gradient, with torch.autograd.set_detect_anomaly(True)."
    ),
    "shape-mismatch": "RuntimeError: mat1 and mat2 shapes cannot be multiplied (4x3 and 4x5)",
    "no-grad-fn": "RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn",
}

CATASTROPHIC = KB_FIXTURES / "broken" / "regex-catastrophic.json"
CATASTROPHIC_ID = "test/regex-catastrophic"
# `(a|aa)+$` backtracks through every split of the a's before failing on the b.
CATASTROPHIC_TEXT = "a" * 40 + "b"


@pytest.fixture(scope="module")
def builtin_kb() -> KnowledgeBase:
    return KnowledgeBase.load()


def _ids(kb: KnowledgeBase, text: str) -> list[str]:
    return [match.record.id for match in kb.match(text)]


@pytest.mark.parametrize("message", WORDINGS.values(), ids=WORDINGS.keys())
def test_every_torch_wording_matches_the_shipped_record(builtin_kb: KnowledgeBase, message: str) -> None:
    [match] = builtin_kb.match(message)
    assert match.record.id == SHIPPED_ID
    assert message[match.start : match.end].startswith("Trying to backward through the graph a second time")


def test_a_wording_inside_a_log_line_matches(builtin_kb: KnowledgeBase) -> None:
    line = f"[rank0]: {WORDINGS['torch>=1.9']}"
    [match] = builtin_kb.match(line)
    assert match.start == len("[rank0]: RuntimeError: ")


OTHER_RECORDS = {
    "inplace": "pytorch/inplace-modified-needed-for-grad",
    "shape-mismatch": "pytorch/mat1-mat2-shapes",
    "no-grad-fn": "pytorch/tensor-does-not-require-grad",
}


@pytest.mark.parametrize("name", OTHER_ERRORS)
def test_other_errors_match_only_their_own_record(builtin_kb: KnowledgeBase, name: str) -> None:
    assert _ids(builtin_kb, OTHER_ERRORS[name]) == [OTHER_RECORDS[name]]


def _second_backward(torch: Any, how: str) -> None:
    """A backward that reaches nodes an earlier backward freed, in each way the record's root cause
    names (the loop and carried-state cases are the reproduction's variants)."""
    weight = torch.ones(3, requires_grad=True)
    shared = torch.tanh(weight * 2)  # tanh saves its output for the gradient
    loss = shared.exp().sum()
    loss.backward()
    if how == "backward twice":
        loss.backward()
    elif how == "autograd.grad after backward":
        torch.autograd.grad(loss, weight)
    elif how == "a second loss on the shared part":
        shared.pow(2).sum().backward()


@pytest.mark.torch
@pytest.mark.parametrize(
    "how", ["backward twice", "autograd.grad after backward", "a second loss on the shared part"]
)
def test_the_message_torch_prints_today_matches(builtin_kb: KnowledgeBase, how: str) -> None:
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError) as raised:
        _second_backward(torch, how)
    record = builtin_kb.get(SHIPPED_ID)
    assert record is not None and f"RuntimeError: {raised.value}" == record.signature
    assert _ids(builtin_kb, f"RuntimeError: {raised.value}") == [SHIPPED_ID]


@pytest.fixture
def catastrophic_kb(tmp_path: Path) -> KnowledgeBase:
    return KnowledgeBase.load([copy_into(tmp_path / "user", GOOD_FILE, CATASTROPHIC)])


def test_a_catastrophic_regex_still_loads(catastrophic_kb: KnowledgeBase) -> None:
    assert CATASTROPHIC_ID in catastrophic_kb
    assert (catastrophic_kb.problems, catastrophic_kb.disabled) == ([], {})
    assert _ids(catastrophic_kb, "aaaa") == [CATASTROPHIC_ID]


def test_a_catastrophic_regex_times_out_and_disables_its_record(catastrophic_kb: KnowledgeBase) -> None:
    # Unbounded, this search runs for many seconds; the 50 ms timeout ends it and disables the record.
    assert catastrophic_kb.match(CATASTROPHIC_TEXT) == []
    path = catastrophic_kb.path_of(CATASTROPHIC_ID)
    assert [str(p) for p in catastrophic_kb.problems] == [f"{path}: regex: regex timed out; record disabled"]
    assert list(catastrophic_kb.disabled) == [CATASTROPHIC_ID]
    # Disabled for good: it no longer matches even the text it was written for.
    assert _ids(catastrophic_kb, "aaaa") == []


def test_other_records_match_after_one_is_disabled(catastrophic_kb: KnowledgeBase) -> None:
    catastrophic_kb.match(CATASTROPHIC_TEXT)
    good = "RuntimeError: the widget exploded while loading"
    assert _ids(catastrophic_kb, good) == [GOOD_ID]
    assert _ids(catastrophic_kb, WORDINGS["torch>=1.9"]) == [SHIPPED_ID]
    assert len(catastrophic_kb.problems) == 1
