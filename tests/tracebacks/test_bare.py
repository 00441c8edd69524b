"""Messages quoted without a traceback (tracebacks.bare_messages): where each starts and ends, what
it is called, and what is left alone."""

from __future__ import annotations

import pytest

from errknow_ls.kb import KnowledgeBase
from errknow_ls.tracebacks import bare_messages, match_tracebacks
from tests.support import INPLACE_ID, SHIPPED_ID


@pytest.fixture(scope="module")
def kb() -> KnowledgeBase:
    return KnowledgeBase.load()


def test_two_messages_in_one_block_are_read_apart(kb: KnowledgeBase) -> None:
    text = (
        "RuntimeError: shape mismatch: value tensor of shape [5] cannot be broadcast to indexing result"
        " of shape [8]\n"
        "terminate called after throwing an instance of 'std::runtime_error'\n"
        "ValueError: dataset attribute should not be set after DataLoader is initialized\n"
    )
    found = bare_messages(kb, text)
    assert [(tb.exception, tb.start_line, tb.end_line, tb.bare, tb.frames) for tb in found] == [
        ("RuntimeError", 0, 1, True, ()),
        ("ValueError", 2, 2, True, ()),
    ]
    assert found[0].message.endswith("instance of 'std::runtime_error'")
    records = [m.record.id if m.record else None for m in match_tracebacks(kb, found)]
    assert records == ["pytorch/index-put-shape-mismatch", "pytorch/dataloader-attribute-after-init"]


def test_a_message_without_a_class_starts_where_its_record_is_found(kb: KnowledgeBase) -> None:
    text = "epoch 3\nstep 10 loss 0.4\n\nthen I got:\nTrying to backward through the graph a second time\n"
    (found,) = bare_messages(kb, text, first_line=100)
    assert (found.exception, found.message_line, found.message) == (
        "",
        104,
        "Trying to backward through the graph a second time",
    )
    assert [m.record.id for m in match_tracebacks(kb, [found]) if m.record] == [SHIPPED_ID]


def test_prefixes_and_colour_codes_are_cleaned_and_the_rank_kept(kb: KnowledgeBase) -> None:
    text = (
        "[rank1]: \x1b[31mRuntimeError: one of the variables needed for gradient computation has been"
        " modified by an inplace operation\x1b[0m\n"
    )
    (found,) = bare_messages(kb, text)
    assert (found.exception, found.stream) == ("RuntimeError", "rank1")
    assert [m.record.id for m in match_tracebacks(kb, [found]) if m.record] == [INPLACE_ID]


@pytest.mark.parametrize(
    "text",
    [
        "epoch 1 loss 0.3\nepoch 2 loss 0.2\n",
        "ERROR: could not reach the server\n",  # a logger's level, not an exception class
        "",
    ],
)
def test_text_without_an_error_gives_nothing(kb: KnowledgeBase, text: str) -> None:
    assert bare_messages(kb, text) == []
