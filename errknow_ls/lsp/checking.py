"""Checking a document version off the event loop: snapshots in, diagnostics in client units out.

A :class:`Snapshot` is what is checked as one program: a text document, or a notebook's code
cells top to bottom. Checking is pure (it runs in a worker thread on immutable data); only the
event loop touches the workspace and the client.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import itertools
import logging
import multiprocessing
import os
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, field, replace
from multiprocessing.connection import Connection
from multiprocessing.context import ForkServerContext, SpawnContext
from multiprocessing.synchronize import Event as EventType
from pathlib import Path
from typing import TYPE_CHECKING, Generic, TypeVar

from lsprotocol import types
from pygls.uris import to_fs_path
from pygls.workspace import Workspace

from errknow_ls.analysis.cells import CellProgram
from errknow_ls.analysis.source import HUGE
from errknow_ls.core import Finding, Position, Span
from errknow_ls.core.findings import read_limit_note
from errknow_ls.lsp import convert
from errknow_ls.lsp.snapshots import Part, Snapshot, State, snapshot_of
from errknow_ls.project import RuleSelection
from errknow_ls.project.modules import ProjectModules
from errknow_ls.project.summaries import disk_summaries

if TYPE_CHECKING:
    from errknow_ls.analysis import Cache, CheckResult

log = logging.getLogger(__name__)
T = TypeVar("T")
_SERIALS = itertools.count(1)
ISOLATED_CHARS = HUGE
"""A snapshot this large (some 30,000 lines) is checked in a process kept for its document (see
:class:`_Keeper`): the server's own process stays free to answer. Checked in a worker thread, the
1.5 MB of such a text parsed as one unit held the interpreter's lock 4.3 s (at a load average of 9),
and no request was answered meanwhile."""


@dataclass(frozen=True, slots=True)
class Result:
    """The findings of one document version, and their diagnostics in the client's units."""

    uri: str
    version: int | None
    generation: int
    """Which settings and records produced it (see :class:`Analyzer`)."""
    findings: tuple[Finding, ...]
    diagnostics: tuple[types.Diagnostic, ...]
    """One per finding, in their order, then one per limit that stopped the checker (``Note``)."""
    encoded: str = "[]"
    """``diagnostics`` as JSON (``convert.encode_diagnostics``): what publishing sends."""
    serial: int = field(default_factory=lambda: next(_SERIALS))
    """Unique per result: the ``resultId`` of pull diagnostics."""
    read: tuple[str, ...] = ()
    """The project's modules the check read, and the entries its imports looked for and did not
    find, by real path: it is checked again when one changes, or is made or removed."""


class CheckerCache:
    """The checker's cache, made by the first check: the checker is imported then, not when the
    server starts (what the results cache knows is published before it is needed)."""

    def __init__(self, make: Callable[[], Cache] | None = None) -> None:
        self._cache: Cache | None = None
        self._make = make
        self._lock = threading.Lock()

    def get(self) -> Cache:
        with self._lock:
            if self._cache is None:
                from errknow_ls.analysis import Cache  # noqa: PLC0415 (see the docstring)

                self._cache = Cache() if self._make is None else self._make()
            return self._cache


def _localized(finding: Finding, language: str) -> Finding:
    from errknow_ls.analysis.rules import localized  # noqa: PLC0415 (loads the rules: see ``CheckerCache``)

    return localized(finding, language)


