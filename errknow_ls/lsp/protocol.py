"""pygls' protocol, answering requests whose params do not deserialize instead of dropping them.

Plain pygls 2.1.1 logs such a request and sends nothing: the client waits forever.
"""

from __future__ import annotations

import logging
from typing import Any

from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams
from pygls.protocol import LanguageServerProtocol

log = logging.getLogger(__name__)


class _Answered:
    """Stands for a request already answered with an error; ``handle_message`` skips it."""

    jsonrpc = "answered"


class ErrknowProtocol(LanguageServerProtocol):
    def structure_message(self, data: dict[str, Any]) -> Any:
        try:
            return super().structure_message(data)
        except JsonRpcException:
            if "id" not in data or "method" not in data:
                raise
            log.warning("invalid params for %s (request %s)", data["method"], data["id"])
            error = JsonRpcInvalidParams(f"invalid params for {data['method']}")
            self._send_response(data["id"], None, error.to_response_error())
            return _Answered()

    def handle_message(self, message: Any) -> None:
        if not isinstance(message, _Answered):
            super().handle_message(message)
