"""pygls' protocol, answering what pygls 2.1.1 leaves unanswered or turns into pop-ups.

- A body that is not JSON gets a Parse error, one that is not a JSON-RPC message an Invalid
  Request (pygls showed the user "Error in server: ..." and sent no answer). A request whose id is
  neither a number nor a string is answered with id null.
- A request whose params do not deserialize is answered with InvalidParams (plain pygls logs it
  and sends nothing: the client waits forever); such a notification is logged and dropped.
- A request after ``shutdown`` is answered with InvalidRequest, one before ``initialize`` with
  ServerNotInitialized, a second ``initialize`` with InvalidRequest, as LSP asks (pygls dropped
  the first, failed the second with an internal error, and re-initialized on the third).
- ``didChange`` for a document that is not open, ``notebookDocument/didChange`` for a notebook
  or a cell that is not open, are logged and ignored (pygls raised KeyError and showed it).
- An incremental change is applied in time proportional to where it lands, lines counted as LSP
  counts them (``convert.apply_change``): pygls split the whole document into lines and joined them
  again, on the event loop, for every change (3 s for one character typed into a 1,000,000-line
  document), and counted form feeds and U+2028 as line breaks, where editors do not.
- A handler's future is forgotten once it is done: pygls kept the future of every notification
  whose handler is a generator or a coroutine (``didOpen``, and ``didChange`` at every keystroke),
  and of every handler a generator handler yields to, under a fresh id for the session's life.
- A response whose result cannot be serialized becomes an internal error for its id (pygls logged
  it and sent nothing).
- The client's answer to a request of ours that we cancelled meanwhile (a workspace scan restarted
  while it waited for its progress token) is dropped (plain pygls sets the result of the
  cancelled future, fails, and shows the user "Error in server: CANCELLED").

Params are structured strictly (``strict_converter``): pygls' converter turned a URI ``5`` into
``"5"`` and a version ``"1"`` into ``1``, and let a number through as a language id, which then
failed in a handler (an internal error) instead of being refused as invalid params. A handler that
refuses its params (a JsonRpcException) is logged in one line, not with a traceback.

Only top-level objects are structured: pygls' ``object_hook`` structured every nested object
with a ``jsonrpc`` key as a message of its own, and could answer an id found inside params.

Bodies are decoded by msgspec (``decode``): one decoding holds the interpreter's lock, so a hover
on another document sent right behind a 31 MB ``didOpen`` is answered first (``answer_ahead``).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import logging
from collections.abc import Callable, Generator
from typing import Any
from urllib.parse import unquote

import cattrs
import msgspec
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.protocol import JsonRPCProtocol, LanguageServerProtocol, default_converter, lsp_method
from pygls.protocol.json_rpc import JsonRPCNotification, JsonRPCRequestMessage, JsonRPCResponseMessage

from errknow_ls.lsp import convert

log = logging.getLogger(__name__)
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
SERVER_NOT_INITIALIZED = -32002
LOGGED_CHARS = 120


def _only(*kinds: type) -> Callable[[Any, Any], Any]:
    def structure(value: Any, cls: Any) -> Any:
        if (isinstance(value, bool) and bool not in kinds) or not isinstance(value, kinds):
            raise TypeError(f"expected {' or '.join(k.__name__ for k in kinds)}, got {type(value).__name__}")
        # The hook for ``int`` (``str``) also gets the IntEnums (str enums): severities, kinds.
        return value if cls in kinds or not isinstance(cls, type) else cls(value)

    return structure


def strict_converter() -> cattrs.Converter:
    """pygls' converter, refusing a value of the wrong JSON type instead of coercing it."""
    converter: cattrs.Converter = default_converter()  # type: ignore[no-untyped-call]
    converter.register_structure_hook(str, _only(str))
    converter.register_structure_hook(int, _only(int))
    converter.register_structure_hook(bool, _only(bool))
    converter.register_structure_hook(float, _only(int, float))
    converter.register_structure_hook(int | str, _only(int, str))
    converter.register_structure_hook(types.LanguageKind | str, _only(str))
    return converter


