"""`errknow-ls serve` against `ruff server` on the same generated training files, in the same run.

Measures, for each server, over stdio with push diagnostics (the client lists no pull support, so
ruff pushes too):

- start -> first diagnostics: spawn, initialize, open the file, first ``publishDiagnostics``; for
  errknow also with the file already in the project's results cache (``errknow-ls check`` ran there
  first: the server publishes what the cache holds, then confirms it), and for
  ``jedi-language-server`` (another pygls server: the floor of the stack) when ``--jedi`` names it
  or it is on PATH (install it into a throwaway venv: it is no dependency of ours);
- edit -> diagnostics: typing one character into code in the middle of the file (an incremental
  change), until the ``publishDiagnostics`` of that version arrives (median and p90);
- memory: RSS of the server process with 2,000 files open, once all were published, and with one
  file open (what the server holds before the files).

    python benchmarks/lsp_edit.py [--sizes 5000 20000] [--edits 40] [--open 2000] [--jedi PATH] [--profile]

Prints figures and ratios (errknow / ruff), not pass or fail. Target (issue 4): edit -> diagnostics
on a 5,000-line file no slower than ruff server. ``--profile`` adds where errknow's time goes for
one check of the 5,000-line file (cProfile, in process).
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import io
import os
import pstats
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psutil  # type: ignore[import-untyped]  # no stubs in the test extra
from lsprotocol import types
from pygls.lsp.client import LanguageClient
from pygls.protocol import LanguageServerProtocol

RUFF = Path(sys.executable).with_name("ruff")
SERVERS: dict[str, list[str]] = {
    "errknow": [sys.executable, "-m", "errknow_ls", "serve"],
    "ruff": [str(RUFF), "server"],
}
OTHERS: dict[str, list[str]] = {}
"""Servers whose start alone is measured (jedi-language-server: another pygls server)."""
WARMUP_EDITS = 3
WAIT = 120.0

BLOCK = '''\


class Encoder{n}(nn.Module):
    """Block {n}: a small encoder, its data, and a training loop."""

    def __init__(self, dim: int = 64) -> None:
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        hidden = torch.relu(self.proj(x))
        hidden = self.norm(hidden + x)
        return self.head(hidden)


class Samples{n}(torch.utils.data.Dataset):
    def __init__(self, size: int) -> None:
        self.x = torch.randn(size, 64)
        self.y = torch.randint(0, 10, (size,))

    def __len__(self) -> int:
        return len(self.x)

    def __getitem__(self, index: int) -> tuple[torch.Tensor, torch.Tensor]:
        return self.x[index], self.y[index]


def evaluate{n}(model: nn.Module, loader: DataLoader) -> float:
    correct = 0
    with torch.no_grad():
        for x, y in loader:
            correct += int((model(x).argmax(dim=1) == y).sum())
    return correct / max(1, len(loader.dataset))


def train{n}(epochs: int = 2, lr: float = 0.01) -> float:
    model = Encoder{n}()
    loader = DataLoader(Samples{n}(256), batch_size=32, shuffle=True)
    opt = torch.optim.AdamW(model.parameters(), lr=lr)
    for epoch in range(epochs):
        for x, y in loader:
            opt.zero_grad()
            logits = model(x)
            loss = F.cross_entropy(logits, y)
            loss.backward()
            opt.step(){bug}
    return evaluate{n}(model, loader)
'''
BUG = """
        extra = logits.pow(2).mean()
        loss.backward()"""
HEADER = '''\
"""A generated training module: encoders, datasets, loops (benchmarks/lsp_edit.py)."""

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader
'''


def training_file(lines: int) -> str:
    """About ``lines`` lines of training code; every 25th loop backwards a freed graph (EK001)."""
    parts = [HEADER]
    count = HEADER.count("\n")
    n = 0
    while count < lines:
        block = BLOCK.format(n=n, bug=BUG if n % 25 == 7 else "")
        parts.append(block)
        count += block.count("\n")
        n += 1
    return "".join(parts)


# --------------------------------------------------------------------------- a minimal editor


class _Protocol(LanguageServerProtocol):
    """Takes the initialize result as plain JSON: lsprotocol cannot read the notebook selector
    ruff server sends (and the benchmark needs nothing from the result)."""

    def get_result_type(self, method: str) -> Any:  # type: ignore[override]
        return None if method == types.INITIALIZE else super().get_result_type(method)


@dataclass
class Editor:
    """An LSP client that waits for the publishDiagnostics of given document versions."""

    client: LanguageClient
    waiting: dict[tuple[str, int | None], asyncio.Future[float]] = field(default_factory=dict)
    first: dict[str, float] = field(default_factory=dict)
    versions: dict[str, int] = field(default_factory=dict)

    def published(self, params: types.PublishDiagnosticsParams) -> None:
        now = time.perf_counter()
        self.first.setdefault(params.uri, now)
        for key in ((params.uri, params.version), (params.uri, None)):
            future = self.waiting.pop(key, None)
            if future is not None and not future.done():
                future.set_result(now)

    def expect(self, uri: str, version: int | None) -> asyncio.Future[float]:
        future: asyncio.Future[float] = asyncio.get_running_loop().create_future()
        self.waiting[(uri, version)] = future
        return future


def _capabilities() -> types.ClientCapabilities:
    return types.ClientCapabilities(
        general=types.GeneralClientCapabilities(position_encodings=[types.PositionEncodingKind.Utf16]),
        text_document=types.TextDocumentClientCapabilities(
            synchronization=types.TextDocumentSyncClientCapabilities(),
            publish_diagnostics=types.PublishDiagnosticsClientCapabilities(version_support=True),
        ),
        workspace=types.WorkspaceClientCapabilities(configuration=True, workspace_folders=True),
        window=types.WindowClientCapabilities(work_done_progress=False),
    )


async def start(name: str, root: Path) -> Editor:
    client = LanguageClient("lsp-edit-bench", "1", protocol_cls=_Protocol)
    editor = Editor(client)
    # a plain function: pygls tags what it registers with attributes, which a bound method refuses
    client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)(lambda params: editor.published(params))  # noqa: PLW0108
    client.feature(types.WORKSPACE_CONFIGURATION)(lambda params: [None for _ in params.items])
    client.feature(types.CLIENT_REGISTER_CAPABILITY)(lambda _params: None)
    client.feature(types.WINDOW_LOG_MESSAGE)(lambda _params: None)
    client.feature(types.WINDOW_SHOW_MESSAGE)(lambda _params: None)
    command = {**SERVERS, **OTHERS}[name]
    await client.start_io(command[0], *command[1:], cwd=str(root))
    options = {"scanWorkspace": False} if name == "errknow" else None
    await client.initialize_async(
        types.InitializeParams(
            capabilities=_capabilities(),
            process_id=os.getpid(),
            root_uri=root.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="bench")],
            initialization_options=options,
        )
    )
    client.initialized(types.InitializedParams())
    return editor


async def stop(editor: Editor) -> None:
    client = editor.client
    with_timeout = asyncio.wait_for(client.shutdown_async(None), WAIT)
    try:
        await with_timeout
        client.exit(None)
    except Exception as exc:  # report and move on: the numbers so far still stand
        print(f"  (shutdown failed: {exc})", file=sys.stderr)
    server = client._server
    if server is not None:
        try:
            await asyncio.wait_for(server.wait(), 10)
        except TimeoutError:
            server.kill()
    await client.stop()  # type: ignore[no-untyped-call]


def open_file(editor: Editor, path: Path) -> str:
    uri = path.as_uri()
    editor.versions[uri] = 1
    editor.client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=uri, language_id="python", version=1, text=path.read_text(encoding="utf-8")
            )
        )
    )
    return uri


def edit(editor: Editor, uri: str, line: int, column: int, insert: bool) -> asyncio.Future[float]:
    """Type one character into the code at (line, column), or delete it again."""
    editor.versions[uri] += 1
    version = editor.versions[uri]
    start = types.Position(line, column)
    end = types.Position(line, column + (0 if insert else 1))
    change = types.TextDocumentContentChangePartial(range=types.Range(start, end), text="x" if insert else "")
    future = editor.expect(uri, version)
    editor.client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[change],
        )
    )
    return future


# --------------------------------------------------------------------------- measurements


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def fill_results_cache(path: Path) -> None:
    """``errknow-ls check`` on the file, in its folder: the results cache the server reads."""
    subprocess.run(
        [sys.executable, "-m", "errknow_ls", "check", path.name],
        cwd=path.parent,
        capture_output=True,
        check=False,
    )
    if not list(path.parent.glob(".errknow_cache/*/*.json")):
        sys.exit(f"errknow-ls check wrote no results cache in {path.parent}")


async def first_diagnostics(name: str, path: Path) -> float:
    """Seconds from spawning the server to the first publishDiagnostics of ``path``."""
    began = time.perf_counter()
    editor = await start(name, path.parent)
    uri = path.as_uri()
    future = editor.expect(uri, 1)
    open_file(editor, path)
    arrived = await asyncio.wait_for(future, WAIT)
    await stop(editor)
    return arrived - began


async def edit_latencies(name: str, path: Path, edits: int) -> list[float]:
    """Seconds from each didChange to the publishDiagnostics of its version."""
    editor = await start(name, path.parent)
    uri = path.as_uri()
    opened = editor.expect(uri, 1)
    open_file(editor, path)
    await asyncio.wait_for(opened, WAIT)
    lines = path.read_text(encoding="utf-8").splitlines()
    middle = len(lines) // 2
    line = next(i for i in range(middle, len(lines)) if "batch_size=32" in lines[i])
    column = lines[line].index("batch_size=32") + len("batch_size=32")  # typing: 32 -> 32x -> 32
    latencies = []
    for index in range(edits + WARMUP_EDITS):
        sent = time.perf_counter()
        arrived = await asyncio.wait_for(edit(editor, uri, line, column, insert=index % 2 == 0), WAIT)
        if index >= WARMUP_EDITS:
            latencies.append(arrived - sent)
    await stop(editor)
    return latencies


async def rss_with_open_files(name: str, directory: Path, files: list[Path]) -> int:
    """Bytes of RSS with every file open and published (the server process and its children)."""
    editor = await start(name, directory)
    pending = [editor.expect(path.as_uri(), 1) for path in files]
    for path in files:
        open_file(editor, path)
    await asyncio.wait_for(asyncio.gather(*pending), WAIT * 5)
    server = editor.client._server
    assert server is not None
    process = psutil.Process(server.pid)
    rss: int = process.memory_info().rss
    rss += sum(child.memory_info().rss for child in process.children(recursive=True))
    await stop(editor)
    return rss


def profile_check(text: str) -> str:
    """Where errknow's time goes for one check, conversion to LSP diagnostics included."""
    # Only this mode profiles the server's own checking; the others drive a server process.
    from errknow_ls.lsp.checking import Analyzer  # noqa: PLC0415
    from errknow_ls.lsp.snapshots import Snapshot  # noqa: PLC0415

    analyzer = Analyzer()
    snapshot = Snapshot.of_text("file:///bench.py", 1, text)
    analyzer.run(snapshot)  # warm
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(3):
        analyzer.run(snapshot)
    profiler.disable()
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats("cumulative").print_stats(25)
    return out.getvalue()


