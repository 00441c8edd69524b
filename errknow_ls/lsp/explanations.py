"""A record's whole explanation as a Markdown file, for hover's link to what it leaves out (the
error's text, what not to do, every workaround, the torch versions): the editor opens it like any
file. Written once per text, under the user's cache directory; never in the workspace."""

from __future__ import annotations

import hashlib
import logging
import os
import tempfile
from pathlib import Path

from errknow_ls.core.translation import language
from errknow_ls.kb.explain import Context, render
from errknow_ls.kb.model import Record
from errknow_ls.lsp.session import Session

log = logging.getLogger(__name__)


def directory() -> Path:
    """``$XDG_CACHE_HOME/errknow-ls/explain``, ``~/.cache/errknow-ls/explain`` without it."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "errknow-ls" / "explain"


def explanation_uri(session: Session, record: Record, torch: str | None) -> str | None:
    """The ``file:`` URI of ``record`` explained whole in the session's language, or None when it
    cannot be written (hover then names the command that prints it)."""
    lang = language(session.locale)
    context = Context(torch_version=torch, related=session.kb.signatures(lang))
    text = f"# {record.id}\n\n{render(record, context, session.locale, markdown=True)}\n"
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
    path = directory() / digest / f"{record.id}.md"
    if not path.is_file():
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with tempfile.NamedTemporaryFile("w", encoding="utf-8", dir=path.parent, delete=False) as out:
                out.write(text)
            Path(out.name).replace(path)
        except OSError as error:
            log.warning("the explanation of %s could not be written to %s: %s", record.id, path, error)
            return None
    return path.as_uri()
