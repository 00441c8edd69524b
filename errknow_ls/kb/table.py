"""The records as a Markdown table for the README: id, message, verification tier, where rates come from."""

from __future__ import annotations

from collections.abc import Iterable

from errknow_ls.kb.model import Record

MESSAGE_CHARS = 72
MEASURED_PREFIX = "measured:"
"""A ``sources`` entry that starts so names the project's own measurement (tests/kb/run_repros.py)."""

HEADER = (
    "| record | message (torch 2.13) | tier | rates measured / cited / left out |\n| --- | --- | --- | --- |"
)


def short_message(signature: str, limit: int = MESSAGE_CHARS) -> str:
    """The signature on one line, without the exception class, cut at ``limit`` characters."""
    text = " ".join(signature.split())
    _, colon, rest = text.partition(": ")
    text = rest if colon and " " not in text.split(": ", 1)[0] else text
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def rate_origins(record: Record) -> tuple[int, int, int]:
    """How many workaround / dead-end rates are measured, cited, and left out (None)."""
    measured = cited = left_out = 0
    items = [(w.success_rate, w.sources) for w in record.workarounds]
    items += [(d.fail_rate, d.sources) for d in record.dead_ends]
    for rate, sources in items:
        if rate is None:
            left_out += 1
        elif any(source.startswith(MEASURED_PREFIX) for source in sources):
            measured += 1
        else:
            cited += 1
    return measured, cited, left_out


def markdown_table(records: Iterable[Record]) -> str:
    rows = [HEADER]
    for record in sorted(records, key=lambda r: r.id):
        message = short_message(record.signature).replace("|", "\\|").replace("`", "'")
        measured, cited, left_out = rate_origins(record)
        origins = f"{measured} / {cited} / {left_out}"
        rows.append(f"| `{record.id}` | `{message}` | {record.verification_tier} | {origins} |")
    return "\n".join(rows) + "\n"
