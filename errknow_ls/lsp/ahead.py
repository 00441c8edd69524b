"""Which document a large text notification is about, read from its ends, without decoding it.

Decoding the body of a 31 MB ``didOpen`` is one C call that holds the interpreter's lock (43 to 55
ms on a quiet machine, 140 to 340 ms at a load of 7 on 2 cores), and a hover on another document
sent right behind it waited for it. The transport answers such a request first (``ErrknowProtocol
.answer_ahead``); for that it must know, before decoding, that the notification is a ``didOpen`` or
``didChange`` and of which document. The text is the one large value, and clients write its key
among the first (VS Code and Neovim put the method first, pygls last, all put the URI before the
text): the keys up to the first ``"text"`` are walked with the JSON decoder, value by value; the
text's closing quote is then looked for among the last bytes, and the body without the text (its
head, ``""``, its tail) is decoded whole and must be such a notification. A body laid out otherwise
gives None, and is handled in turn.
"""

from __future__ import annotations

import json
import re
from typing import Any

from lsprotocol import types

HEAD_BYTES = 4096
"""What is read of each end of a body: the keys before the text, and those after it."""
TRIED_QUOTES = 16
"""Quotes among the last bytes tried as the text's closing one."""
SYNC_METHODS = frozenset({types.TEXT_DOCUMENT_DID_OPEN, types.TEXT_DOCUMENT_DID_CHANGE})
_SPACE = re.compile(r"[ \t\n\r]*")
_QUOTE = re.compile(rb'(?<!\\)(?:\\\\)*"')
"""A quote that ends a JSON string (after an even number of backslashes, none escaping it)."""
_DECODER = json.JSONDecoder()


class _Unexpected(Exception):
    """The head is not laid out as a text notification with the text's key among its first."""


class _Text(Exception):
    """The walk reached the key ``"text"``; ``args[0]``: where its string value opens."""


def synced_document(body: bytes | bytearray) -> str | None:
    """The URI of the document a ``didOpen`` or ``didChange`` notification ``body`` is about; None
    when its ends do not show it (see the module's docstring)."""
    head = bytes(body[:HEAD_BYTES]).decode("utf-8", "ignore")
    try:
        _value(head, _skip(head, 0), 0)
    except _Text as found:
        opens = len(head[: found.args[0]].encode("utf-8"))
    except (_Unexpected, ValueError, IndexError, RecursionError):
        return None
    else:
        return None  # no text in the head
    tail_start = max(opens + 1, len(body) - HEAD_BYTES)
    while tail_start > opens + 1 and body[tail_start - 1] == ord("\\"):
        tail_start -= 1  # a run of backslashes is read whole: what it escapes depends on its length
    tail = bytes(body[tail_start:])
    for quote in list(_QUOTE.finditer(tail))[:TRIED_QUOTES]:
        closes = tail_start + quote.end()
        try:
            message = json.loads(bytes(body[:opens]) + b'""' + bytes(body[closes:]))
        except (ValueError, RecursionError):
            continue
        return _uri_of(message)
    return None


def _uri_of(message: Any) -> str | None:
    """The document of a ``didOpen`` or ``didChange`` notification whose text is ``""``."""
    if not isinstance(message, dict) or "id" in message or message.get("method") not in SYNC_METHODS:
        return None
    params = message.get("params")
    if not isinstance(params, dict) or not isinstance(document := params.get("textDocument"), dict):
        return None
    uri = document.get("uri")
    changes = params.get("contentChanges")
    if isinstance(changes, list):
        texts = [change.get("text") for change in changes if isinstance(change, dict)]
    else:
        texts = [document.get("text")]
    return uri if isinstance(uri, str) and "" in texts else None


def _skip(head: str, at: int) -> int:
    match = _SPACE.match(head, at)
    assert match is not None  # the pattern matches the empty string
    return match.end()


def _value(head: str, at: int, depth: int) -> int:
    """Walk the value at ``at``; where it ends. _Text at a key ``"text"`` whose value is a string."""
    if depth > 6:
        raise _Unexpected
    opening = head[at]
    if opening not in "{[":
        _, end = _DECODER.raw_decode(head, at)
        return int(end)
    closing = "}" if opening == "{" else "]"
    at = _skip(head, at + 1)
    while head[at] != closing:
        if opening == "{":
            key, at = _DECODER.raw_decode(head, at)
            at = _skip(head, at)
            if not isinstance(key, str) or head[at] != ":":
                raise _Unexpected
            at = _skip(head, at + 1)
            if key == "text" and head[at] == '"':
                raise _Text(at)
        at = _skip(head, _value(head, at, depth + 1))
        if head[at] == ",":
            at = _skip(head, at + 1)
        elif head[at] != closing:
            raise _Unexpected
    return at + 1