@dataclass(frozen=True, slots=True)
class Analyzer:
    """Everything a check depends on besides the text; a new one (next generation) on each change."""

    generation: int = 0
    encoding: str = types.PositionEncodingKind.Utf16
    rules: Callable[[str], RuleSelection] = field(default=lambda _uri: RuleSelection())
    """The rules for a document or notebook URI (its project's)."""
    roots: Callable[[str], tuple[Path, ...]] = field(default=lambda _uri: ())
    """The import roots of a document's project (none outside the workspace's folders)."""
    doc_urls: Mapping[str, str] = field(default_factory=dict)
    """Record id -> its documentation URL."""
    language: str = "en"
    """The language findings are told in (``en`` or ``zh``)."""
    cache: CheckerCache = field(default_factory=CheckerCache, compare=False)
    """Parsed chunks and checked units, by content: kept from one generation to the next."""
    summaries: Callable[[str], Path | None] = field(default=lambda _uri: None)
    """The cache directory of a document's project, where the summaries of the project's functions
    are kept (``errknow_ls.project.summaries``, as ``check`` keeps them); None: in memory only."""

    def run(self, snapshot: Snapshot) -> list[Result]:
        rules = self.rules(snapshot.key)
        if snapshot.notebook:
            return self._run_cells(snapshot, rules)
        results = []
        for part in snapshot.parts:
            checked = self._check(part.text, rules, part.uri, self._modules(part.uri, snapshot))
            read = tuple(dict.fromkeys(path for dependency in checked.read for path in dependency.paths()))
            results.append(
                self._result(part, checked.findings, limit_notes(checked.errors), rules, read=read)
            )
        return results

    def result_of(self, part: Part, findings: Sequence[Finding], errors: Sequence[str]) -> Result:
        """What a check of ``part`` here would give, from findings made elsewhere (the results
        cache ``check`` shares): told in this analyzer's language, converted to the client's units."""
        findings = [_localized(f, self.language) for f in findings]
        return self._result(part, findings, limit_notes(errors), self.rules(part.uri))

    def _modules(self, uri: str, snapshot: Snapshot) -> ProjectModules | None:
        """The project's modules as a file imports them, the open documents' texts first; none for
        a document that is no file (an untitled buffer), like ``check`` on standard input."""
        path = to_fs_path(uri) if uri.startswith("file:") else None
        if not path:
            return None
        directory = self.summaries(uri)
        kept = disk_summaries(directory) if directory is not None else None
        return ProjectModules.for_file(Path(path), self.roots(uri), snapshot.unsaved, summaries=kept)

    def _run_cells(self, snapshot: Snapshot, rules: RuleSelection) -> list[Result]:
        program = CellProgram.join([part.text for part in snapshot.parts])
        per_part: list[list[Finding]] = [[] for _ in snapshot.parts]
        notes_per_part: list[list[Note]] = [[] for _ in snapshot.parts]
        related: dict[int, list[types.DiagnosticRelatedInformation]] = {}
        # Cells import no project modules, as ``check`` reads a notebook.
        checked = self._check(program.text, rules, snapshot.key)
        findings, notes = checked.findings, limit_notes(checked.errors)
        for finding in findings:
            index, moved = program.to_cell(program.name_cells(finding))
            related[id(moved)] = self._related_across(snapshot, program, finding)
            per_part[index].append(moved)
        for line, message in notes:
            index, span = program.locate(Span(Position(line, 0), Position(line, 0)))
            notes_per_part[index].append((span.start.line, message))
        return [
            self._result(part, found, noted, rules, related=related)
            for part, found, noted in zip(snapshot.parts, per_part, notes_per_part, strict=True)
        ]

    def _check(
        self, text: str, rules: RuleSelection, document: str, modules: ProjectModules | None = None
    ) -> CheckResult:
        from errknow_ls.analysis import check_source  # noqa: PLC0415 (see ``CheckerCache``)

        result = check_source(
            text,
            select=rules.select,
            ignore=rules.ignored(),
            cache=self.cache.get(),
            document=document,
            modules=modules,
        )
        return dataclasses.replace(result, findings=[_localized(f, self.language) for f in result.findings])

    def _related_across(
        self, snapshot: Snapshot, program: CellProgram, finding: Finding
    ) -> list[types.DiagnosticRelatedInformation]:
        related = []
        for item in finding.related:
            index, span = program.locate(item.span)
            part = snapshot.parts[index]
            positions = convert.Positions(part.text, self.encoding)
            location = types.Location(uri=part.uri, range=positions.to_range(span))
            related.append(types.DiagnosticRelatedInformation(location=location, message=item.message))
        return related

    def _result(
        self,
        part: Part,
        findings: list[Finding],
        notes: list[Note],
        rules: RuleSelection,
        *,
        related: Mapping[int, list[types.DiagnosticRelatedInformation]] | None = None,
        read: tuple[str, ...] = (),
    ) -> Result:
        positions = convert.Positions(part.text, self.encoding)
        diagnostics = []
        for finding in findings:
            severity = rules.severity_of(finding.code, finding.name)
            diagnostics.append(
                convert.to_diagnostic(
                    part.uri,
                    part.version,
                    positions,
                    finding,
                    doc_url=self.doc_urls.get(finding.record_id),
                    severity=convert.SETTING_SEVERITIES.get(severity or ""),
                    related=related.get(id(finding)) if related else None,
                )
            )
        diagnostics += [convert.limit_diagnostic(positions, line, message) for line, message in notes]
        encoded = convert.encode_diagnostics(diagnostics)
        return Result(
            part.uri, part.version, self.generation, tuple(findings), tuple(diagnostics), encoded, read=read
        )


