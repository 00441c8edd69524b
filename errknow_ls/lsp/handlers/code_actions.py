"""textDocument/codeAction and codeAction/resolve (see ``actions`` for what each action is)."""

from __future__ import annotations

import logging
import time

from lsprotocol import types
from pygls.workspace import TextDocument

from errknow_ls.core.translation import language
from errknow_ls.lsp import actions, publishing
from errknow_ls.lsp.convert import Positions
from errknow_ls.lsp.languageserver import ErrknowServer
from errknow_ls.lsp.session import Session
from errknow_ls.lsp.snapshots import open_document

log = logging.getLogger(__name__)
OPTIONS = types.CodeActionOptions(code_action_kinds=actions.KINDS, resolve_provider=True)


def register(server: ErrknowServer, session: Session) -> None:
    server.feature(types.TEXT_DOCUMENT_CODE_ACTION, OPTIONS)(session.bind(code_action))
    server.feature(types.CODE_ACTION_RESOLVE)(session.bind(resolve))


def _target(session: Session, document: TextDocument) -> actions.Target:
    caps = session.client_capabilities
    code_action = caps.text_document.code_action if caps.text_document else None
    resolve_support = code_action.resolve_support if code_action else None
    workspace_edit = caps.workspace.workspace_edit if caps.workspace else None
    return actions.Target(
        uri=document.uri,
        version=document.version,
        positions=Positions(
            document.source, session.workspace.position_encoding or types.PositionEncodingKind.Utf16
        ),
        source=document.source,
        lazy=bool(resolve_support and "edit" in resolve_support.properties),
        document_changes=bool(workspace_edit and workspace_edit.document_changes),
        language=language(session.locale),
    )


async def code_action(session: Session, params: types.CodeActionParams) -> list[types.CodeAction] | None:
    uri = params.text_document.uri
    asked = time.monotonic()
    result = await publishing.current(session, uri)
    document = open_document(session.workspace, result.uri) if result else None
    if result is None or document is None:
        log.debug("codeAction %s: not open", uri)
        return None  # not open, or closed while it was checked
    target = _target(session, document)
    only = params.context.only
    current = actions.current_data(target, params.context.diagnostics)
    found = current or actions.in_range(
        result.diagnostics, result.findings, target.positions.from_range(params.range)
    )
    chosen = (
        actions.for_diagnostics(target, found) if actions.wanted(only, types.CodeActionKind.QuickFix) else []
    )
    fix_all = actions.fix_all(target, result.findings) if actions.wanted(only, actions.FIX_ALL) else None
    answer = [*chosen, *([fix_all] if fix_all else [])]
    # Why an editor shows "No code actions available" where a diagnostic is: its copy was stale
    # (another version) and the server's own result holds nothing on these lines. An answer that
    # took long may have been overtaken by the editor's next request (it shows neither).
    log.debug(
        "codeAction %s v%s lines %d-%d trigger=%s only=%s: %d of %d diagnostics sent are current; %d found "
        "(result v%s: %d findings); %d actions in %.0f ms",
        uri,
        target.version,
        params.range.start.line + 1,
        params.range.end.line + 1,
        params.context.trigger_kind,
        only,
        len(current),
        len(params.context.diagnostics),
        len(found),
        result.version,
        len(result.findings),
        len(answer),
        (time.monotonic() - asked) * 1000,
    )
    return answer or None


async def resolve(session: Session, action: types.CodeAction) -> types.CodeAction:
    pending = actions.Pending.parse(action.data)
    result = await publishing.current(session, pending.uri) if pending else None
    document = open_document(session.workspace, result.uri) if result else None
    if pending is None or result is None or document is None or result.version != pending.version:
        return action  # not ours, or the document moved on: a stale fix is dropped
    target = _target(session, document)
    if pending.fix is not None:
        action.edit = target.fix_edit(pending.fix)
    elif pending.fix_all:
        action.edit = actions.fix_all_edit(target, result.findings)
    return action
