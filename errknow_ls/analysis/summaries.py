"""Summaries of the project's own functions: what a call of one gives back in terms of what it was
handed, worked out once per content hash and reused by every check (``check``, the cache, the
server) instead of running the function's body again at each call.

A summary is worked out by running the function once, in an interpreter of its own, on markers
(one per argument, of the argument's kind) and measuring what the run did. It answers a call only
where the run did nothing but compute its result: no backward, no graph node made, no object,
global, hook, optimizer, loop or import touched, no call of another of the project's functions.
Everywhere else the verdict is *inline*: the call runs its body as before, so every finding keeps
its place, notes and fixes. What a summary replays (the statements counted against the budget, the
serial numbers, the calls a fix may re-run) leaves the interpreter as running the body would.

The interpreter's side (running on markers, applying a summary) is ``interpreter/summarize.py``;
this module holds what a summary is, how it is spelled for a store, and the stores: one in-process
memo shared by all checks (like ``PARSED``), and, where whoever checks hands one in through its
:class:`~errknow_ls.analysis.modules.ModuleSource`, a :class:`SummaryBacking` that keeps them on
disk (``errknow_ls.project.summaries``, beside the results cache).
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

KEEP_MODULES = 256
"""Modules whose kept summaries a process holds read at once (as ``PARSED`` holds parses)."""

INLINE = "inline"
"""A verdict that makes every call run the function's body."""


@dataclass(frozen=True, slots=True)
class Summary:
    """What one call of a function did, on arguments of given kinds, besides giving its result."""

    result: object
    """The result, spelled by ``interpreter/summarize.py`` (``["param", 0]``, ``["detached"]``,
    ...), or :data:`INLINE`."""
    steps: int = 0
    """Statements the body ran (counted against the budget as if it ran)."""
    serials: int = 0
    """Serial numbers the run took (frames): a replay takes as many."""
    forward_calls: tuple[int, ...] = ()
    """The calls of the body resolved as forward computations, by their place in ``ast.walk`` of
    the function (what a fix may re-run, see ``rules/fix_safety.py``)."""
    last_stmt: int | None = None
    """The statement of the body that ran last, by its place in ``ast.walk`` of the function: the
    statement a graph node made next in the caller's statement is told to come from, as after the
    run."""

    @property
    def inline(self) -> bool:
        return self.result == INLINE

    def encode(self) -> str:
        return json.dumps(
            [self.result, self.steps, self.serials, list(self.forward_calls), self.last_stmt],
            separators=(",", ":"),
        )

    @classmethod
    def decode(cls, raw: str) -> Summary | None:
        """What :meth:`encode` wrote; None for anything else."""
        try:
            data = json.loads(raw)
        except (ValueError, RecursionError):
            return None
        if not (isinstance(data, list) and len(data) == 5):
            return None
        result, steps, serials, calls, last = data
        if type(steps) is not int or type(serials) is not int or not isinstance(calls, list):
            return None
        if any(type(c) is not int for c in calls) or not (last is None or type(last) is int):
            return None
        return cls(result, steps, serials, tuple(calls), last)


INLINE_SUMMARY = Summary(INLINE)


@runtime_checkable
class SummaryBacking(Protocol):
    """Where summaries outlive a process: by the hash of the defining module's text (every summary
    of its functions depends on it), then by the rest of the summary's key."""

    def load(self, module_digest: str) -> dict[str, str]:
        """The summaries kept for the module whose text hashes to ``module_digest``, encoded."""

    def save(self, module_digest: str, summaries: dict[str, str]) -> None:
        """Keep these summaries (encoded) for that module, with those kept already."""


@runtime_checkable
class HasSummaries(Protocol):
    """A :class:`~errknow_ls.analysis.modules.ModuleSource` that hands in a store on disk."""

    @property
    def summaries(self) -> SummaryBacking | None: ...


@dataclass(slots=True)
class SummaryStats:
    """What the store did in this process: observable, so tests and benchmarks can tell a summary
    worked out from one reused."""

    worked_out: int = 0
    """Summaries worked out by running a function on markers (each key once)."""
    worked_out_for: dict[str, int] = field(default_factory=dict)
    """The same, by function (``line:column:name`` in its module)."""
    loaded: int = 0
    """Summaries found on disk (worked out by an earlier process)."""
    applied: int = 0
    """Calls a summary answered."""
    inlined: int = 0
    """Calls of the project's functions whose body ran (the verdict inline, or no summary asked)."""
    because: dict[str, int] = field(default_factory=dict)
    """The inlined calls by why."""

    def inline(self, why: str) -> None:
        self.inlined += 1
        self.because[why] = self.because.get(why, 0) + 1


class Summaries:
    """The in-process memo of summaries by key (the most recent kept), shared by every check."""

    def __init__(self, keep: int = 4096) -> None:
        self.keep = keep
        self.enabled = True
        """False: every call runs its body (what the summaries are held against in the tests)."""
        self.stats = SummaryStats()
        self._memo: OrderedDict[tuple[str, str], Summary] = OrderedDict()
        self._disk: OrderedDict[tuple[int, str], dict[str, str]] = OrderedDict()
        """What each backing keeps for each module (the most recent modules kept: a server that
        sees a helper edited many times reads each text's file once)."""
        self._lock = threading.Lock()

    def get(self, module_digest: str, key: str, backing: SummaryBacking | None) -> Summary | None:
        with self._lock:
            found = self._memo.get((module_digest, key))
            if found is not None:
                self._memo.move_to_end((module_digest, key))
                return found
        if backing is None:
            return None
        kept = self._on_disk(module_digest, backing)
        raw = kept.get(key)
        summary = Summary.decode(raw) if raw is not None else None
        if summary is not None:
            self.stats.loaded += 1
            self._keep(module_digest, key, summary)
        return summary

    def put(self, module_digest: str, key: str, summary: Summary, backing: SummaryBacking | None) -> None:
        self.stats.worked_out += 1
        function = key.partition("|")[0]
        self.stats.worked_out_for[function] = self.stats.worked_out_for.get(function, 0) + 1
        self._keep(module_digest, key, summary)
        if backing is not None:
            kept = self._on_disk(module_digest, backing)
            kept[key] = summary.encode()
            backing.save(module_digest, {key: kept[key]})

    def clear(self) -> None:
        with self._lock:
            self._memo.clear()
            self._disk.clear()
            self.stats = SummaryStats()

    def _on_disk(self, module_digest: str, backing: SummaryBacking) -> dict[str, str]:
        """What ``backing`` keeps for the module, read once per backing and module."""
        where = (id(backing), module_digest)
        with self._lock:
            kept = self._disk.get(where)
            if kept is not None:
                self._disk.move_to_end(where)
                return kept
        kept = dict(backing.load(module_digest))
        with self._lock:
            self._disk[where] = kept
            while len(self._disk) > KEEP_MODULES:
                self._disk.popitem(last=False)
        return kept

    def _keep(self, module_digest: str, key: str, summary: Summary) -> None:
        with self._lock:
            self._memo[module_digest, key] = summary
            while len(self._memo) > self.keep:
                self._memo.popitem(last=False)


SUMMARIES = Summaries()
