"""Pull diagnostics (LSP 3.17), for clients that ask; the others get them pushed (see publishing)."""

from __future__ import annotations

from lsprotocol import types

from errknow_ls.lsp import publishing
from errknow_ls.lsp.checking import Result
from errknow_ls.lsp.server import ErrknowServer
from errknow_ls.lsp.snapshots import is_open

OPTIONS = types.DiagnosticOptions(
    identifier="errknow", inter_file_dependencies=False, workspace_diagnostics=True
)
DocumentReport = types.FullDocumentDiagnosticReport | types.UnchangedDocumentDiagnosticReport
WorkspaceReport = (
    types.WorkspaceFullDocumentDiagnosticReport | types.WorkspaceUnchangedDocumentDiagnosticReport
)


def register(server: ErrknowServer) -> None:
    server.feature(types.TEXT_DOCUMENT_DIAGNOSTIC, OPTIONS)(document_diagnostic)
    server.feature(types.WORKSPACE_DIAGNOSTIC)(workspace_diagnostic)


async def document_diagnostic(ls: ErrknowServer, params: types.DocumentDiagnosticParams) -> DocumentReport:
    result = await publishing.current(ls, params.text_document.uri)
    if result is None:
        return types.FullDocumentDiagnosticReport(items=[])
    if params.previous_result_id == str(result.serial):
        return types.UnchangedDocumentDiagnosticReport(result_id=str(result.serial))
    return types.FullDocumentDiagnosticReport(items=list(result.diagnostics), result_id=str(result.serial))


def workspace_diagnostic(
    ls: ErrknowServer, params: types.WorkspaceDiagnosticParams
) -> types.WorkspaceDiagnosticReport:
    """Files that are not open, as last checked; a file gone since the last pull is reported empty."""
    publishing.pull_workspace_now(ls)
    previous = {p.uri: p.value for p in params.previous_result_ids}
    results = [r for r in ls.checks.stored_all() if r.version is None and not is_open(ls.workspace, r.uri)]
    items = [_report(result, previous.get(result.uri)) for result in results]
    gone = {uri for uri in previous if not is_open(ls.workspace, uri)} - {result.uri for result in results}
    items += [
        types.WorkspaceFullDocumentDiagnosticReport(uri=uri, items=[], version=None) for uri in sorted(gone)
    ]
    return types.WorkspaceDiagnosticReport(items=items)


def _report(result: Result, previous: str | None) -> WorkspaceReport:
    result_id = str(result.serial)
    if previous == result_id:
        return types.WorkspaceUnchangedDocumentDiagnosticReport(
            uri=result.uri, result_id=result_id, version=None
        )
    return types.WorkspaceFullDocumentDiagnosticReport(
        uri=result.uri, items=list(result.diagnostics), result_id=result_id, version=None
    )
