"""``explain``'s text: for each error a record knows, what happened, where in your code, why, what
not to do and what to do; the same error seen again (every rank of a torchrun job) is told once."""

from __future__ import annotations

import textwrap
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from errknow_ls.kb import Record
from errknow_ls.kb.explain import LABELS, dead_end, in_language, ranked_workarounds, rate_phrase, tier
from errknow_ls.tracebacks import Frame, Traceback, TracebackMatch

WIDTH = 100
MESSAGE_CHARS = 400
UNMATCHED_CHARS = 160

HEADINGS = {  # the CLI's own; the record's sections are headed as in hover (kb.explain.LABELS)
    "en": {
        "record": "explained by",
        "confidence": "confidence",
        "what": "What happened",
        "where": "Where in your code",
        "no_frame": "no frame of your own code in the traceback",
        "bare": "no traceback, only the message: no frames, so no source line",
        "message": "error message",
        "seen": "seen {count} times: {places}",
        "unmatched": "Errors no record explains:",
        "none_bare": "No Python traceback or error message found.",
        "summary": "{found} traceback(s)",
        "summary_bare": "{found} error message(s) without a traceback",
        "summary_end": "{found}, {explained} explained by a record.",
        "meaning": "",
    },
    "zh": {
        "record": "对应记录",
        "confidence": "置信度",
        "what": "发生了什么",
        "where": "出错的是你代码中的",
        "no_frame": "回溯中没有你自己代码的帧",
        "bare": "没有回溯，只有错误信息：没有调用帧，因此无法定位源代码行",  # noqa: RUF001
        "message": "错误信息",
        "seen": "出现 {count} 次：{places}",  # noqa: RUF001
        "unmatched": "没有记录能解释的错误：",  # noqa: RUF001
        "none_bare": "没有找到 Python 回溯或错误信息。",
        "summary": "{found} 个回溯",
        "summary_bare": "{found} 条没有回溯的错误信息",
        "summary_end": "共 {found}，其中 {explained} 个有记录解释。",  # noqa: RUF001
        "meaning": "即：",  # noqa: RUF001
    },
}


@dataclass(frozen=True, slots=True)
class SourceResult:
    """What ``explain`` found in one input (a log, a capture, a notebook, standard input)."""

    source: str
    matches: list[TracebackMatch]
    notebook: bool = False


@dataclass
class _Incident:
    """One error in one input, however many times (ranks, repeated summaries) it was printed."""

    source: str
    traceback: Traceback
    record: Record | None
    places: list[str] = field(default_factory=list)


def _place(source: str, tb: Traceback, notebook: bool) -> str:
    where = f"{source} cell {tb.cell}" if notebook else f"{source}:{tb.message_line + 1}"
    return f"{where} [{tb.stream}]" if tb.stream else where


def _frame_text(frame: Frame) -> str:
    if frame.cell is not None and frame.line is not None:
        return f"Cell In[{frame.cell}], line {frame.line}, in {frame.function}"
    line = "" if frame.line is None else f":{frame.line}"
    return f"{frame.file}{line} in {frame.function}"


def _incidents(results: Sequence[SourceResult]) -> list[_Incident]:
    incidents: dict[tuple[object, ...], _Incident] = {}
    for result in results:
        for match in result.matches:
            tb = match.traceback
            user = tb.user_frame
            key = (
                result.source,
                match.record.id if match.record else None,
                tb.exception_line,
                (user.file, user.line) if user else None,
            )
            incident = incidents.setdefault(key, _Incident(result.source, tb, match.record))
            incident.places.append(_place(result.source, tb, result.notebook))
    return list(incidents.values())


def _wrap(text: str, indent: str = "    ", hanging: int = 0) -> list[str]:
    lines = textwrap.wrap(text, WIDTH, initial_indent=indent, subsequent_indent=indent + " " * hanging)
    return lines or [indent]


def _shorten(text: str, limit: int = MESSAGE_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _explained(incident: _Incident, record: Record, locale: str) -> Iterator[str]:
    words = HEADINGS[locale]
    tb = incident.traceback
    about = f"{record.id} ({tier(record, locale)}, {words['confidence']} {record.confidence:.2f})"
    yield f"{incident.places[0]}: {tb.exception or words['message']} — {words['record']} {about}"
    yield f"  {words['what']}"
    yield from _wrap(_shorten(tb.exception_line))
    if locale == "zh" and record.signature_zh.strip():
        yield from _wrap(words["meaning"] + record.signature_zh.strip())
    if len(incident.places) > 1:
        yield from _wrap(words["seen"].format(count=len(incident.places), places=", ".join(incident.places)))
    yield f"  {words['where']}"
    if tb.user_frame:
        yield from _wrap(_frame_text(tb.user_frame))
    else:
        yield from _wrap(words["bare"] if tb.bare else words["no_frame"])
    label = LABELS[locale]
    yield f"  {label['why']}"
    yield from _wrap(in_language(record.root_cause_zh, record.root_cause, locale))
    if record.dead_ends:
        yield f"  {label['dont']}"
        for index, dead in enumerate(record.dead_ends):
            rate = rate_phrase(dead.fail_rate, dead.sources, locale, failing=True)
            action, reason = dead_end(record, index, locale)
            yield from _wrap(f"✗ {action}{rate}", hanging=2)
            yield from _wrap(reason, "      ")
    if record.workarounds:
        yield f"  {label['do']}"
        for n, (_, text) in enumerate(ranked_workarounds(record, locale), start=1):
            yield from _wrap(f"{n}. {text}", hanging=len(f"{n}. "))
    if record.official_doc_url:
        yield f"  {label['docs']}: {record.official_doc_url}"
    yield ""


def _headline(tb: Traceback) -> str:
    """``Type: message`` cut short, from the first message line with words in it (torchrun's
    summary opens with a rule of ``=``)."""
    lines = [line.strip() for line in tb.message.splitlines()]
    first = next((line for line in lines if any(c.isalnum() for c in line)), "")
    return _shorten(": ".join(part for part in (tb.exception, first) if part), UNMATCHED_CHARS)


def _unmatched(incident: _Incident) -> Iterator[str]:
    tb = incident.traceback
    where = f"  ({_frame_text(tb.user_frame)})" if tb.user_frame else ""
    yield f"  {incident.places[0]}: {_headline(tb)}{where}"


def render_text(results: Sequence[SourceResult], locale: str) -> str:
    words = HEADINGS[locale]
    incidents = _incidents(results)
    lines: list[str] = []
    for incident in incidents:
        if incident.record is not None:
            lines.extend(_explained(incident, incident.record, locale))
    unmatched = [incident for incident in incidents if incident.record is None]
    if unmatched:
        lines.append(words["unmatched"])
        for incident in unmatched:
            lines.extend(_unmatched(incident))
        lines.append("")
    found = sum(len(result.matches) for result in results)
    if not found:
        lines.append(words["none_bare"])
    else:
        explained = sum(1 for r in results for m in r.matches if m.record is not None)
        bare = sum(1 for r in results for m in r.matches if m.traceback.bare)
        summaries = [words["summary"].format(found=found - bare)] if found > bare else []
        summaries += [words["summary_bare"].format(found=bare)] if bare else []
        lines.append(words["summary_end"].format(found=", ".join(summaries), explained=explained))
    return "\n".join(lines) + "\n"
