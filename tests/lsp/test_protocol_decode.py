"""``protocol.decode`` gives what ``json.loads`` gives, for every body: msgspec decodes, and what it
refuses goes to ``json.loads``, which decides (``tests/reliability/test_protocol_fuzz.py`` sends
such bodies to the real server)."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from errknow_ls.lsp.protocol import decode

JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**80), max_value=2**80)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),  # lone surrogates among them
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)


def _outcome(load: Any, body: bytes) -> tuple[str, str]:
    try:
        value = load(body)
    except (ValueError, RecursionError) as exc:
        return "refused", "RecursionError" if isinstance(exc, RecursionError) else "ValueError"
    return "taken", json.dumps(value)


@given(value=JSON_VALUES, ensure_ascii=st.booleans())
def test_any_json_value_decodes_as_json_loads_decodes_it(value: Any, ensure_ascii: bool) -> None:
    body = json.dumps(value, ensure_ascii=ensure_ascii).encode("utf-8", "surrogatepass")
    assert _outcome(decode, body) == _outcome(json.loads, body)


@pytest.mark.parametrize(
    "body",
    [
        b'{"text": "half an emoji \\ud83d, and its other half alone \\ude00"}',  # lone surrogates
        b'{"id": 123456789012345678901234567890}',  # past 64 bits: an int still, not a float
        b'{"n": NaN, "m": -Infinity, "big": 1e400}',  # not JSON, but json.loads takes them
        b'\xef\xbb\xbf{"with": "a byte order mark"}',
        '{"in": "UTF-16"}'.encode("utf-16"),
        b'{"a": 1, "a": 2}',
        b'"a raw\nline break"',  # refused by both
        b'{"a": 1,}',
        b'{"a": "\xff"}',  # invalid UTF-8
        b"[" * 100_000 + b"]" * 100_000,  # nested past the interpreter's recursion limit
        b"",
    ],
)
def test_what_msgspec_refuses_is_decided_by_json_loads(body: bytes) -> None:
    assert _outcome(decode, body) == _outcome(json.loads, body)


def test_a_memoryview_or_a_bytearray_is_decoded_in_place() -> None:
    body = bytearray(b'{"jsonrpc": "2.0", "method": "initialized", "params": {}}')
    assert decode(body) == decode(memoryview(body)) == json.loads(body)
    assert math.isnan(decode(b"NaN"))
