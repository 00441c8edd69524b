"""The editor's process (``initialize.processId``): once it is gone, the server ends.

An editor that crashes may leave our stdin open (a grandparent holds the pipe); without this watch
the server would run on, orphaned, until the machine reboots.
"""

from __future__ import annotations

import asyncio
import logging
import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from errknow_ls.lsp.session import Session

log = logging.getLogger(__name__)
POLL_SECONDS = 1.0


def alive(pid: int) -> bool:
    """Signal 0 checks that ``pid`` exists without touching it; a process of another user exists too."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


async def watch(session: Session, pid: int | None) -> None:
    # On Windows os.kill terminates the process whatever the signal: no watch there.
    if os.name != "posix" or pid is None or pid <= 0 or pid == os.getpid():
        return
    while alive(pid):
        await asyncio.sleep(POLL_SECONDS)
    log.warning("the editor's process %d is gone: exiting", pid)
    session.client.hang_up()