Note = tuple[int, str]
"""Where a limit stopped the checker (a 0-based line), and what it says."""


def limit_notes(errors: Sequence[str]) -> list[Note]:
    """The checker's limit notes (its other errors are not the user's to see here), each on its
    line; one that names no line (the module's, or "N more functions") on the first."""
    notes = []
    for error in errors:
        read = read_limit_note(error)
        if read is not None:
            line, message = read
            notes.append((max(0, (line or 1) - 1), message))
    return notes


Key = tuple[State, int, int]
"""A snapshot's state (its version and its parts': a notebook's own version does not move when a
cell is edited), the analyzer generation that checked it, and its epoch (how many times the modules
it read had changed)."""


class StaleCheck(Exception):
    """The check was stopped: a newer version of its document was asked for, or it closed."""


TEXT_CHUNK_BYTES = 1 << 20
"""A large document, and the open modules' texts it may read, go to its checking process in pieces
this big: each piece holds the GIL only while it is encoded, and the event loop runs between them
(one pickle of 30 MB held it 0.1 s; the open modules' texts, the document's own among them, went
as one pickle until they too were sent this way)."""


def _keep_checking(requests: Connection, replies: Connection, stop: EventType) -> None:
    """In the child process: one check after another of one large document, each request the
    snapshot bare and the texts ``sent`` describes after it; a check asked to stop (``stop``, set
    by the server) is answered None. The checker's cache, made for the document's size at its first
    check, stays from one check to the next."""
    os.dup2(os.open(os.devnull, os.O_WRONLY), 1)  # the server's stdout is the client's: never ours
    kept: CheckerCache | None = None
    while True:
        try:
            analyzer, snapshot, sent = requests.recv()
            received = [_receive_text(requests) for _ in range(sent.count)]
        except (EOFError, OSError):
            return  # the server ended us, or itself
        parts = tuple(
            dataclasses.replace(part, text=received[index])
            for part, index in zip(snapshot.parts, sent.parts, strict=True)
        )
        unsaved = {key: received[index] for key, index in sent.unsaved.items()}
        if kept is None:
            lines = sum(part.text.count("\n") + 1 for part in parts)
            kept = CheckerCache(functools.partial(_document_cache, lines, stop.is_set))
        checker = Analyzer(
            analyzer.generation,
            analyzer.encoding,
            analyzer.rules,
            analyzer.roots,
            analyzer.doc_urls,
            analyzer.language,
            cache=kept,
            summaries=analyzer.summaries,
        )
        from errknow_ls.analysis import CheckStopped  # noqa: PLC0415 (see ``CheckerCache``)

        runs = kept.get().runs
        try:
            found: list[Result] | None = checker.run(
                dataclasses.replace(snapshot, parts=parts, unsaved=unsaved)
            )
        except CheckStopped:
            found = None
        try:
            replies.send((found, kept.get().runs - runs))
        except OSError:
            return


