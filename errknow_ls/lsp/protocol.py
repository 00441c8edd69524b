"""pygls' protocol, with two gaps of pygls 2.1.1 closed.

- A request whose params do not deserialize is answered with InvalidParams (plain pygls logs it
  and sends nothing: the client waits forever).
- The client's answer to a request of ours that we cancelled meanwhile (a workspace scan restarted
  while it waited for its progress token) is dropped (plain pygls sets the result of the
  cancelled future, fails, and shows the user "Error in server: CANCELLED").
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

    def _handle_response(self, msg_id: Any, result: Any | None = None, error: Any | None = None) -> None:
        future = self._request_futures.get(msg_id)
        if future is not None and future.done():
            del self._request_futures[msg_id]
            log.debug("answer to request %s dropped: it was cancelled", msg_id)
            return
        super()._handle_response(msg_id, result, error)
