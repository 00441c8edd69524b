"""workspace/executeCommand: ``errknow.explain`` (the explanation of a record id or a pasted
traceback), ``errknow.records`` (the records this server has loaded) and
``errknow.clearRuntimeFindings`` (the errors runs showed go, until a run shows them again)."""

from __future__ import annotations

from typing import Any

from pygls.exceptions import JsonRpcInvalidParams

from errknow_ls.core.translation import language
from errknow_ls.kb import KnowledgeBase, Record
from errknow_ls.kb.explain import LABELS, Context, render
from errknow_ls.lsp import publishing
from errknow_ls.lsp.languageserver import ErrknowServer
from errknow_ls.lsp.session import Session
from errknow_ls.tracebacks import bare_messages, match_tracebacks, read_tracebacks

EXPLAIN = "errknow.explain"
RECORDS = "errknow.records"
CLEAR_RUNTIME = "errknow.clearRuntimeFindings"


def register(server: ErrknowServer, session: Session) -> None:
    server.command(EXPLAIN)(session.bind(explain))
    server.command(RECORDS)(session.bind(records))
    server.command(CLEAR_RUNTIME)(session.bind(clear_runtime_findings))


async def explain(session: Session, *arguments: Any) -> dict[str, Any]:
    """``[subject]`` or ``[subject, locale]`` -> ``{"records": [ids], "markdown": text}``."""
    if (
        not arguments
        or not isinstance(arguments[0], str)
        or not all(isinstance(a, str | None) for a in arguments[1:2])
    ):
        raise JsonRpcInvalidParams(f"{EXPLAIN} takes a record id or a traceback, and optionally a locale")
    await session.ready.wait()  # explained with the settings' and the workspace's records too
    locale = arguments[1] if len(arguments) > 1 and arguments[1] else session.locale
    records, bare = records_for(session.kb, arguments[0])
    context = Context(
        here=LABELS[language(locale)]["bare"] if bare else None,
        related=session.kb.signatures(language(locale)),
    )
    texts = [render(record, context, locale) for record in records]
    return {"records": [r.id for r in records], "markdown": "\n\n---\n\n".join(texts)}


def records_for(kb: KnowledgeBase, subject: str) -> tuple[list[Record], bool]:
    """A record id; else the records the tracebacks in the text match; else those its bare messages
    match (and True: there were no frames to read)."""
    record = kb.get(subject.strip())
    if record is not None:
        return [record], False
    tracebacks = read_tracebacks(subject)
    bare = not tracebacks
    found = match_tracebacks(kb, tracebacks or bare_messages(kb, subject))
    return list({m.record.id: m.record for m in found if m.record}.values()), bare


async def records(session: Session, *_arguments: Any) -> list[dict[str, Any]]:
    """The loaded records, by id: what an editor lists, from the directories this server reads
    (built-in, settings, the workspace's), not from another process's idea of them."""
    await session.ready.wait()  # the settings' and the workspace's record directories are read by then
    kb = session.kb
    return [
        {
            "id": record.id,
            "signature": " ".join(record.signature.split()),
            "tier": record.verification_tier,
            "confidence": record.confidence,
            "source": kb.source_of(record.id),
        }
        for record in sorted(kb.records, key=lambda r: r.id)
    ]


def clear_runtime_findings(session: Session, *_arguments: Any) -> dict[str, int]:
    """Every diagnostic from program output goes; ``{"documents": N}``, the documents it left."""
    changed = session.output.clear()
    publishing.deliver(session, changed)
    return {"documents": len(changed)}
