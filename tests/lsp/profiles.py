"""Client capability sets: captured Neovim 0.11 and Emacs 29, and a hand-built modern VS Code.

pytest-lsp's VS Code capture is from 1.65 (no pull diagnostics, no position encodings, no
notebooks), so the modern set adds what VS Code 1.100 sends.
"""

from __future__ import annotations

import pytest_lsp
from lsprotocol import types


def modern_vscode() -> types.ClientCapabilities:
    caps = pytest_lsp.client_capabilities("visual-studio-code")
    caps.general = types.GeneralClientCapabilities(position_encodings=[types.PositionEncodingKind.Utf16])
    assert caps.text_document is not None and caps.workspace is not None
    caps.text_document.diagnostic = types.DiagnosticClientCapabilities(
        dynamic_registration=True, related_document_support=False
    )
    caps.workspace.diagnostics = types.DiagnosticWorkspaceClientCapabilities(refresh_support=True)
    caps.notebook_document = types.NotebookDocumentClientCapabilities(
        synchronization=types.NotebookDocumentSyncClientCapabilities(
            dynamic_registration=True, execution_summary_support=True
        )
    )
    if caps.text_document.code_action is not None:
        caps.text_document.code_action.resolve_support = types.ClientCodeActionResolveOptions(
            properties=["edit"]
        )
    return caps


PROFILES = {
    "neovim-0.11": lambda: pytest_lsp.client_capabilities("neovim@v0.11.0"),
    "emacs-29": lambda: pytest_lsp.client_capabilities("emacs@v29.1"),
    "vscode-modern": modern_vscode,
}
