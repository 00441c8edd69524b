"""Checking a document version off the event loop: snapshots in, diagnostics in client units out.

A :class:`Snapshot` is what is checked as one program: a text document, or a notebook's code
cells top to bottom. Checking is pure (it runs in a worker thread on immutable data); only the
event loop touches the workspace and the client.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import multiprocessing
import os
from collections.abc import Callable, Mapping
from concurrent.futures import Executor
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from multiprocessing.context import ForkServerContext, SpawnContext
from multiprocessing.process import BaseProcess

from lsprotocol import types

from errknow_ls.analysis import Cache, check_source
from errknow_ls.analysis.cells import CellProgram
from errknow_ls.analysis.rules import localized
from errknow_ls.core import Finding
from errknow_ls.lsp import convert
from errknow_ls.lsp.snapshots import Part, Snapshot
from errknow_ls.project import RuleSelection

log = logging.getLogger(__name__)
_SERIALS = itertools.count(1)
ISOLATED_CHARS = 2_000_000
"""A snapshot this large (some 50,000 lines) is checked in a process of its own: the server's own
process stays free to answer, and a check that goes stale is stopped by ending that process."""


@dataclass(frozen=True, slots=True)
class Result:
    """The findings of one document version, and their diagnostics in the client's units."""

    uri: str
    version: int | None
    generation: int
    """Which settings and records produced it (see :class:`Analyzer`)."""
    findings: tuple[Finding, ...]
    diagnostics: tuple[types.Diagnostic, ...]
    serial: int = field(default_factory=lambda: next(_SERIALS))
    """Unique per result: the ``resultId`` of pull diagnostics."""

    @property
    def key(self) -> tuple[int | None, int]:
        return self.version, self.generation


@dataclass(frozen=True, slots=True)
class Analyzer:
    """Everything a check depends on besides the text; a new one (next generation) on each change."""

    generation: int = 0
    encoding: str = types.PositionEncodingKind.Utf16
    rules: Callable[[str], RuleSelection] = field(default=lambda _uri: RuleSelection())
    """The rules for a document or notebook URI (its project's)."""
    doc_urls: Mapping[str, str] = field(default_factory=dict)
    """Record id -> its documentation URL."""
    language: str = "en"
    """The language findings are told in (``en`` or ``zh``)."""
    cache: Cache = field(default_factory=Cache, compare=False)
    """Parsed chunks and checked units, by content: kept from one generation to the next."""

    def run(self, snapshot: Snapshot) -> list[Result]:
        rules = self.rules(snapshot.key)
        if snapshot.notebook:
            return self._run_cells(snapshot, rules)
        return [self._result(part, self._check(part.text, rules, part.uri), rules) for part in snapshot.parts]

    def _run_cells(self, snapshot: Snapshot, rules: RuleSelection) -> list[Result]:
        program = CellProgram.join([part.text for part in snapshot.parts])
        per_part: list[list[Finding]] = [[] for _ in snapshot.parts]
        related: dict[int, list[types.DiagnosticRelatedInformation]] = {}
        for finding in self._check(program.text, rules, snapshot.key):
            index, moved = program.to_cell(finding)
            related[id(moved)] = self._related_across(snapshot, program, finding)
            per_part[index].append(moved)
        return [
            self._result(part, found, rules, related)
            for part, found in zip(snapshot.parts, per_part, strict=True)
        ]

    def _check(self, text: str, rules: RuleSelection, document: str) -> list[Finding]:
        ignore = rules.ignored()
        result = check_source(text, select=rules.select, ignore=ignore, cache=self.cache, document=document)
        return [localized(finding, self.language) for finding in result.findings]

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
        rules: RuleSelection,
        related: Mapping[int, list[types.DiagnosticRelatedInformation]] | None = None,
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
        return Result(part.uri, part.version, self.generation, tuple(findings), tuple(diagnostics))


Key = tuple[int | None, int]
"""A snapshot's version and the analyzer generation that checked it."""


class StaleCheck(Exception):
    """The check was stopped: a newer version of its document was asked for, or it closed."""


def _check_isolated(results: Connection, analyzer: _Sent, snapshot: Snapshot) -> None:
    """In the child process: the check, sent back whole."""
    os.dup2(os.open(os.devnull, os.O_WRONLY), 1)  # the server's stdout is the client's: never ours
    results.send(
        Analyzer(
            analyzer.generation, analyzer.encoding, analyzer.rules, analyzer.doc_urls, analyzer.language
        ).run(snapshot)
    )
    results.close()


