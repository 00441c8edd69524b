"""How diagnostics reach this client: pulled (LSP 3.17) or pushed, per the capabilities it offered;
and which URIs have pushed diagnostics standing."""

from __future__ import annotations

from dataclasses import dataclass, field

from lsprotocol import types


@dataclass(slots=True)
class Channel:
    pull_open: bool = False
    """The client sends ``textDocument/diagnostic`` for open documents."""
    pull_workspace: bool = False
    """... and ``workspace/diagnostic`` for the rest."""
    refresh: bool = False
    """The client takes ``workspace/diagnostic/refresh``."""
    pushed: set[str] = field(default_factory=set)
    """URIs with pushed diagnostics that are not empty."""

    @classmethod
    def for_client(cls, caps: types.ClientCapabilities) -> Channel:
        pull = bool(caps.text_document and caps.text_document.diagnostic)
        refresh = bool(
            caps.workspace and caps.workspace.diagnostics and caps.workspace.diagnostics.refresh_support
        )
        # No capability says "I will ask workspace/diagnostic": refresh support is the best hint,
        # and the first such request switches a client over anyway (see pull_workspace_now).
        return cls(pull_open=pull, pull_workspace=pull and refresh, refresh=refresh)

    def pulls(self, open_document: bool) -> bool:
        return self.pull_open if open_document else self.pull_workspace