def _document_cache(lines: int, stop: Callable[[], bool]) -> Cache:
    from errknow_ls.analysis import Cache  # noqa: PLC0415 (see ``CheckerCache``)

    cache = Cache.for_one_document(lines)
    cache.stop_requested = stop
    return cache


@dataclass(frozen=True, slots=True)
class _SentTexts:
    """Which of the texts sent down the pipe, in their order, is each part's and each unsaved
    module's: the snapshot itself goes to the child bare, and a text it holds twice (a document's
    own, among the open modules' too) is sent once."""

    count: int
    parts: tuple[int, ...]
    unsaved: dict[str, int]

    @staticmethod
    def of(snapshot: Snapshot) -> tuple[_SentTexts, list[str]]:
        """What to tell the child, and the texts to send it, in order."""
        texts: list[str] = []
        index: dict[int, int] = {}

        def slot(text: str) -> int:
            at = index.get(id(text))  # the snapshot holds every text: no id is reused meanwhile
            if at is None:
                at = index[id(text)] = len(texts)
                texts.append(text)
            return at

        parts = tuple(slot(part.text) for part in snapshot.parts)
        unsaved = {key: slot(text) for key, text in snapshot.unsaved.items()}
        return _SentTexts(len(texts), parts, unsaved), texts


def _send_text(texts: Connection, text: str) -> None:
    for start in range(0, len(text), TEXT_CHUNK_BYTES):
        texts.send_bytes(text[start : start + TEXT_CHUNK_BYTES].encode("utf-8", "surrogatepass"))
    texts.send_bytes(b"")


def _receive_text(texts: Connection) -> str:
    chunks = []
    while chunk := texts.recv_bytes():
        chunks.append(chunk.decode("utf-8", "surrogatepass"))
    return "".join(chunks)


@dataclass(frozen=True, slots=True)
class _Sent:
    """What a child process needs of the analyzer: all but the parse cache (which has a lock)."""

    generation: int
    encoding: str
    rules: _Fixed[RuleSelection]
    roots: _Fixed[tuple[Path, ...]]
    doc_urls: dict[str, str]
    language: str
    summaries: _Fixed[Path | None]


@dataclass(frozen=True, slots=True)
class _Fixed(Generic[T]):
    """What one document's resolver gave, resolved in the server (a resolver is not sent to a child)."""

    value: T

    def __call__(self, _uri: str) -> T:
        return self.value


class _Keeper:
    """The process of its own that checks one large document, kept from one version's check to
    the next with the checker's cache it made for that document: an edit runs again only the units
    it reached (and those that found something below it). A check that goes stale is asked to stop
    between two units (what it ran stays in the cache, for the next); the process ends with the
    document, or the session. Started, fed and awaited by worker threads: starting a process (the
    fork server's first start imports the server's modules) and sending it the document never
    hold up the event loop."""

    def __init__(self) -> None:
        context = _context()
        self._requests_in, self._requests_out = context.Pipe(duplex=False)
        self._replies_in, self._replies_out = context.Pipe(duplex=False)
        self._stop = context.Event()
        self._process = context.Process(
            target=_keep_checking, args=(self._requests_in, self._replies_out, self._stop), daemon=True
        )
        self._one_at_a_time = threading.Lock()
        self._issued = 0
        self._stale = 0
        """Every check whose ticket is at most this one was stopped."""
        self._ended = False
        self.units_run = 0
        """How many of its units the last check ran (the others its cache knew)."""

    @property
    def died(self) -> bool:
        """Its process ended on its own (killed, out of memory): the next check needs another."""
        return self._process.pid is not None and not self._process.is_alive()

    def ticket(self) -> int:
        """On the event loop: the number of the next check asked of this process."""
        self._issued += 1
        return self._issued

    def run(self, ticket: int, analyzer: _Sent, snapshot: Snapshot) -> list[Result]:
        """In a worker thread: the check of ``snapshot``, after any check asked before it; StaleCheck
        if it was stopped first."""
        with self._one_at_a_time:
            self._stop.clear()
            if ticket <= self._stale or self._ended:  # looked at once cleared: a stop is never lost
                raise StaleCheck
            try:
                if self._process.pid is None:
                    self._process.start()
                    self._requests_in.close()
                    self._replies_out.close()
                sent, texts = _SentTexts.of(snapshot)
                bare = dataclasses.replace(
                    snapshot, parts=tuple(dataclasses.replace(p, text="") for p in snapshot.parts), unsaved={}
                )
                self._requests_out.send((analyzer, bare, sent))
                for text in texts:
                    _send_text(self._requests_out, text)
                received: list[Result] | None
                received, self.units_run = self._replies_in.recv()
            except (EOFError, OSError, ValueError):
                raise StaleCheck from None  # ended meanwhile
            if received is None or ticket <= self._stale:
                raise StaleCheck
            return received

    def stop(self) -> None:
        """On the event loop: every check asked so far is stale; the one running stops at its next
        unit."""
        self._stale = self._issued
        self._stop.set()

    def end(self) -> None:
        """On the event loop: the document closed, or the session ends."""
        self.stop()
        self._ended = True
        if self._process.is_alive():
            self._process.terminate()
        self._requests_out.close()


