"""The results cache's key for a text: the hash of its UTF-8 bytes, computed a piece at a time (a
31 MB text encoded at once held the interpreter's lock in one call)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from errknow_ls.project import results_cache
from errknow_ls.project.results_cache import content_digest, text_digest


@given(text=st.text(st.characters(exclude_categories=["Cs"]), max_size=40), piece=st.integers(1, 7))
def test_a_text_is_keyed_as_its_utf8_bytes_whatever_the_pieces(text: str, piece: int) -> None:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(results_cache, "DIGEST_PIECE_CHARS", piece)
        assert text_digest(text) == content_digest(text.encode("utf-8"))


def test_a_text_larger_than_a_piece_is_keyed_as_its_bytes() -> None:
    text = "loss.backward()  # é中文😋\n" * (results_cache.DIGEST_PIECE_CHARS // 10)
    assert text_digest(text) == content_digest(text.encode("utf-8"))


def test_a_lone_surrogate_has_no_key() -> None:
    with pytest.raises(UnicodeEncodeError):
        text_digest("x = 1  # \ud83d\n")
