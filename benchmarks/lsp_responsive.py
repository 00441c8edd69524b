"""How responsive `errknow-ls serve` stays while it checks a huge document.

Opens a small training file and a generated one of ``--lines`` lines (default 1,000,000), then
hovers on the small file every ``--every`` seconds until the huge one's diagnostics arrive; then
edits one line of the huge file (which makes the check in flight stale) and hovers again until the
new version is published. Prints the worst and median hover latency in each phase, how long each
check of the huge file took, and the ratio of the worst hover to the 100 ms the issue asks for.

The first hover of each phase is sent right behind the message that opens (31 MB) or edits the huge
file, in the same ordered stream: it waits for that message to be read and decoded, which no server
can skip. It is printed apart; "during the check" is every hover after it.

    python benchmarks/lsp_responsive.py [--lines 1000000] [--every 0.05]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from lsp_edit import WAIT, Editor, start, stop, training_file
from lsprotocol import types

TARGET = 0.1


async def _hovers_until(editor: Editor, uri: str, done: asyncio.Future[float], every: float) -> list[float]:
    latencies = []
    while not done.done():
        began = time.perf_counter()
        await editor.client.text_document_hover_async(
            types.HoverParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                position=types.Position(line=3, character=4),
            )
        )
        latencies.append(time.perf_counter() - began)
        await asyncio.sleep(every)
    return latencies


def _report(phase: str, latencies: list[float], took: float) -> None:
    first, during = latencies[0], latencies[1:] or latencies
    worst = max(during)
    print(
        f"{phase}: check {took:.1f} s; the hover behind the message {first * 1000:.0f} ms; "
        f"{len(during)} hovers on another document during the check, "
        f"median {statistics.median(during) * 1000:.0f} ms, worst {worst * 1000:.0f} ms "
        f"({worst / TARGET:.2f}x the {TARGET * 1000:.0f} ms target)",
        flush=True,
    )


async def main(lines: int, every: float) -> None:
    with tempfile.TemporaryDirectory() as directory:
        root = Path(directory)
        small, huge = root / "small.py", root / "huge.py"
        small_text, huge_text = training_file(200), training_file(lines)
        small.write_text(small_text, encoding="utf-8")
        huge.write_text(huge_text, encoding="utf-8")
        editor = await start("errknow", root)
        try:
            opened = editor.expect(small.as_uri(), 1)
            editor.client.text_document_did_open(
                types.DidOpenTextDocumentParams(
                    text_document=types.TextDocumentItem(
                        uri=small.as_uri(), language_id="python", version=1, text=small_text
                    )
                )
            )
            await asyncio.wait_for(opened, WAIT)
            checked = editor.expect(huge.as_uri(), 1)
            began = time.perf_counter()
            editor.client.text_document_did_open(
                types.DidOpenTextDocumentParams(
                    text_document=types.TextDocumentItem(
                        uri=huge.as_uri(), language_id="python", version=1, text=huge_text
                    )
                )
            )
            latencies = await _hovers_until(editor, small.as_uri(), checked, every)
            _report(f"open ({huge_text.count(chr(10)):,} lines)", latencies, await checked - began)
            rechecked = editor.expect(huge.as_uri(), 3)
            began = time.perf_counter()
            for version in (2, 3):  # the second edit makes the first one's check stale
                editor.client.text_document_did_change(
                    types.DidChangeTextDocumentParams(
                        text_document=types.VersionedTextDocumentIdentifier(
                            uri=huge.as_uri(), version=version
                        ),
                        content_changes=[
                            types.TextDocumentContentChangePartial(
                                range=types.Range(
                                    start=types.Position(line=lines // 2, character=0),
                                    end=types.Position(line=lines // 2, character=0),
                                ),
                                text="# edited\n",
                            )
                        ],
                    )
                )
            latencies = await _hovers_until(editor, small.as_uri(), rechecked, every)
            _report("two edits", latencies, await rechecked - began)
        finally:
            await stop(editor)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, default=1_000_000)
    parser.add_argument("--every", type=float, default=0.05)
    arguments = parser.parse_args()
    asyncio.run(main(arguments.lines, arguments.every))