@dataclass(frozen=True, slots=True)
class _Sent:
    """What a child process needs of the analyzer: all but the parse cache (which has a lock)."""

    generation: int
    encoding: str
    rules: _Fixed
    doc_urls: dict[str, str]
    language: str


@dataclass(frozen=True, slots=True)
class _Fixed:
    """The rules of one document, resolved in the server (the resolver is not sent to a child)."""

    rules: RuleSelection

    def __call__(self, _uri: str) -> RuleSelection:
        return self.rules


def _receive(results: Connection, process: BaseProcess) -> list[Result]:
    """In a thread of the server: the child's results; StaleCheck if it was ended first."""
    try:
        received: list[Result] = results.recv()
    except (EOFError, OSError):
        raise StaleCheck from None
    finally:
        results.close()
        process.join()
    return received


def _context() -> ForkServerContext | SpawnContext:
    # forkserver, not fork: the server has threads, and forking a process with threads can deadlock.
    if "forkserver" in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("forkserver")
    return multiprocessing.get_context("spawn")


class Checks:
    """The newest results per document, and at most one check in flight per document version.

    Asking for the results of a version already being checked waits for that check; asking for a
    newer version starts a new one (the older one still finishes, for whoever awaits it).
    """

    def __init__(self, executor: Executor | None = None) -> None:
        self.analyzer = Analyzer()
        self._executor = executor
        self._done: dict[str, tuple[Key, list[Result]]] = {}
        self._by_uri: dict[str, Result] = {}
        self._running: dict[str, tuple[Key, asyncio.Future[list[Result]]]] = {}
        self._processes: dict[str, BaseProcess] = {}
        """The child process checking a large snapshot, by document."""

    def reconfigure(self, analyzer: Analyzer) -> None:
        """New settings or records: every stored result is stale from now on."""
        self.analyzer = analyzer

    def stored(self, uri: str) -> Result | None:
        """The last result for a document or cell, of whatever version."""
        return self._by_uri.get(uri)

    def stored_all(self) -> list[Result]:
        return list(self._by_uri.values())

    def forget(self, key: str) -> None:
        """A document closed (or a file deleted): drop its results and any check in flight."""
        self._running.pop(key, None)
        self._stop(key)
        _, results = self._done.pop(key, (None, []))
        for result in results:
            self._by_uri.pop(result.uri, None)
        self._by_uri.pop(key, None)

    def key_of(self, snapshot: Snapshot) -> Key:
        return snapshot.version, self.analyzer.generation

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
        context = _context()
        receiving, sending = context.Pipe(duplex=False)
        # What the child needs, and can be sent: this document's rules, and no parse cache.
        mine = self.analyzer
        analyzer = _Sent(
            mine.generation,
            mine.encoding,
            _Fixed(mine.rules(snapshot.key)),
            dict(mine.doc_urls),
            mine.language,
        )
        process = context.Process(target=_check_isolated, args=(sending, analyzer, snapshot), daemon=True)
        process.start()
        sending.close()
        self._processes[snapshot.key] = process
        return loop.run_in_executor(None, _receive, receiving, process)

    def stop_all(self) -> None:
        """The session ends: no child process outlives it (a thread waits for each one's results)."""
        for key in list(self._processes):
            self._stop(key)

    def _stop(self, key: str) -> None:
        process = self._processes.pop(key, None)
        if process is not None and process.is_alive():
            log.info("the check of %s went stale: stopped", key)
            process.terminate()

    def _store(
        self,
        key: str,
        running: tuple[Key, asyncio.Future[list[Result]]],
        future: asyncio.Future[list[Result]],
    ) -> None:
        if self._running.get(key) is not running:
            return  # a newer version was asked for meanwhile, or the document closed
        del self._running[key]
        self._processes.pop(key, None)
        if future.cancelled() or future.exception() is not None:
            return
        results = future.result()
        _, old = self._done.get(key, (None, []))
        for result in old:
            self._by_uri.pop(result.uri, None)
        self._done[key] = (running[0], results)
        for result in results:
            self._by_uri[result.uri] = result