def show(label: str, errknow: float, ruff: float, unit: Callable[[float], str]) -> None:
    ratio = errknow / ruff if ruff else float("inf")
    print(f"  {label:<34} errknow {unit(errknow):>10}   ruff {unit(ruff):>10}   ratio {ratio:5.2f}x")


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def mib(size: float) -> str:
    return f"{size / 2**20:.0f} MiB"


async def main_async(args: argparse.Namespace) -> None:
    work = Path(tempfile.mkdtemp(prefix="lsp-edit-bench-"))
    try:
        for size in args.sizes:
            directory = work / f"lines{size}"
            directory.mkdir()
            path = directory / "train.py"
            path.write_text(training_file(size), encoding="utf-8")
            print(f"\n{size}-line training file ({path.stat().st_size // 1024} KiB)")
            starts = {
                name: [await first_diagnostics(name, path) for _ in range(args.starts)] for name in SERVERS
            }
            cold, ruff_start = statistics.median(starts["errknow"]), statistics.median(starts["ruff"])
            show("start -> first diagnostics (median)", cold, ruff_start, ms)
            fill_results_cache(path)
            cached = statistics.median([await first_diagnostics("errknow", path) for _ in range(args.starts)])
            shutil.rmtree(directory / ".errknow_cache")
            show("  the same, the cache knows the file", cached, ruff_start, ms)
            if "jedi" in OTHERS:
                jedi = statistics.median([await first_diagnostics("jedi", path) for _ in range(args.starts)])
                print(
                    f"  {'jedi-language-server start':<34} jedi    {ms(jedi):>10}   "
                    f"errknow / jedi: cold {cold / jedi:4.2f}x, cached {cached / jedi:4.2f}x"
                )
            count = args.edits if size <= 5000 else max(5, args.edits // 4)
            edits = {name: await edit_latencies(name, path, count) for name in SERVERS}
            for label, share in (("edit -> diagnostics median", 0.5), ("edit -> diagnostics p90", 0.9)):
                show(label, percentile(edits["errknow"], share), percentile(edits["ruff"], share), ms)
        many = work / "many"
        many.mkdir()
        files = []
        for index in range(args.open):
            file = many / f"module_{index}.py"
            file.write_text(training_file(150).replace("Encoder0", f"Encoder{index}"), encoding="utf-8")
            files.append(file)
        print(f"\n{args.open} files open (about 150 lines each)")
        rss = {name: await rss_with_open_files(name, many, files) for name in SERVERS}
        show("RSS", rss["errknow"], rss["ruff"], mib)
        # What each server holds before the files: for errknow, what Python, pygls and lsprotocol,
        # the checker and the records take (the floor under the figure above).
        alone = {name: await rss_with_open_files(name, many, files[:1]) for name in SERVERS}
        show("RSS, one file open", alone["errknow"], alone["ruff"], mib)
        added = {name: rss[name] - alone[name] for name in SERVERS}
        show("RSS added by the other files", added["errknow"], added["ruff"], mib)
        if args.profile:
            print("\nerrknow: one check of the 5,000-line file, by cumulative time (3 runs)")
            print(profile_check(training_file(5000)))
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main() -> None:
    # Installed packages run from compiled bytecode; a shell with PYTHONDONTWRITEBYTECODE would
    # make every errknow-ls process compile its modules again (tens of ms a start).
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", type=int, nargs="+", default=[5000, 20000])
    parser.add_argument(
        "--edits", type=int, default=40, help="edits per server (a quarter above 5,000 lines)"
    )
    parser.add_argument("--starts", type=int, default=3)
    parser.add_argument("--open", type=int, default=2000)
    parser.add_argument("--profile", action="store_true")
    parser.add_argument(
        "--jedi", type=Path, help="jedi-language-server's executable (default: on PATH, if there)"
    )
    args = parser.parse_args()
    if not RUFF.exists():
        sys.exit(f"ruff not found next to {sys.executable}: pip install ruff")
    jedi = args.jedi or shutil.which("jedi-language-server")
    print(f"errknow: {' '.join(SERVERS['errknow'])}\nruff:    {' '.join(SERVERS['ruff'])}")
    if jedi:
        print(f"jedi:    {jedi}")
    else:
        print("jedi:    not found (--jedi PATH): no comparison with another pygls server")
    if jedi:
        OTHERS["jedi"] = [str(jedi)]
    asyncio.run(main_async(args))


if __name__ == "__main__":
    main()
