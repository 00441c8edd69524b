"""The real server with handlers added that fail on purpose, for the fault tests.

Nothing of the server is replaced: ``create_server`` builds it as ``errknow-ls serve`` does, and
these methods (unknown to any editor) are only registered on top.
"""

from __future__ import annotations

import asyncio
import logging
import sys
from typing import Any

from errknow_ls.lsp import transport
from errknow_ls.lsp.languageserver import ErrknowServer
from errknow_ls.lsp.server import create_server

FAIL = "errknow-test/fail"
FAIL_ASYNC = "errknow-test/failAsync"
FAIL_NOTIFICATION = "errknow-test/failNotification"
UNSERIALIZABLE = "errknow-test/unserializable"


def _fail(_ls: ErrknowServer, _params: Any) -> None:
    raise RuntimeError("the handler failed on purpose")


async def _fail_async(_ls: ErrknowServer, _params: Any) -> None:
    await asyncio.sleep(0)
    raise ZeroDivisionError("the async handler failed on purpose")


def _unserializable(_ls: ErrknowServer, _params: Any) -> object:
    return {"not JSON": {1, 2}}


def main() -> int:
    logging.basicConfig(
        level=logging.WARNING, stream=sys.stderr, format="%(levelname)s %(name)s: %(message)s"
    )
    server = create_server()
    server.feature(FAIL)(_fail)
    server.feature(FAIL_ASYNC)(_fail_async)
    server.feature(FAIL_NOTIFICATION)(_fail)
    server.feature(UNSERIALIZABLE)(_unserializable)
    return transport.serve_stdio(server)


if __name__ == "__main__":
    sys.exit(main())