def _context() -> ForkServerContext | SpawnContext:
    # forkserver, not fork: the server has threads, and forking a process with threads can deadlock.
    if "forkserver" in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("forkserver")
    return multiprocessing.get_context("spawn")


class Checks:
    """The newest results per document, and at most one check in flight per document version.

    Asking for the results of a version already being checked waits for that check; asking for a
    newer version starts a new one (the older one still finishes, for whoever awaits it). Which
    documents read which of the project's modules is kept too (from each result's ``read``): when a
    module changes, the documents that read it are :meth:`invalidate`-d and checked again.
    """

    def __init__(self, executor: Executor | None = None) -> None:
        self.analyzer = Analyzer()
        self._executor = executor
        self._done: dict[str, tuple[Key, list[Result]]] = {}
        self._by_uri: dict[str, Result] = {}
        self._running: dict[str, tuple[Key, asyncio.Future[list[Result]]]] = {}
        self._keepers: dict[str, _Keeper] = {}
        """The process checking a large document, by document."""
        self._epochs: dict[str, int] = {}
        """By document: how many times a module it read changed (a stored result is then stale)."""
        self._readers: dict[str, set[str]] = {}
        """By module (real path): the documents whose last result read it."""
        self._read: dict[str, frozenset[str]] = {}
        """By document: the modules its last result read (the index above, the other way)."""

    def reconfigure(self, analyzer: Analyzer) -> None:
        """New settings or records: every stored result is stale from now on."""
        self.analyzer = analyzer

    def stored(self, uri: str) -> Result | None:
        """The last result for a document or cell, of whatever version."""
        return self._by_uri.get(uri)

    def stored_all(self) -> list[Result]:
        return list(self._by_uri.values())

    def snapshot(self, workspace: Workspace, uri: str, unsaved: Mapping[str, str]) -> Snapshot | None:
        """The open document (or notebook) as it is now, with its epoch and the open modules'
        ``unsaved`` texts; None once closed."""
        taken = snapshot_of(workspace, uri, unsaved)
        return None if taken is None else self.stamped(taken)

    def stamped(self, snapshot: Snapshot) -> Snapshot:
        """``snapshot`` with its document's epoch now."""
        return replace(snapshot, epoch=self._epochs.get(snapshot.key, 0))

    def readers(self, modules: Iterable[str]) -> set[str]:
        """The documents whose last result read one of ``modules`` (real paths)."""
        return {key for module in modules for key in self._readers.get(module, ())}

    def invalidate(self, key: str) -> None:
        """What the document's stored result was checked from changed (a module it read, or a
        closed file on disk): it stays until the next check of the document replaces it, and no
        longer answers for the document."""
        self._epochs[key] = self._epochs.get(key, 0) + 1

    def _index(self, key: str, results: list[Result]) -> None:
        """Which modules ``key``'s results read, replacing what its earlier results read."""
        for module in self._read.pop(key, ()):
            readers = self._readers.get(module)
            if readers is not None:
                readers.discard(key)
                if not readers:
                    del self._readers[module]
        read = frozenset(module for result in results for module in result.read)
        if read:
            self._read[key] = read
        for module in read:
            self._readers.setdefault(module, set()).add(key)

    def forget(self, key: str) -> None:
        """A document closed (or a file deleted): drop its results and any check in flight."""
        self._running.pop(key, None)
        self._end(key)
        _, results = self._done.pop(key, (None, []))
        for result in results:
            self._by_uri.pop(result.uri, None)
        self._by_uri.pop(key, None)
        self._index(key, [])
        self._epochs.pop(key, None)

    def key_of(self, snapshot: Snapshot) -> Key:
        return snapshot.state, self.analyzer.generation, snapshot.epoch

    async def results(self, snapshot: Snapshot) -> list[Result]:
        key = self.key_of(snapshot)
        done = self._done.get(snapshot.key)
        if done is not None and done[0] == key:
            return done[1]
        running = self._running.get(snapshot.key)
        if running is None or running[0] != key:
            self._stop(snapshot.key)  # a check of an older version goes stale
            future = self._start(snapshot)
            running = (key, future)
            self._running[snapshot.key] = running
            future.add_done_callback(lambda f: self._store(snapshot.key, running, f))
        return await asyncio.shield(running[1])

    def _start(self, snapshot: Snapshot) -> asyncio.Future[list[Result]]:
        loop = asyncio.get_running_loop()
        if sum(len(part.text) for part in snapshot.parts) < ISOLATED_CHARS:
            return loop.run_in_executor(self._executor, self.analyzer.run, snapshot)
        # What the child needs, and can be sent: this document's rules, and no parse cache.
        mine = self.analyzer
        analyzer = _Sent(
            mine.generation,
            mine.encoding,
            _Fixed(mine.rules(snapshot.key)),
            _Fixed(mine.roots(snapshot.key)),
            dict(mine.doc_urls),
            mine.language,
            _Fixed(mine.summaries(snapshot.key)),
        )
        keeper = self._keepers.get(snapshot.key)
        if keeper is None or keeper.died:
            keeper = self._keepers[snapshot.key] = _Keeper()
        return loop.run_in_executor(None, keeper.run, keeper.ticket(), analyzer, snapshot)

    def supersede(self, snapshot: Snapshot) -> None:
        """``snapshot`` is newer than what its document's check in flight checks: a check in a
        process of its own is stopped now (whoever awaits it gets StaleCheck and asks again); one in
        a worker thread, which cannot be stopped, finishes (a small document's check is short)."""
        running = self._running.get(snapshot.key)
        if running is not None and running[0] != self.key_of(snapshot):
            self._stop(snapshot.key)

    def stop_all(self) -> None:
        """The session ends: no child process outlives it (a thread waits for each one's results)."""
        for key in list(self._keepers):
            self._end(key)

    def _stop(self, key: str) -> None:
        keeper = self._keepers.get(key)
        if keeper is not None:
            log.info("the check of %s went stale: stopped", key)
            keeper.stop()

    def units_run(self, key: str) -> int | None:
        """How many units the last check of a large document ran (None for a small one)."""
        keeper = self._keepers.get(key)
        return None if keeper is None else keeper.units_run

    def _end(self, key: str) -> None:
        keeper = self._keepers.pop(key, None)
        if keeper is not None:
            keeper.end()

    def _store(
        self,
        key: str,
        running: tuple[Key, asyncio.Future[list[Result]]],
        future: asyncio.Future[list[Result]],
    ) -> None:
        if self._running.get(key) is not running:
            return  # a newer version was asked for meanwhile, or the document closed
        del self._running[key]
        if future.cancelled() or future.exception() is not None:
            return
        results = future.result()
        _, old = self._done.get(key, (None, []))
        for result in old:
            self._by_uri.pop(result.uri, None)
        self._done[key] = (running[0], results)
        for result in results:
            self._by_uri[result.uri] = result
        self._index(key, results)
