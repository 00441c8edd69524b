"""The one JSON form of a :class:`Finding` and its fixes: the cache stores it, ``check --format
json`` prints it, and ``Diagnostic.data`` carries a finding's fixes in it.

Spans are written by a :data:`SpanWriter`: by default ``"span": [line, character, end_line,
end_character]`` (0-based, code points), which is also the only form read back; the CLI writes
ruff's 1-based ``location`` / ``end_location`` instead. Reading is strict: every key present, none
unknown, every type exact, or :class:`CodecError`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from errknow_ls.core.findings import Applicability, Edit, Finding, Fix, Related, Severity
from errknow_ls.core.positions import Position, Span

_E = TypeVar("_E", Severity, Applicability)
SpanWriter = Callable[[Span], dict[str, Any]]
"""The keys a span becomes inside the object that holds it."""


class CodecError(ValueError):
    """Data that is not what this module writes."""


def span_list(span: Span) -> dict[str, Any]:
    return {"span": [span.start.line, span.start.character, span.end.line, span.end.character]}


def encode_finding(finding: Finding, spans: SpanWriter = span_list) -> dict[str, Any]:
    return {
        "code": finding.code,
        "name": finding.name,
        "record": finding.record_id,
        "severity": finding.severity.value,
        "message": finding.message,
        **spans(finding.span),
        "fixes": [encode_fix(fix, spans) for fix in finding.fixes],
        "related": [{"message": r.message, **spans(r.span), "path": r.path} for r in finding.related],
        "tensor": finding.tensor,
        "extra": dict(finding.extra),
    }


def encode_fix(fix: Fix, spans: SpanWriter = span_list) -> dict[str, Any]:
    return {
        "title": fix.title,
        "applicability": fix.applicability.value,
        "edits": [{"content": edit.content, **spans(edit.span)} for edit in fix.edits],
        "workaround": fix.workaround,
    }


_FINDING_KEYS = frozenset(encode_finding(Finding("", "", "", Severity.ERROR, "", Span.of(0, 0, 0, 0))))
_FIX_KEYS = frozenset(encode_fix(Fix("", Applicability.SAFE, ())))


def decode_finding(value: object) -> Finding:
    data = _dict(value, _FINDING_KEYS)
    tensor = data["tensor"]
    return Finding(
        code=_str(data["code"]),
        name=_str(data["name"]),
        record_id=_str(data["record"]),
        severity=_enum(Severity, data["severity"]),
        message=_str(data["message"]),
        span=_span(data["span"]),
        fixes=tuple(decode_fix(item) for item in _list(data["fixes"])),
        related=tuple(_related(item) for item in _list(data["related"])),
        tensor=None if tensor is None else _str(tensor),
        extra={_str(key): _str(text) for key, text in _dict(data["extra"]).items()},
    )


def decode_fix(value: object) -> Fix:
    data = _dict(value, _FIX_KEYS)
    workaround = data["workaround"]
    return Fix(
        _str(data["title"]),
        _enum(Applicability, data["applicability"]),
        tuple(_edit(item) for item in _list(data["edits"])),
        None if workaround is None else _int(workaround),
    )


def _edit(value: object) -> Edit:
    data = _dict(value, frozenset(("content", "span")))
    return Edit(_span(data["span"]), _str(data["content"]))


def _related(value: object) -> Related:
    data = _dict(value, frozenset(("message", "span", "path")))
    path = data["path"]
    return Related(_span(data["span"]), _str(data["message"]), None if path is None else _str(path))


def _span(value: object) -> Span:
    numbers = _list(value)
    if len(numbers) != 4:
        raise CodecError(f"a span is 4 numbers, got {value!r}")
    line, character, end_line, end_character = (_int(n) for n in numbers)
    return Span(Position(line, character), Position(end_line, end_character))


def _enum(kind: type[_E], value: object) -> _E:
    try:
        return kind(_str(value))
    except ValueError:
        raise CodecError(f"not a {kind.__name__}: {value!r}") from None


def _list(value: object) -> list[object]:
    if type(value) is not list:
        raise CodecError(f"expected a list, got {value!r}")
    return value


def _dict(value: object, keys: frozenset[str] | None = None) -> dict[str, object]:
    if type(value) is not dict or (keys is not None and set(value) != keys):
        raise CodecError(f"expected an object with keys {sorted(keys or ())}, got {value!r}")
    return value


def _str(value: object) -> str:
    if type(value) is not str:
        raise CodecError(f"expected a string, got {value!r}")
    return value


def _int(value: object) -> int:
    if type(value) is not int or value < 0:
        raise CodecError(f"expected a count, got {value!r}")
    return value
