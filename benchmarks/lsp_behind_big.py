"""The hover sent right behind a 31 MB ``didOpen``, for two builds of the server side by side.

``lsp_responsive.py`` gets one such sample per run (a run is a 1,000,000-line check: many minutes),
and one sample says little on a loaded machine. Here two servers run at once, this checkout's and
the one at ``--other`` (a source tree holding ``errknow_ls``, e.g. ``git archive main errknow_ls |
tar -x -C /tmp/main``), and each in turn is sent the huge document's ``didOpen``, then a hover on a
small document right behind it, then ``didClose`` (which stops its check). Prints each build's
latencies, median first; a ratio, not pass or fail (the issue's target is 100 ms).

    python benchmarks/lsp_behind_big.py --other /tmp/main [--rounds 6] [--lines 1000000]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
import time
from pathlib import Path

from lsp_edit import WAIT, Editor, start, stop, training_file
from lsprotocol import types

PAUSE = 1.0
"""Seconds between two opens: the closed document's checking process is gone by then."""


async def _hover(editor: Editor, uri: str) -> float:
    began = time.perf_counter()
    await editor.client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=3, character=4)
        )
    )
    return time.perf_counter() - began


async def _started(root: Path, small: Path, source_tree: str | None) -> Editor:
    """A server importing ``errknow_ls`` from ``source_tree`` (None: this checkout), ``small`` open."""
    saved = os.environ.get("PYTHONPATH")
    if source_tree:
        os.environ["PYTHONPATH"] = source_tree
    try:
        editor = await start("errknow", root)
    finally:
        os.environ.pop("PYTHONPATH", None)
        if saved is not None:
            os.environ["PYTHONPATH"] = saved
    opened = editor.expect(small.as_uri(), 1)
    editor.client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=small.as_uri(), language_id="python", version=1, text=small.read_text(encoding="utf-8")
            )
        )
    )
    await asyncio.wait_for(opened, WAIT)
    await _hover(editor, small.as_uri())
    return editor


async def main(other: str, rounds: int, lines: int) -> None:
    with tempfile.TemporaryDirectory() as directory:
        root = Path(directory)
        small, huge = root / "small.py", root / "huge.py"
        small.write_text(training_file(200), encoding="utf-8")
        text = training_file(lines)
        huge.write_text(text, encoding="utf-8")
        editors = {
            "this checkout": await _started(root, small, None),
            other: await _started(root, small, other),
        }
        latencies: dict[str, list[float]] = {name: [] for name in editors}
        try:
            for version in range(1, rounds + 1):
                for name, editor in editors.items():
                    editor.client.text_document_did_open(
                        types.DidOpenTextDocumentParams(
                            text_document=types.TextDocumentItem(
                                uri=huge.as_uri(), language_id="python", version=version, text=text
                            )
                        )
                    )
                    latencies[name].append(await _hover(editor, small.as_uri()))
                    editor.client.text_document_did_close(
                        types.DidCloseTextDocumentParams(
                            text_document=types.TextDocumentIdentifier(uri=huge.as_uri())
                        )
                    )
                    await _hover(editor, small.as_uri())
                    await asyncio.sleep(PAUSE)
        finally:
            for editor in editors.values():
                await stop(editor)
        size = len(text.encode()) / 1e6
        for name, found in latencies.items():
            ms = sorted(round(latency * 1000) for latency in found)
            median = statistics.median(ms)
            print(
                f"{name}: the hover right behind the {size:.0f} MB didOpen, {len(ms)} opens: "
                f"median {median:.0f} ms ({median / 100:.1f}x the 100 ms target), all {ms}",
                flush=True,
            )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--other", required=True, help="a source tree holding the other errknow_ls")
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--lines", type=int, default=1_000_000)
    arguments = parser.parse_args()
    asyncio.run(main(arguments.other, arguments.rounds, arguments.lines))