def decode(body: bytes | bytearray | memoryview) -> Any:
    """The JSON value of a message's body, as ``json.loads`` gives it, or its ValueError or RecursionError.

    msgspec decodes the text of a 1,000,000-line document (31 MB, a million escaped line breaks)
    in half the time of ``json.loads``, from the transport's buffer without a copy. What msgspec
    refuses goes to ``json.loads``, which decides (it also takes lone surrogates, ``NaN``, numbers
    past a double and UTF-16 or a byte order mark, which a client may send and msgspec refuses)."""
    try:
        return msgspec.json.decode(body)
    except (msgspec.DecodeError, RecursionError):
        return json.loads(bytes(body))


def _valid_id(data: dict[str, Any]) -> int | str | None:
    msg_id = data.get("id")
    return msg_id if isinstance(msg_id, int | str) and not isinstance(msg_id, bool) else None


def envelope_problem(data: Any) -> str | None:
    """Why ``data`` is not a JSON-RPC 2.0 request, notification or response; None if it is one."""
    if not isinstance(data, dict):
        return f"a message is a JSON object, not {type(data).__name__}"
    if data.get("jsonrpc") != JsonRPCProtocol.VERSION:
        return 'a message has "jsonrpc": "2.0"'
    if "id" in data and _valid_id(data) is None:
        return "an id is a number or a string"
    if "method" in data:
        return None if isinstance(data["method"], str) else "a method is a string"
    if "id" not in data:
        return "a message without an id has a method"
    if ("result" in data) == ("error" in data):
        return "a response has a result or an error"
    return None


_DID_CHANGE = f'"{types.TEXT_DOCUMENT_DID_CHANGE}"'.encode()
ANSWERED_AHEAD = frozenset(
    {types.TEXT_DOCUMENT_HOVER, types.TEXT_DOCUMENT_CODE_ACTION, types.TEXT_DOCUMENT_DIAGNOSTIC}
)
"""Requests that read one document and change nothing: one on another document is answered before
a large text notification that came just before it (see ``answer_ahead``)."""


def _about_document(body: bytes | bytearray) -> tuple[Any, str | None]:
    """A message's decoded body (None if it is not JSON) and the URI of the document its params
    name (``params.textDocument.uri``; None if none)."""
    try:
        data = decode(body)
    except (ValueError, RecursionError):
        return None, None
    params = data.get("params") if isinstance(data, dict) else None
    text_document = params.get("textDocument") if isinstance(params, dict) else None
    uri = text_document.get("uri") if isinstance(text_document, dict) else None
    return data, uri if isinstance(uri, str) else None


class ErrknowProtocol(LanguageServerProtocol):
    def receive(self, body: bytes | bytearray | memoryview) -> None:
        """One framed message from the client: handled, or answered with the JSON-RPC error it earns."""
        try:
            data = decode(body)
        except (ValueError, RecursionError) as exc:  # JSONDecodeError, UnicodeDecodeError, nesting
            self._refuse(None, PARSE_ERROR, f"not JSON: {exc}")
            return
        self._receive_decoded(data)

    def edited_large_document(self, body: bytes | bytearray, large_chars: int) -> str | None:
        """The URI of the open document of at least ``large_chars`` characters that ``body``, a
        small ``didChange``, edits; None for any other message. Applying an edit to such a text makes
        a copy of it (tens of ms for 31 MB, more where fresh memory is paged in), so the requests
        right behind it that read another document are answered first, as behind a large message."""
        if _DID_CHANGE not in body or self._workspace is None:
            return None  # the method's name is in every such message (unless escaped: then in turn)
        data, uri = _about_document(body)
        if uri is None or data.get("method") != types.TEXT_DOCUMENT_DID_CHANGE or "id" in data:
            return None
        document = self._workspace.text_documents.get(unquote(uri))
        return uri if document is not None and len(document.source) >= large_chars else None

    def answer_ahead(self, body: bytes | bytearray, document: str) -> asyncio.Future[Any] | None:
        """Handle ``body`` now, if it is a request that reads one document other than ``document``
        and changes nothing (``ANSWERED_AHEAD``), though a text notification about ``document``
        came before it and is not handled yet: its answer, when it comes; None (and nothing done)
        otherwise.

        LSP lets a server reorder what does not change the answers: such a request is answered as
        it would have been had it come just before that notification (which changes neither its
        document nor, once handled, what was answered)."""
        data, uri = _about_document(body)
        if (
            uri is None
            or data.get("method") not in ANSWERED_AHEAD
            or "id" not in data
            or unquote(uri) == unquote(document)
        ):
            return None
        self._receive_decoded(data)
        answer: Any = self._request_futures.get(data["id"])
        if isinstance(answer, asyncio.Future):
            return answer
        if isinstance(answer, concurrent.futures.Future):  # a handler run in a thread
            return asyncio.wrap_future(answer)
        done = asyncio.get_running_loop().create_future()  # answered already, or refused
        done.set_result(None)
        return done

    def _receive_decoded(self, data: Any) -> None:
        problem = envelope_problem(data)
        if problem is not None:
            self._refuse(_valid_id(data) if isinstance(data, dict) else None, INVALID_REQUEST, problem)
            return
        message = self._structured(data)
        if message is None:
            return
        if self._shutdown and "method" not in data:
            # The client's answer to a request of ours that crossed its ``shutdown``: lawful, and
            # nobody waits for it any more (pygls would warn about it as a request after shutdown).
            log.debug("dropped a response after shutdown (id %s)", data.get("id"))
            return
        refusal = self._out_of_turn(data.get("method"), "id" in data, hasattr(message, "id"))
        if refusal is None:
            self.handle_message(message)
        elif "id" in data:
            self._refuse(data["id"], *refusal)
        else:
            log.warning("dropped: %s", refusal[1])

    def _out_of_turn(self, method: str | None, has_id: bool, typed_request: bool) -> tuple[int, str] | None:
        """Why the lifecycle forbids ``method`` now (as an error code and a reason); None if it may run."""
        if method is None or method == types.EXIT:
            return None
        if has_id and not typed_request:
            return INVALID_REQUEST, f"{method} is a notification: it takes no id"
        if self._workspace is None and method != types.INITIALIZE:
            return SERVER_NOT_INITIALIZED, f"{method} before initialize"
        if self._workspace is not None and method == types.INITIALIZE:
            return INVALID_REQUEST, "initialize was already received"
        if self._shutdown:
            return INVALID_REQUEST, f"{method} after shutdown"
        return None

    def refuse_frame(self, reason: str) -> None:
        """A header the transport could not use: what follows it is skipped up to the next header."""
        self._refuse(None, PARSE_ERROR, reason)

    def _refuse(self, msg_id: int | str | None, code: int, reason: str) -> None:
        log.warning("refused (id %s): %s", msg_id, reason[:LOGGED_CHARS])
        self._send_data(
            {"jsonrpc": self.VERSION, "id": msg_id, "error": {"code": code, "message": reason[:LOGGED_CHARS]}}
        )

    def _structured(self, data: dict[str, Any]) -> Any:
        """The typed message (pygls' types by method); None if it does not fit, answered if a request."""
        method = data.get("method")
        kind: Any
        if method is not None:
            kind = self.get_message_type(method)
            if kind is None:  # not an LSP method: MethodNotFound, whether it has params or not
                kind = JsonRPCRequestMessage if "id" in data else JsonRPCNotification
                data = {"params": None, **data}
        elif "error" in data:
            kind = types.ResponseErrorMessage
        else:
            kind = self._result_types.pop(data["id"], None) or JsonRPCResponseMessage
        try:
            return self._converter.structure(data, kind)
        except Exception as exc:
            if method is not None and "id" in data:
                self._refuse(data["id"], INVALID_PARAMS, f"invalid params for {method}")
            else:
                what = method or "a response"
                log.warning("dropped %s: it does not deserialize (%s)", what, type(exc).__name__)
            return None

    @lsp_method(types.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(
        self, params: types.DidChangeTextDocumentParams
    ) -> Generator[Any, Any, None]:
        document = self.workspace.text_documents.get(unquote(params.text_document.uri))
        if document is None:
            log.warning("didChange for %s, which is not open: ignored", params.text_document.uri)
            return
        if any(isinstance(c, types.TextDocumentContentChangePartial) for c in params.content_changes):
            encoding = self.workspace.position_encoding or types.PositionEncodingKind.Utf16
            text = document.source
            for change in params.content_changes:
                if isinstance(change, types.TextDocumentContentChangePartial):
                    text = convert.apply_change(text, change.range, change.text, encoding)
                else:
                    text = change.text
            params.content_changes = [types.TextDocumentContentChangeWholeDocument(text=text)]
        yield from super().lsp_text_document__did_change(params)

    @lsp_method(types.NOTEBOOK_DOCUMENT_DID_CHANGE)
    def lsp_notebook_document__did_change(
        self, params: types.DidChangeNotebookDocumentParams
    ) -> Generator[Any, Any, None]:
        uri = params.notebook_document.uri
        if self.workspace.get_notebook_document(notebook_uri=uri) is None:
            log.warning("notebookDocument/didChange for %s, which is not open: ignored", uri)
            return
        cells = params.change.cells
        if cells is not None and cells.text_content:
            structure = cells.structure
            opened = {unquote(d.uri) for d in (structure.did_open or [])} if structure else set()
            closed = {unquote(d.uri) for d in (structure.did_close or [])} if structure else set()
            known = (self.workspace.text_documents.keys() | opened) - closed
            kept = [text for text in cells.text_content if unquote(text.document.uri) in known]
            if len(kept) < len(cells.text_content):
                log.warning("notebookDocument/didChange: edits to cells that are not open ignored")
            cells.text_content = kept
        yield from super().lsp_notebook_document__did_change(params)

    def _execute_handler(
        self,
        msg_id: Any,
        handler: Any,
        callback: Callable[[Any], None],
        args: tuple[Any, ...] | None = None,
        kwargs: dict[str, Any] | None = None,
    ) -> None:
        """pygls' ``_execute_handler``; what it stored for ``msg_id`` goes once the handler is done.
        A cancelled one stays: a cancellation calls back at once, and pygls' ``shutdown`` cancels
        while it walks the stored futures (it, or a cancel notification, removes them itself)."""

        def done(future: Any) -> None:  # a concurrent or an asyncio future, by the handler's kind
            if not future.cancelled() and self._request_futures.get(msg_id) is future:
                del self._request_futures[msg_id]
            callback(future)

        super()._execute_handler(msg_id, handler, done, args, kwargs)

    def _send_data(self, data: Any) -> None:
        """pygls' ``_send_data``, except that a response that cannot be serialized is replaced by an
        internal error for its id (pygls logged it and sent nothing: the client waited forever)."""
        if not data or self.writer is None:
            return
        try:
            body = json.dumps(data, default=self._serialize_message)
        except Exception as exc:
            log.exception("cannot serialize a message to the client")
            msg_id = getattr(data, "id", None)
            if msg_id is None or hasattr(data, "method"):
                return
            failed = {"code": INTERNAL_ERROR, "message": f"the result could not be serialized: {exc}"}
            body = json.dumps({"jsonrpc": self.VERSION, "id": msg_id, "error": failed})
        self._write_body(body)

    def notify_encoded(self, method: str, params: str) -> None:
        """A notification whose params are JSON already (encoded in a worker, off the event loop)."""
        if self.writer is not None:
            envelope = f'"jsonrpc": "{self.VERSION}", "method": {json.dumps(method)}'
            self._write_body(f'{{{envelope}, "params": {params}}}')

    def _write_body(self, body: str) -> None:
        assert self.writer is not None
        encoded = body.encode(self.CHARSET)
        self.writer.write(b"Content-Length: %d\r\n\r\n" % len(encoded) + encoded)

    def _send_handler_result(self, future: Any, *, msg_id: Any) -> None:
        """A handler that refused its params (a JsonRpcException) is answered with a one-line log;
        pygls logs a full traceback for it, as for a crash."""
        if future.done() and not future.cancelled() and isinstance(future.exception(), JsonRpcException):
            self._request_futures.pop(msg_id, None)
            log.warning("request %s refused: %s", msg_id, str(future.exception())[:LOGGED_CHARS])
            self._send_response(msg_id, error=future.exception().to_response_error())
            return
        super()._send_handler_result(future, msg_id=msg_id)

    def _handle_response(self, msg_id: Any, result: Any | None = None, error: Any | None = None) -> None:
        future = self._request_futures.get(msg_id)
        if future is not None and future.done():
            del self._request_futures[msg_id]
            log.debug("answer to request %s dropped: it was cancelled", msg_id)
            return
        super()._handle_response(msg_id, result, error)
