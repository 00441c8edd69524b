"""Check one source text: cut it into top-level chunks, run each unit that can reach a backward on
the chunks it names, turn the events into findings, merge them as one check of the module would.

A chunk that does not parse is left out (the rest is still checked); a text whose chunks misread
it (a column-0 line inside a string) is checked as one unit. With a :class:`Cache`, a re-check
after an edit runs only the units whose reachable text changed."""

from __future__ import annotations

import ast
import bisect
import itertools
import threading
from collections import OrderedDict
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import TypeVar

from errknow_ls.analysis.across import Here, localized, told_here
from errknow_ls.analysis.chunks import (
    MAX_DEPTH,
    MAX_EXPRESSION_DEPTH,
    PARSE_ERRORS,
    Body,
    Chunk,
    ChunkCache,
    ChunkKey,
    calls_by_function,
    split_chunks,
    within_depth,
)
from errknow_ls.analysis.events import Observation, SecondPass
from errknow_ls.analysis.holding import holding_fixes
from errknow_ls.analysis.interpreter import UNIT_BUDGET, Interpreter
from errknow_ls.analysis.interpreter.flag_ways import FlagKey, FlagWay
from errknow_ls.analysis.modules import (
    FOLDER,
    PARSED,
    Dependency,
    FolderState,
    ModuleSource,
    ModuleText,
    digest,
    note_folder,
    note_miss,
    still_current,
)
from errknow_ls.analysis.outside import outside_names
from errknow_ls.analysis.prefilter import might_backward, might_find
from errknow_ls.analysis.registry import BY_CODE
from errknow_ls.analysis.rules import claiming, retain_graph_in_loop
from errknow_ls.analysis.rules.context import RuleContext
from errknow_ls.analysis.source import (
    BACKWARD_NAMES,
    HUGE,
    SourceText,
    called_names,
    describe,
    parse,
    without_lone_surrogates,
)
from errknow_ls.core import Applicability, Finding, Related
from errknow_ls.core.findings import NOT_FULLY_CHECKED, limit_note, read_limit_note
from errknow_ls.core.suppression import suppressed

INTERNAL_ERROR = "internal error"
T = TypeVar("T")
STEPS_PER_LINE = 50
MAX_FILE_STEPS = 400_000
"""At ~15-40 microseconds a statement here, what keeps one file under ~16 s, however it is built."""
STEPS_PER_OWN_LINE = 4
"""A unit's budget is at least this many statements per line of its own definition (a loop runs
its body twice, a call its callee's): a long function is checked to its end, not cut at the
shared budget (up to MAX_FILE_STEPS)."""
MAX_STOP_NOTES = 10


@dataclass(slots=True)
class CheckResult:
    findings: list[Finding] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    """Syntax errors (the parts that parsed are still checked), then internal errors."""
    read: tuple[Dependency, ...] = ()
    """The project's other modules the check read, and what each said: the result stands while
    they say the same."""

    @property
    def internal_errors(self) -> list[str]:
        """Failures of the checker itself (one entry point each); the other entry points still ran."""
        return [e for e in self.errors if e.startswith(INTERNAL_ERROR)]


Entries = list[tuple[str, int | None, Callable[[], None]]]
"""Entry points by name and ``def`` line (none for the module): what one unit's interpreter runs,
one after the other."""
Loc = tuple[str, int, int, int | None, int | None]
"""A node by its type and extent: how findings of separately checked units are matched."""


@dataclass(frozen=True, slots=True)
class Reported:
    """A second-pass event of one unit, with its finding already built."""

    report: Loc
    site: Loc
    intrinsic: bool
    """The backward itself is reported (not a call of a function that holds it)."""
    code: str
    finding: Finding


@dataclass(frozen=True, slots=True)
class Retained:
    site: Loc
    justified: bool
    finding: Finding | None


@dataclass(frozen=True, slots=True)
class Outcome:
    """What checking one unit found."""

    passes: tuple[Reported, ...] = ()
    retains: tuple[Retained, ...] = ()
    errors: tuple[str, ...] = ()
    read: tuple[Dependency, ...] = ()
    """The project's modules it read, and what they said."""


@dataclass(frozen=True, slots=True)
class Unit:
    """What runs together: the module body, one function, or one class's methods; ``chunks`` are
    the ones it may reach (the module's own statements, and every definition named in them)."""

    kind: str
    chunk: Chunk | None
    chunks: tuple[Chunk, ...]
    body_relevant: bool
    relevant: frozenset[str]
    budget: int = UNIT_BUDGET
    key: tuple[object, ...] = field(init=False, repr=False, compare=False)
    """What its outcome depends on: its kind, the chunks it reaches and which of them is its own
    (units of two classes of a script often reach the same chunks: each runs its own methods).
    Worked out once: each check of an edit looks every unit up by it, and so does the check of the
    edited text with each fix applied."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "key", (*self._settings, *(c.key for c in self.chunks)))

    @property
    def text_key(self) -> tuple[object, ...]:
        """Its key with the chunks by their text alone: the same unit anywhere in the module."""
        return (*self._settings, *(c.text for c in self.chunks))

    @property
    def _settings(self) -> tuple[object, ...]:
        return (self.kind, self.own, self.body_relevant, self.relevant, self.budget)

    @property
    def own(self) -> int | None:
        """The place of its own chunk among those it reaches (none for the module's body)."""
        if self.chunk is None:
            return None
        return next(i for i, chunk in enumerate(self.chunks) if chunk is self.chunk)


@dataclass(frozen=True, slots=True)
class _Checked:
    """A text checked by the chunked path, and what it was made of: the start of the next check of
    the same document, when an edit stayed inside one chunk."""

    text: str
    chunks: tuple[Chunk, ...]
    offsets: tuple[int, ...]
    names: frozenset[str]
    units: tuple[Unit, ...]
    outcomes: tuple[Outcome, ...]
    errors: tuple[str, ...]
    source: SourceText
    imported: frozenset[str] = frozenset()
    imported_read: tuple[Dependency, ...] = ()
    """What working out ``imported`` read: it stands while they say the same."""


MAX_EDIT = 4_096
"""Characters an edit may replace for the next check to start from the last one."""
MAX_REMEMBERED = 16
"""Documents whose last checks a cache remembers."""
MAX_REMEMBERED_CHARS = 32_000_000
"""The most characters of text those checks hold together (a document's fixed texts are each as
long as it): past it, the documents checked longest ago are forgotten, never the latest."""
MAX_UNIT_LISTS = 96
"""Lists of chunks whose units a cache keeps: each text checked on an edit has one (the document,
and the document with each fix applied, up to ``MAX_TESTED_FIXES``: while a keystroke leaves a
syntax error, each is looked up again), and a few documents more."""


class CheckStopped(Exception):
    """The check was asked to stop (:attr:`Cache.stop_requested`) between two units: what it ran is
    kept, and the next check of the text starts from there."""


class Cache:
    """What one check learns that the next check of a similar text can reuse: each chunk's parse,
    and each unit's outcome by the exact text of every chunk it may reach. Keyed by content, so
    one cache serves every document; bounded, least recently used dropped first."""

    def __init__(self, max_units: int = 4_000, max_lines: int = 50_000) -> None:
        self.chunks = ChunkCache(max_lines)
        self.stop_requested: Callable[[], bool] = lambda: False
        """Asked before each unit is run: True stops the check (:class:`CheckStopped`)."""
        self.mentions = Mentions()
        self.max_units = max_units
        self._outcomes: OrderedDict[tuple[object, ...], Outcome] = OrderedDict()
        self._found_nothing: OrderedDict[tuple[object, ...], tuple[Unit, Outcome]] = OrderedDict()
        """Outcomes that found nothing (no event, no retain, no note but the limits that stopped
        it), by the unit's :attr:`~Unit.text_key`, with the unit they were found at: the same
        chunks at other lines (lines added or removed above them) find the same, since what a
        unit finds depends on its chunks' texts and order, not on the lines they start at (a
        limit's note moves with its chunk)."""
        self._lock = threading.Lock()
        self.runs = 0
        """Units run rather than found here: what re-checks cost."""
        self._units: OrderedDict[tuple[object, ...], list[Unit]] = OrderedDict()
        self.quick = 0
        """Checks that started from the last check of the same document (see ``_recheck``)."""
        self._checked: OrderedDict[object, dict[object, _Checked]] = OrderedDict()
        """The last checks of the last few documents, each with the checks of its fixed texts (see
        ``FIXED``): by the document's name where the caller gives one, else by the identity of the
        text. A document and its fixes come and go together: an edit checks the document, then
        each fix, and one place each in a queue shorter than that pushed every one out before its
        turn came again (a 20,000-line file with 17 fixes: every edit the full path, 18 times)."""

    @classmethod
    def for_one_document(cls, lines: int) -> Cache:
        """A cache kept for one large document, between the checks of its versions: it holds all
        of it, so that an edit runs again only the units it reached (and those that found
        something below it, which moved)."""
        return cls(max_units=max(4_000, lines), max_lines=2 * lines + 50_000)

    def units_for(
        self, chunks: tuple[Chunk, ...], lines: int, imported: frozenset[str] = frozenset()
    ) -> list[Unit]:
        """The units of a module of ``chunks``, remembered for the last few lists of chunks: typing
        through a syntax error in one definition leaves the others' list the same keystroke after
        keystroke. ``imported``: names from the project's modules that can reach a backward."""
        size = max(0, lines - 1).bit_length()  # the budget's size class
        key = (size, imported, *(c.key for c in chunks))
        with self._lock:
            known = self._units.get(key)
            if known is not None:
                self._units.move_to_end(key)
                return known
        units = _units(list(chunks), self.mentions, unit_budget(lines), imported)
        with self._lock:
            self._units[key] = units
            while len(self._units) > MAX_UNIT_LISTS:
                self._units.popitem(last=False)
        return units

    def remember(self, checked: _Checked, document: object | None, replacing: _Checked | None = None) -> None:
        with self._lock:
            if replacing is not None and document is None:
                self._checked.pop(id(replacing.text), None)
            key = document if document is not None else id(checked.text)
            group = _document_of(key)
            checks = self._checked.pop(group, {})
            checks[key] = checked
            self._checked[group] = checks
            while len(self._checked) > 1 and (
                len(self._checked) > MAX_REMEMBERED or self._remembered_chars() > MAX_REMEMBERED_CHARS
            ):
                self._checked.popitem(last=False)

    def _remembered_chars(self) -> int:
        return sum(len(checked.text) for checks in self._checked.values() for checked in checks.values())

    def predecessor(self, text: str, document: object | None) -> tuple[_Checked, int, int] | None:
        """A remembered check (of ``document`` where given) whose text differs from ``text`` in one
        short stretch, and the lengths of the prefix and suffix they share."""
        with self._lock:
            if document is not None:
                known = self._checked.get(_document_of(document), {}).get(document)
                remembered = [known] if known is not None else []
            else:
                remembered = [checked for checks in self._checked.values() for checked in checks.values()]
        for checked in reversed(remembered):
            old = checked.text
            if abs(len(old) - len(text)) > MAX_EDIT:
                continue
            prefix = _common_prefix(old, text)
            suffix = _common_suffix(old, text, min(len(old), len(text)) - prefix)
            if len(old) - prefix - suffix <= MAX_EDIT and len(text) - prefix - suffix <= MAX_EDIT:
                return checked, prefix, suffix
        return None

    def outcome(
        self,
        unit: Unit,
        source: SourceText,
        fresh: dict[ChunkKey, Body],
        modules: ModuleSource | None = None,
        stops: BodyRuns | None = None,
    ) -> Outcome:
        """The unit's outcome, from the cache or by running it (``fresh``: trees this check parsed;
        ``stops``: where this check saw module bodies stop); a cached one stands while every module
        of the project it read says the same."""
        scope = modules.scope if modules is not None else None
        key = (*unit.key, scope)
        with self._lock:
            known = self._outcomes.get(key)
            if known is not None:
                self._outcomes.move_to_end(key)
        if known is not None and still_current(known.read, modules):
            return known
        unplaced = (*unit.text_key, scope)
        with self._lock:
            elsewhere = self._found_nothing.get(unplaced)
            if elsewhere is not None:
                self._found_nothing.move_to_end(unplaced)
        if elsewhere is not None and still_current(elsewhere[1].read, modules):
            there, found = elsewhere
            moved = replace(found, errors=_notes_moved(found.errors, there, unit)) if found.errors else found
            _keep(self._outcomes, key, moved, self.max_units, self._lock)
            return moved

        def body(chunk: Chunk) -> Body:
            found = fresh.get(chunk.key)
            return found if found is not None else self.chunks.body(chunk)

        if self.stop_requested():
            raise CheckStopped
        outcome = _run_unit(unit, source, body, modules, stops)
        self.runs += 1
        _keep(self._outcomes, key, outcome, self.max_units, self._lock)
        if not (outcome.passes or outcome.retains) and all(_placed_note(e) for e in outcome.errors):
            _keep(self._found_nothing, unplaced, (unit, outcome), self.max_units, self._lock)
        return outcome


def _keep(
    store: OrderedDict[tuple[object, ...], T],
    key: tuple[object, ...],
    value: T,
    limit: int,
    lock: threading.Lock,
) -> None:
    """``value`` into ``store`` as the most recently used, the least recently used dropped past
    ``limit``."""
    with lock:
        store[key] = value
        store.move_to_end(key)
        while len(store) > limit:
            store.popitem(last=False)


def _placed_note(error: str) -> bool:
    """``error`` is a limit's note on a line (what moves with its chunk)."""
    said = read_limit_note(error)
    return said is not None and said[0] is not None


def _notes_moved(notes: tuple[str, ...], there: Unit, here: Unit) -> tuple[str, ...]:
    """Limits' notes of ``there`` (each on a line, see :func:`_placed_note`), on the same lines of
    the same chunks of ``here``."""
    moved = []
    for note in notes:
        said = read_limit_note(note)
        assert said is not None  # only such notes are kept
        at, what = said
        assert at is not None
        line = at
        for old, new in zip(there.chunks, here.chunks, strict=True):
            if old.start < line <= old.start + old.text.count("\n") + 1:
                line += new.start - old.start
                break
        moved.append(limit_note(what.removeprefix(f"{NOT_FULLY_CHECKED}: "), line))
    return tuple(moved)


MAX_MENTIONS = 50_000


class Mentions:
    """Which of a module's definition names each chunk mentions, remembered for the last few sets
    of names: typing rarely adds or renames a definition."""

    def __init__(self, keep: int = 8) -> None:
        self.keep = keep
        self._by_names: OrderedDict[frozenset[str], dict[ChunkKey, frozenset[str]]] = OrderedDict()
        self._last: frozenset[str] = frozenset()
        self._lock = threading.Lock()

    def interned(self, names: frozenset[str]) -> frozenset[str]:
        """``names``, or the equal set given last: every unit's key holds the module's relevant
        names, and a key found compares them by identity, where an equal set made again would be
        compared name by name, for every unit (2 s of a 320,000-line file's re-check)."""
        with self._lock:
            if names == self._last:
                return self._last
            self._last = names
            return names

    def mentions(self, names: frozenset[str]) -> Callable[[Chunk], frozenset[str]]:
        with self._lock:
            known = self._by_names.get(names)
            if known is None:
                known = self._by_names[names] = {}
                while len(self._by_names) > self.keep:
                    self._by_names.popitem(last=False)
            self._by_names.move_to_end(names)

        def of(chunk: Chunk) -> frozenset[str]:
            found = known.get(chunk.key)
            if found is None:
                if len(known) > MAX_MENTIONS:  # chunks of edits long gone: start again
                    known.clear()
                found = known[chunk.key] = chunk.words & names
            return found

        return of


def check_source(
    text: str,
    *,
    select: Collection[str] | None = None,
    ignore: Collection[str] = (),
    cache: Cache | None = None,
    document: object | None = None,
    modules: ModuleSource | None = None,
) -> CheckResult:
    """All findings in ``text``, filtered by rule codes and by suppression comments.

    The module is checked one unit at a time (see :class:`Unit`); with a ``cache`` from an earlier
    check, units whose reachable text did not change are not checked again; naming the
    ``document`` lets a check start from that document's last one without looking at others.
    With ``modules``, what the text imports from the project's own modules is read and followed.
    A text holding lone surrogates is checked as if each were U+FFFD, and a note says so.
    """
    readable, note = without_lone_surrogates(text)
    cache = cache or Cache()
    result = _check_text(
        readable, select=select, ignore=ignore, cache=cache, document=document, modules=modules
    )
    # Over HUGE (a document the server checks in a process kept for it), each fix's check would be
    # a check of megabytes, hundreds of times: its fixes are offered as found, and `check --fix`
    # still drops one that does not hold once applied.
    # So too where the text has more fixes than MAX_TESTED_FIXES (a script of 2,000 findings would
    # be checked 6,000 times more).
    if len(readable) <= HUGE and 0 < _fixes_to_test(result.findings) <= MAX_TESTED_FIXES:
        result = _holding(
            readable, result, select=select, ignore=ignore, cache=cache, document=document, modules=modules
        )
    return result if note is None else replace(result, errors=[note, *result.errors])


MAX_TESTED_FIXES = 64
"""The most fixes of one text whose holding is tested (one check of the fixed text each)."""


def _fixes_to_test(findings: list[Finding]) -> int:
    return len(
        {
            (f.code, f.span.start, fix.edits)
            for f in findings
            for fix in f.fixes
            if fix.applicability is not Applicability.DISPLAY_ONLY
        }
    )


def read_whole(result: CheckResult) -> bool:
    """The check read its text whole: none of its errors is a syntax error (they are the errors
    that are neither a limit's note nor the checker's own failure)."""
    return all(read_limit_note(e) is not None or e.startswith(INTERNAL_ERROR) for e in result.errors)


FIXED = "fixed"
"""Beside the document's name, the key under which the cache remembers the last text checked to see
whether a fix holds, one per fix, so that checking the same fix of the next version of the document
starts from it."""


def _document_of(key: object) -> object:
    """The document a remembered check's key names: its own, or that of the fix it checked."""
    if type(key) is tuple and len(key) == 3 and key[0] == FIXED:  # (FIXED, document, number)
        return key[1]
    return key


def _holding(
    text: str,
    result: CheckResult,
    *,
    select: Collection[str] | None,
    ignore: Collection[str],
    cache: Cache,
    document: object | None,
    modules: ModuleSource | None,
) -> CheckResult:
    """``result`` with only the fixes that hold (see ``holding``): each fixed text is checked as
    ``text`` was, and what those checks read is read by this one."""
    read = list(result.read)
    fixed = itertools.count()

    def check(fixed_text: str) -> tuple[list[Finding], bool]:
        # Unnamed, it would be one more text the next unnamed check could start from.
        key = (FIXED, document, next(fixed)) if document is not None else None
        found = _check_text(
            fixed_text,
            select=select,
            ignore=ignore,
            cache=cache,
            document=key,
            modules=modules,
            remember=key is not None,
        )
        read.extend(found.read)
        return found.findings, read_whole(found)

    findings = holding_fixes(text, result.findings, check, read_whole(result))
    return CheckResult(findings, result.errors, tuple(dict.fromkeys(read)))


def _definitions_hold_most(keys: list[ChunkKey]) -> bool:
    """Functions and classes hold at least half of the text cut into ``keys`` (by the first words
    of its top-level statements): each is a unit of its own, checked by chunks. A text of
    module-level statements is one unit whatever its chunks, and one parse of it costs less than
    hundreds of thousands of chunks (a 5 MB script: 13 s of processor time as one unit, 22 s by
    chunks). 320,000 lines of training functions as one unit: the file's budget stopped it at line
    300,071, 245 of its 261 double backwards found; by chunks, each function with its share of
    the budget, all 261."""
    held = sum(len(chunk) for _, chunk in keys if chunk.startswith(DEFINITION_WORDS))
    return 2 * held >= sum(len(chunk) for _, chunk in keys)


DEFINITION_WORDS = ("def ", "async def ", "class ", "@")
"""How a top-level statement that defines a function or a class starts (a decorator first)."""


def _check_text(
    text: str,
    *,
    select: Collection[str] | None,
    ignore: Collection[str],
    cache: Cache | None,
    document: object | None,
    modules: ModuleSource | None,
    remember: bool = True,
) -> CheckResult:
    """``check_source`` without the test of its fixes; with ``remember`` false, the check is not
    kept as a start for the next one (only its units' outcomes are)."""
    if not might_find(text, follows_imports=modules is not None):
        return CheckResult()
    cache = cache or Cache()
    quick = _recheck(cache, text, document, modules, remember)
    if quick is not None:
        return _filtered(*quick, select, ignore)
    source = SourceText(text)
    keys = split_chunks(text)
    if len(text) > HUGE and not _definitions_hold_most(keys):
        try:
            module = parse(text)
        except PARSE_ERRORS:
            pass  # the chunks below keep what parses
        else:  # one parse costs less than hundreds of thousands of chunks, and nobody types here
            return _filtered(_check_whole(module, source, modules), source, select, ignore)
    chunks: list[Chunk] = []
    fresh: dict[ChunkKey, Body] = {}
    for key in keys:
        chunk, body = cache.chunks.get(key)
        chunks.append(chunk)
        if body is not None:
            fresh[key] = body
    errors = [c.error for c in chunks if c.error is not None]
    if any(c.cut for c in chunks):
        try:
            module = parse(text)
        except PARSE_ERRORS as exc:
            errors = [describe(exc, text)]  # really broken
        else:
            # A top-level-looking line inside a string or brackets split a statement: no units.
            return _filtered(_check_whole(module, source, modules), source, select, ignore)
    whole = not errors
    chunks = _runnable(chunks)  # the rest is checked
    errors += _too_deep(chunks)
    imported, imported_read = _imported_reaching(chunks, cache, fresh, modules)
    units = cache.units_for(tuple(chunks), len(source.lines), imported)
    stops = BodyRuns()
    outcomes = [cache.outcome(unit, source, fresh, modules, stops) for unit in units]
    if whole:
        offsets = tuple(itertools.accumulate((len(c.text) for c in chunks[:-1]), initial=0))
        names = frozenset(c.name for c in chunks if c.kind != "other")
        checked = _Checked(
            text,
            tuple(chunks),
            offsets,
            names,
            tuple(units),
            tuple(outcomes),
            tuple(errors),
            source,
            imported,
            imported_read,
        )
        if remember:
            cache.remember(checked, document)
    return _filtered(_result(outcomes, errors, imported_read), source, select, ignore)


def _result(
    outcomes: list[Outcome], errors: Iterable[str], imported_read: tuple[Dependency, ...]
) -> CheckResult:
    """The units' outcomes merged as one check of the module; it stands while what the units read,
    and what choosing them read (``imported_read``), say the same."""
    read = tuple(dict.fromkeys([*imported_read, *(d for o in outcomes for d in o.read)]))
    said = dict.fromkeys([*errors, *(e for o in outcomes for e in o.errors)])  # each note once
    return CheckResult(_merge(outcomes), list(said), read)


def _recheck(
    cache: Cache, text: str, document: object | None, modules: ModuleSource | None, remember: bool = True
) -> tuple[CheckResult, SourceText] | None:
    """Check ``text`` from the last check of a text it differs from inside one line of one chunk,
    where the edit changed nothing the units are built from (the chunk's names, calls, the
    definitions it mentions): only the units that reach that chunk are looked up again. None
    when that does not hold (the full path then runs)."""
    found = cache.predecessor(text, document)
    if found is None:
        return None
    checked, prefix, suffix = found
    old = checked.text
    # Each module or folder once, however many units read it (a folder where `import torch` found
    # nothing is read by every unit of a training script).
    read = dict.fromkeys([*checked.imported_read, *(d for o in checked.outcomes for d in o.read)])
    if not still_current(tuple(read), modules):
        return None  # a module it imports changed: the full path reads it again
    if prefix == len(old) == len(text):  # the same text again (an edit undone)
        cache.quick += 1
        return _result(list(checked.outcomes), checked.errors, checked.imported_read), checked.source
    was, now = old[prefix : len(old) - suffix], text[prefix : len(text) - suffix]
    around = text[max(0, prefix - 2) : len(text) - suffix + 2]
    if (
        any(c in was or c in now for c in "\r\n")
        or any(q in around or q in old[max(0, prefix - 2) : len(old) - suffix + 2] for q in ("'", '"', "#"))
        or prefix == 0
        or text[prefix - 1] in "\r\n"
    ):
        return None  # lines, strings or comments may have moved a chunk's edges
    line_start = max(text.rfind("\n", 0, prefix), text.rfind("\r", 0, prefix)) + 1
    if text[line_start] not in " \t" and prefix - line_start < len("finally") + 2:
        return None  # the first word of a column-0 line decides whether it starts a chunk
    index = bisect.bisect_right(checked.offsets, prefix) - 1
    before = checked.chunks[index]
    start = checked.offsets[index]
    end = start + len(before.text)
    if len(old) - suffix > end:
        return None
    delta = len(text) - len(old)
    after, body = cache.chunks.get((before.start, text[start : end + delta]))
    if after.cut:
        return None  # it may be the chunker's doing: the full path parses the whole text to know
    source = checked.source.edited(text, prefix)
    fresh = {after.key: body} if body is not None else {}
    if after.error is not None:  # typing through a syntax error: the rest is checked as it was
        kept = tuple(_runnable([*checked.chunks[:index], after, *checked.chunks[index + 1 :]]))
        errors = [after.error, *_too_deep(kept)]
        units_then = cache.units_for(kept, len(source.lines), checked.imported)
        found_then = [cache.outcome(u, source, fresh, modules) for u in units_then]
        cache.quick += 1
        return _result(found_then, errors, checked.imported_read), source
    if (
        after.kind,
        after.name,
        after.calls,
        after.top_calls,
        after.methods,
        after.too_deep,
        after.deep_expressions,
    ) != (
        before.kind,
        before.name,
        before.calls,
        before.top_calls,
        before.methods,
        before.too_deep,
        before.deep_expressions,
    ) or after.words & checked.names != before.words & checked.names:
        return None
    chunks = (*checked.chunks[:index], after, *checked.chunks[index + 1 :])
    offsets = checked.offsets[: index + 1] + tuple(o + delta for o in checked.offsets[index + 1 :])
    units: list[Unit] = []
    outcomes: list[Outcome] = []
    for unit, outcome in zip(checked.units, checked.outcomes, strict=True):
        if not any(c is before for c in unit.chunks):
            units.append(unit)
            outcomes.append(outcome)
            continue
        reach = tuple(after if c is before else c for c in unit.chunks)
        edited = replace(unit, chunk=after if unit.chunk is before else unit.chunk, chunks=reach)
        units.append(edited)
        outcomes.append(cache.outcome(edited, source, fresh, modules))
    names, known = checked.names, checked.errors
    done = _Checked(
        text,
        chunks,
        offsets,
        names,
        tuple(units),
        tuple(outcomes),
        known,
        source,
        checked.imported,
        checked.imported_read,
    )
    if remember:
        cache.remember(done, document, replacing=checked)
    cache.quick += 1
    return _result(outcomes, known, checked.imported_read), source


MAX_IMPORT_DEPTH = 3
"""How far through the project's imports a module is looked at for a backward it may reach."""


def _imported_reaching(
    chunks: list[Chunk], cache: Cache, fresh: dict[ChunkKey, Body], modules: ModuleSource | None
) -> tuple[frozenset[str], tuple[Dependency, ...]]:
    """The names the text imports from the project's own modules, and the functions and classes
    of those modules, that may reach a backward there: calls of them count as calls that may
    backward when the units are chosen. With what that walk read (each module it looked at, each
    folder where an import found nothing): which names those are stands while they say the same.

    A module may reach a backward when it, or a module it imports (at most MAX_IMPORT_DEPTH
    imports away), holds the words one needs. Of such modules' definitions, only those whose
    calls reach a backward count, by the names called (as within a text, see ``_fixpoint``),
    over the calls of this text and of every such module together: a helper that calls
    ``train_step`` counts where any of them defines a ``train_step`` that backwards."""
    if modules is None:
        return frozenset(), ()
    walk = _Walk()
    bound: list[tuple[str, str | None, ModuleText]] = []
    for chunk in chunks:
        if chunk.kind != "other" or "import" not in chunk.words:
            continue
        body = fresh.get(chunk.key) or cache.chunks.body(chunk)
        for stmt in body:
            for name, imported, found in _imports_of(stmt, modules, None, walk.read):
                if _reaching_definitions(found, modules, MAX_IMPORT_DEPTH, walk) is not None:
                    bound.append((name, imported, found))
    read = tuple(Dependency(key, said) for key, said in walk.read.items())
    if not bound:
        return frozenset(), read
    functions: dict[str, set[str]] = {}
    for chunk in chunks:
        for name, calls in chunk.calls.items():
            functions.setdefault(name, set()).update(calls)
    defined: set[str] = set()
    for module, holds in walk.reached.values():
        defined |= holds
        for name, calls in PARSED.calls(module, outside_names(module, modules, walk.read)).items():
            functions.setdefault(name, set()).update(calls)
    relevant = _fixpoint(functions) & defined
    names = set(relevant)
    for name, imported, found in bound:
        # `from m import f as g`: g where f may backward; `import m as g`: g where m defines one.
        held = walk.reached[found.key][1] if imported is None else frozenset({imported})
        if held & relevant:
            names.add(name)
    return frozenset(names), read


@dataclass(slots=True)
class _Walk:
    """One walk through the project's imports: each answer worked out (by module and depth), what
    it read, and each module found to reach a backward with the definitions it holds."""

    known: dict[tuple[str, int], frozenset[str] | None] = field(default_factory=dict)
    read: dict[str, str] = field(default_factory=dict)
    reached: dict[str, tuple[ModuleText, frozenset[str]]] = field(default_factory=dict)
    """Each module found to reach a backward, by key, with the definitions it holds."""


def _imports_of(
    stmt: ast.stmt, modules: ModuleSource, importer: str | None, read: dict[str, str]
) -> list[tuple[str, str | None, ModuleText]]:
    """What an import statement binds, with the name it imports from a module (None where the
    name is the module itself) and the project's module that holds it; each module found, and
    each folder where one was not, noted in ``read``."""
    found: list[tuple[str, str | None, ModuleText]] = []
    if isinstance(stmt, ast.Import):
        for alias in stmt.names:
            module = modules.find(importer, alias.name, 0)
            if module is not None:
                found.append((alias.asname or alias.name.split(".")[0], None, module))
            else:
                note_miss(read, modules, importer, alias.name, 0)
    elif isinstance(stmt, ast.ImportFrom):
        module = modules.find(importer, stmt.module or "", stmt.level)
        for alias in stmt.names:
            name = f"{stmt.module}.{alias.name}" if stmt.module else alias.name
            if module is not None:
                found.append((alias.asname or alias.name, alias.name, module))
                if not module.key.endswith("__init__.py"):
                    continue  # a plain module has no submodule to import
            # `from pkg import sub` binds the submodule where the package's own names have none
            target = modules.find(importer, name, stmt.level)
            if target is not None:
                found.append((alias.asname or alias.name, None, target))
            else:
                note_miss(read, modules, importer, name, stmt.level)
    for _, _, module in found:
        if module.key not in read:
            read[module.key] = digest(module.text)
    return found


def _reaching_definitions(
    module: ModuleText, modules: ModuleSource, depth: int, walk: _Walk
) -> frozenset[str] | None:
    """Every function and class ``module`` defines, when it or a module it imports (at most
    ``depth`` imports away) may backward; the walk holds the answers already worked out in this
    check (the depth bounds the walk, cycles included), and what checks of the same layout of the
    project worked out is taken with what it read."""
    asked = (module.key, depth)
    if asked in walk.known:
        return walk.known[asked]
    layout = modules.layout
    if layout is None:
        walk.known[asked] = found = _reaching_now(module, modules, depth, walk)
        if found is not None:
            walk.reached[module.key] = (module, found)
        return found
    reach = SHARED_REACH.get(layout, module, depth, modules.checked_key)
    if reach is None:
        alone = _Walk()
        passed = modules.passed_over
        found = _reaching_now(module, modules, depth, alone)
        if found is not None:
            alone.reached[module.key] = (module, found)
        reach = _Reach(found, tuple(alone.read.items()), tuple(alone.reached.values()))
        if modules.passed_over == passed:  # what it found holds for any checked file of the layout
            SHARED_REACH.put(layout, module, depth, reach)
    walk.known[asked] = reach.defined
    for key, said in reach.read:
        known = walk.read.get(key)
        if known is None:
            walk.read[key] = said
        elif known != said and said.startswith(FOLDER):
            note_folder(walk.read, key, FolderState.of(said))
    for reached in reach.reached:
        walk.reached.setdefault(reached[0].key, reached)
    return reach.defined


@dataclass(frozen=True, slots=True)
class _Reach:
    """What ``_reaching_now`` worked out for a module at a depth, with everything the work read and
    every module it found to reach a backward (with their definitions)."""

    defined: frozenset[str] | None
    read: tuple[tuple[str, str], ...]
    reached: tuple[tuple[ModuleText, frozenset[str]], ...]


class SharedReach:
    """The reach of each module at each depth, worked out once for the checks of one layout of the
    project (one run of ``check``; see ``ModuleSource.layout``): only the latest layout is kept."""

    def __init__(self) -> None:
        self._layout: tuple[str, ...] | None = None
        self._known: dict[tuple[str, str, int], _Reach] = {}
        self._lock = threading.Lock()

    def get(
        self, layout: tuple[str, ...], module: ModuleText, depth: int, checked: str | None
    ) -> _Reach | None:
        with self._lock:
            if layout != self._layout:
                return None
            reach = self._known.get((module.key, digest(module.text), depth))
        if reach is None or (checked is not None and any(key == checked for key, _ in reach.read)):
            return None  # the checked file is never one of its own modules: work it out for this one
        return reach

    def put(self, layout: tuple[str, ...], module: ModuleText, depth: int, reach: _Reach) -> None:
        with self._lock:
            if layout != self._layout:
                self._layout, self._known = layout, {}
            self._known[module.key, digest(module.text), depth] = reach


SHARED_REACH = SharedReach()


def _reaching_now(
    module: ModuleText, modules: ModuleSource, depth: int, walk: _Walk
) -> frozenset[str] | None:
    if not might_backward(module.text):
        if depth <= 0:
            return None  # at the end of the walk, a module without the words answers no, parsed or not
        imports = PARSED.imports(module)
        if imports is not None and not any(
            _reaching_definitions(found, modules, depth - 1, walk) is not None
            for stmt in imports
            for _, _, found in _imports_of(stmt, modules, module.key, walk.read)
        ):
            return None  # no import of it reaches a backward: no, whether it parses whole or not
    parsed = PARSED.read(module)
    if parsed is None:
        return None
    if parsed.may_backward:
        return parsed.defined
    if depth <= 0:
        return None
    for stmt in parsed.imports:
        for _, _, found in _imports_of(stmt, modules, module.key, walk.read):
            if _reaching_definitions(found, modules, depth - 1, walk) is not None:
                return parsed.defined
    return None


def _definition_text(text: str) -> bool:
    """A chunk that starts a definition (a ``def`` or ``class`` being typed loses only itself)."""
    first = text.lstrip().split(None, 1)[0] if text.strip() else ""
    return first in ("def", "class", "async") or first.startswith("@")


def _runnable(chunks: list[Chunk]) -> list[Chunk]:
    """The chunks that parse, less the module-level statements after the first that does not:
    nothing after a statement that cannot run runs (a notebook's `loss = <YOUR CODE>` leaves no
    `loss` for the next cell's backward to find). Definitions there are still checked on their own."""
    broken = [c.start for c in chunks if c.error is not None and not _definition_text(c.text)]
    if not broken:
        return chunks
    first = min(broken)
    return [c for c in chunks if c.error is None and not (c.kind == "other" and c.start > first)]


def _too_deep(chunks: Iterable[Chunk]) -> list[str]:
    return [deep_statement_note(line) for c in chunks for line in c.too_deep] + [
        deep_expression_note(line) for c in chunks for line in c.deep_expressions
    ]


def deep_statement_note(line: int) -> str:
    return limit_note(f"a statement nested more than {MAX_DEPTH} levels deep was skipped", line)


def deep_expression_note(line: int) -> str:
    return limit_note(
        f"an expression nested more than {MAX_EXPRESSION_DEPTH} levels deep was skipped "
        "(its value is unknown; the rest of the statement was checked)",
        line,
    )


def _common_prefix(a: str, b: str) -> int:
    """The length of the prefix ``a`` and ``b`` share, by halving (each step one C comparison)."""
    low, high = 0, min(len(a), len(b))
    while low < high:
        middle = (low + high + 1) // 2
        if a[low:middle] == b[low:middle]:
            low = middle
        else:
            high = middle - 1
    return low


def _common_suffix(a: str, b: str, limit: int) -> int:
    """The length of the suffix ``a`` and ``b`` share, at most ``limit``."""
    low, high = 0, limit
    while low < high:
        middle = (low + high + 1) // 2
        if a[len(a) - middle : len(a) - low] == b[len(b) - middle : len(b) - low]:
            low = middle
        else:
            high = middle - 1
    return low


def _filtered(
    result: CheckResult, source: SourceText, select: Collection[str] | None, ignore: Collection[str]
) -> CheckResult:
    findings = [
        f
        for f in result.findings
        if (select is None or f.code in select) and f.code not in ignore and not _suppressed(source, f)
    ]
    findings.sort(key=lambda f: (f.span.start, f.code))
    return CheckResult(findings, result.errors, result.read)


# --------------------------------------------------------------------------- units


def unit_budget(lines: int) -> Callable[[int], int]:
    """Statements each of a file's units may execute, by how many there are: they share a budget
    that grows with the file's size (rounded up to a power of two, so that typing keeps it, and
    the cached outcomes, stable), up to MAX_FILE_STEPS: what bounds the time one file can take."""
    size = 1 << max(0, lines - 1).bit_length()
    total = min(MAX_FILE_STEPS, max(UNIT_BUDGET, STEPS_PER_LINE * size))
    return lambda units: min(UNIT_BUDGET, total // max(1, units))


def own_budget(lines: int) -> int:
    """The least budget of a unit whose own definition is ``lines`` long (rounded up to a power of
    two, so that typing keeps it, and the cached outcomes, stable)."""
    return min(MAX_FILE_STEPS, STEPS_PER_OWN_LINE * (1 << max(0, lines - 1).bit_length()))


def _units(
    chunks: list[Chunk], memo: Mentions, budget: Callable[[int], int], imported: frozenset[str]
) -> list[Unit]:
    """The module body (when it can reach a backward), then each function, then each class that
    can; each with the chunks it may reach."""
    reaching = BACKWARD_NAMES | imported
    relevant = memo.interned(_relevant_names(chunks, reaching))
    others = [c for c in chunks if c.kind == "other"]
    body_relevant = any(c.top_calls & (relevant | reaching) for c in others)
    named: dict[str, list[int]] = {}
    for index, chunk in enumerate(chunks):
        if chunk.kind != "other":
            named.setdefault(chunk.name, []).append(index)
    mentions = memo.mentions(frozenset(named))
    refs = [sorted({i for word in mentions(c) for i in named[word]}) for c in chunks]
    base = _reach(refs, {i for i, c in enumerate(chunks) if c.kind == "other"})

    entries = [(kind, i) for kind in ("function", "class") for i, c in enumerate(chunks) if c.kind == kind]
    entries = [(kind, i) for kind, i in entries if _is_entry(chunks[i], relevant)]
    share = budget(len(entries) + body_relevant)

    def unit(kind: str, index: int | None) -> Unit:
        reach = base if index is None else _reach(refs, {index}, base)
        chunk = None if index is None else chunks[index]
        own = others if chunk is None else [chunk]
        budget = max(share, own_budget(sum(c.text.count("\n") + 1 for c in own)))
        return Unit(kind, chunk, tuple(chunks[i] for i in sorted(reach)), body_relevant, relevant, budget)

    return ([unit("module", None)] if body_relevant else []) + [unit(kind, i) for kind, i in entries]


def _reach(refs: list[list[int]], start: set[int], known: frozenset[int] = frozenset()) -> frozenset[int]:
    """``known``, ``start`` and every chunk they name, to a fixpoint (``known`` is closed already)."""
    include = set(known) | start
    pending = [i for i in start if i not in known]
    while pending:
        for index in refs[pending.pop()]:
            if index not in include:
                include.add(index)
                pending.append(index)
    return frozenset(include)


def _is_entry(chunk: Chunk, relevant: frozenset[str]) -> bool:
    """A function that can reach a backward, or a class with such a method (``__init__`` aside)."""
    return bool(chunk.methods & relevant) if chunk.kind == "class" else chunk.name in relevant


def _relevant_names(chunks: list[Chunk], reaching: frozenset[str] = BACKWARD_NAMES) -> frozenset[str]:
    """Functions and methods that can reach a backward (a call of one of ``reaching``), by name,
    to a fixpoint."""
    functions: dict[str, set[str]] = {}
    for chunk in chunks:
        for name, calls in chunk.calls.items():
            functions.setdefault(name, set()).update(calls)
    return _fixpoint(functions, reaching)


def _fixpoint(functions: dict[str, set[str]], reaching: frozenset[str] = BACKWARD_NAMES) -> frozenset[str]:
    """The functions that call one of ``reaching``, or one of these, to any depth: each function
    is looked at once, and again each time a function it is called by is found."""
    callers: dict[str, list[str]] = {}
    for name, calls in functions.items():
        for called in calls:
            callers.setdefault(called, []).append(name)
    relevant: set[str] = set()
    pending = [name for called in reaching for name in callers.get(called, ())]
    while pending:
        name = pending.pop()
        if name not in relevant:
            relevant.add(name)
            pending += callers.get(name, ())
    return frozenset(relevant)


class BodyRuns:
    """Within one check, the module bodies run so far, by the chunks they were made of and the
    budget they ran with. A body's run is the same in every unit that reaches those chunks with
    that budget, so it runs once: a unit whose body ran to its end before goes on from a fork of
    the interpreter that ran it (``Interpreter.fork``), and one that stopped at a budget stops at
    any smaller one, so such a unit skips that run."""

    def __init__(self) -> None:
        self._stopped_at: dict[tuple[object, ...], int] = {}
        self._ran: dict[tuple[object, ...], Interpreter] = {}

    def seen(self, unit: Unit, stopped: bool) -> None:
        if stopped:
            key = _body_key(unit)
            self._stopped_at[key] = max(unit.budget, self._stopped_at.get(key, 0))

    def stops(self, unit: Unit) -> bool:
        return unit.budget <= self._stopped_at.get(_body_key(unit), -1)

    def keep(self, unit: Unit, interpreter: Interpreter) -> None:
        """``interpreter`` has just run the unit's module body to its end, and nothing else."""
        self._ran[_run_key(unit)] = interpreter.fork()

    def resume(self, unit: Unit, module: ast.Module) -> Interpreter | None:
        """An interpreter where the run of ``module``, the unit's module body, left one (None: it
        has not run, or ran on other trees of the same text: the findings and fixes of the unit's
        own code are told apart by its trees' nodes)."""
        ran = self._ran.get(_run_key(unit))
        if ran is None or len(ran.module.body) != len(module.body):
            return None
        if any(mine is not theirs for mine, theirs in zip(module.body, ran.module.body, strict=True)):
            return None
        return ran.fork()


def _body_key(unit: Unit) -> tuple[object, ...]:
    return tuple(c.key for c in unit.chunks)


def _run_key(unit: Unit) -> tuple[object, ...]:
    """What a module body's run depends on: its chunks and the budget it runs with."""
    return (*_body_key(unit), unit.budget)


def _run_unit(
    unit: Unit,
    source: SourceText,
    body: Callable[[Chunk], Body],
    modules: ModuleSource | None,
    stops: BodyRuns | None = None,
) -> Outcome:
    """Run the unit's entry points on a module of the chunks it may reach."""
    bodies = [body(c) for c in unit.chunks]  # once each: a tree parsed again is another tree
    interpreter, outcome = _run_bodies(unit, source, bodies, modules, stops or BodyRuns())
    if not outcome.passes:
        return outcome

    def refuting(flags: dict[FlagKey, FlagWay]) -> Outcome:
        return _run_bodies(unit, source, bodies, modules, BodyRuns(), refuting=flags)[1]

    return _refuted(outcome, interpreter.flag_runs() or [{}], refuting)


def _refuted(
    outcome: Outcome,
    flag_runs: list[dict[FlagKey, FlagWay]],
    run: Callable[[dict[FlagKey, FlagWay]], Outcome],
) -> Outcome:
    """``outcome`` without the findings at places where no refuting run reports one: each such run
    fixes the flags the unit tested one way (``flags.py``; one run with none fixed where it tested
    none) and splits at the tests a block repeats (``retests.py``), so a finding none of them shows
    came only from paths that take one flag, or one repeated test, both ways. Where the run that
    fixes no flag stops before its end (a budget), what it would have found is not known, and
    nothing is taken away; where runs that fix flags stop, a finding stands only where one of them
    showed it before it stopped: a path that takes a flag both ways is no witness."""
    found: set[Loc] = set()
    reported = {p.report for p in outcome.passes}
    for fixed in flag_runs:
        again = run(fixed)
        if again.errors and not fixed:
            return outcome
        found |= {p.report for p in again.passes}  # (a path of its own may tell the kind better)
        if reported <= found:
            return outcome  # every finding stands: the other runs could take none away
    passes = tuple(p for p in outcome.passes if p.report in found)
    return replace(outcome, passes=passes) if len(passes) < len(outcome.passes) else outcome


def _run_bodies(
    unit: Unit,
    source: SourceText,
    bodies: list[Body],
    modules: ModuleSource | None,
    stops: BodyRuns,
    *,
    refuting: dict[FlagKey, FlagWay] | None = None,
) -> tuple[Interpreter, Outcome]:
    """Run the unit's module body and entry points; ``refuting``: as a refuting run (``_refuted``)
    that fixes these flags."""
    module = ast.Module(body=[s for b in bodies for s in b], type_ignores=[])
    interpreter = _refuter(Interpreter(module, unit.budget, modules), refuting)
    complete = True
    if unit.kind == "module":
        errors = _run_all(interpreter, [("<module>", None, lambda: interpreter.run_module(True))])
        stops.seen(unit, interpreter.stopped is not None)
        if interpreter.stopped is None and not errors:
            stops.keep(unit, interpreter)
        first = 0
    else:
        # The module unit reports where the body stops.
        resumed = stops.resume(unit, module) if unit.body_relevant else None
        if resumed is not None:
            interpreter = resumed
        elif unit.body_relevant and stops.stops(unit):
            complete = False
        else:
            interpreter.run_module(unit.body_relevant)
            complete = interpreter.stopped is None
            if unit.body_relevant:
                stops.seen(unit, not complete)
                if complete:
                    stops.keep(unit, interpreter)
        if not complete:
            # The body stopped part-way at the budget: what its names hold from there on is not
            # known (a later statement may rebind or change them). The unit's own functions run
            # on its definitions alone, in an interpreter that kept nothing of the stopped run.
            interpreter = Interpreter(module, unit.budget, modules)
            interpreter.run_module(False)
        definitions_stopped = _definitions_note(interpreter, unit)
        interpreter.total_steps = 0  # the body's run sets the stage: the unit's budget is its own
        interpreter.forget_module_graphs()
        interpreter = _refuter(interpreter, refuting)
        first = len(interpreter.events)
        own = bodies[unit.own] if unit.own is not None else ()
        errors = [*definitions_stopped, *_run_all(interpreter, _entries(interpreter, unit, own))]
    return interpreter, _outcome(interpreter, source, first, errors, complete=complete)


def _refuter(interpreter: Interpreter, refuting: dict[FlagKey, FlagWay] | None) -> Interpreter:
    """``interpreter`` set to run as a refuting run that fixes the flags ``refuting`` holds (None:
    as a run that reports)."""
    interpreter.fixed_flags = dict(refuting or {})
    interpreter.split_retests = refuting is not None
    return interpreter


def _definitions_note(interpreter: Interpreter, unit: Unit) -> list[str]:
    """A note where even the module's definitions (and the project modules they import) did not
    all run within the unit's budget: its functions then run on the names bound before it ran out."""
    if interpreter.stopped is None or (unit.body_relevant and unit.kind != "module"):
        return []
    return [
        limit_note(
            f"the module's definitions and imports: {interpreter.stopped}; the names after it are not known"
        )
    ]


def _outcome(
    interpreter: Interpreter, source: SourceText, first: int, errors: list[str], *, complete: bool = True
) -> Outcome:
    """What the interpreter saw from its ``first`` event on, made findings; ``complete``: every run
    before those entry points (the module body a function unit starts from) ran to its end."""
    training_retains = interpreter.training_retains()
    read = tuple(Dependency(key, digest) for key, digest in interpreter.read.items())
    if not interpreter.events and not training_retains:
        return Outcome(errors=tuple(errors), read=read)
    ctx = RuleContext(
        source,
        interpreter.module,
        interpreter.nodes,
        interpreter.forward_calls,
        interpreter.stepping,
        interpreter.called_functions,
        interpreter.module_calls,
        interpreter.optimizer_calls,
        interpreter.ownership,
        complete=complete and not errors,
        cached_contexts=interpreter.cached_contexts,
        cached_reads=interpreter.cached_reads,
        called_lambdas=interpreter.called_lambdas,
        weight_norm_nodes=interpreter.weight_norm_nodes,
        constant_factors=interpreter.constant_factors,
    )
    elsewhere = _Elsewhere(interpreter)
    passes = tuple(r for e in interpreter.events[first:] if (r := _reported(e, ctx, elsewhere)) is not None)
    retains = tuple(
        Retained(
            _loc(s.site),
            s.justified,
            None if s.justified or s.unseen else retain_graph_in_loop.build(s, ctx),
        )
        for s in training_retains
    )
    return Outcome(passes, retains, tuple(errors), read)


class _Elsewhere:
    """Related places in the project's other modules that the check read, spelled in their own
    text (the text read now, only while it is still the one the check read)."""

    def __init__(self, interpreter: Interpreter) -> None:
        self.modules = interpreter.modules
        self.read = interpreter.read
        self.here = Here(interpreter.module)
        self._sources: dict[str, SourceText | None] = {}

    def related(self, module: str, node: ast.AST, message: str) -> Related | None:
        if module not in self._sources:
            text = self.modules.text(module) if self.modules is not None else None
            same = text is not None and digest(text) == self.read.get(module)
            self._sources[module] = SourceText(text) if text is not None and same else None
        source = self._sources[module]
        return None if source is None else Related(source.span(node), message, module)


def _across_modules(event: SecondPass) -> str:
    def place(module: str | None, node: ast.AST) -> str:
        line = getattr(node, "lineno", 0)
        return f"line {line}" if module is None else f"{Path(module).name}:{line}"

    raising, freeing = place(event.module, event.site), place(event.free.module, event.free.site)
    if raising == freeing:
        return f"the backward at {raising} goes through a graph that an earlier run of it already freed"
    return f"the backward at {raising} goes through a graph that the backward at {freeing} already freed"


def _reported(event: Observation, ctx: RuleContext, elsewhere: _Elsewhere) -> Reported | None:
    """The rule's finding, placed on the backward that raises (the innermost frame of the traceback
    torch would print, so that a log's error lands on the same line); where the rule speaks of a
    call in an outer frame (a helper called twice), that call is related information."""
    claimed = claiming(event)
    if claimed is None:
        return None
    code, build = claimed
    if not isinstance(event, SecondPass):
        finding = build(event, ctx)
        return Reported(_loc(event.site), _loc(event.site), True, code, finding)
    if event.local is not None:
        # A backward in another module of the project: here is the call that reaches it. Told in
        # this module's terms where all the rule reads lies here; else the finding says where.
        across = _across_related(event, ctx, elsewhere)
        told = localized(event, ctx, elsewhere.here)
        if told is not None:
            local, stands_in = told
            finding = told_here(build(local, ctx), stands_in, ctx)
            finding = replace(finding, span=ctx.source.span(event.local), related=(*across, *finding.related))
        else:
            finding = ctx.finding(code, event.local, _across_modules(event), [], across, "")
        return Reported(_loc(event.local), _loc(event.local), True, code, finding)
    finding = build(event, ctx)
    if event.report is not event.site:
        called = ctx.related(event.report, "the call that reaches this backward the second time")
        finding = replace(finding, span=ctx.source.span(event.site), related=(called, *finding.related))
    return Reported(_loc(event.site), _loc(event.site), True, code, finding)


def _across_related(event: SecondPass, ctx: RuleContext, elsewhere: _Elsewhere) -> list[Related]:
    """Where the call here leads: the backward that raises, and the one that freed its graph."""
    places = [
        (event.module, event.site, "this backward raises: its graph was freed"),
        (event.free.module, event.free.site, "the backward that freed the graph"),
    ]
    related = [
        ctx.related(node, message) if module is None else elsewhere.related(module, node, message)
        for module, node, message in places
    ]
    return [r for r in related if r is not None]


def _entries(interpreter: Interpreter, unit: Unit, body: Body) -> Entries:
    if len(body) != 1:
        return []
    (node,) = body
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        return [(node.name, node.lineno, partial(interpreter.run_function, node))]
    return _method_entries(interpreter, [node], unit.relevant)


def _method_entries(interpreter: Interpreter, classes: list[ast.stmt], relevant: frozenset[str]) -> Entries:
    """Each method but ``__init__`` of ``classes`` that can reach a backward, as its own entry."""
    entries: Entries = []
    given = {id(cls) for cls in classes}  # a module of 40,000 classes: no pass over them for each
    for info in list(interpreter.classes.values()):
        if id(info.node) not in given:
            continue
        for name, method in info.methods.items():
            if name != "__init__" and name in relevant and method in info.node.body:
                run = partial(interpreter.run_method, info, method)
                entries.append((f"{info.node.name}.{name}", method.lineno, run))
    return entries


def _loc(node: ast.AST) -> Loc:
    return (
        type(node).__name__,
        getattr(node, "lineno", 0),
        getattr(node, "col_offset", 0),
        getattr(node, "end_lineno", None),
        getattr(node, "end_col_offset", None),
    )


def _merge(outcomes: list[Outcome]) -> list[Finding]:
    """The units' findings as one check of the whole module reports them: where a backward is
    reported itself, calls that lead to it are not; one finding per place, by rule priority."""
    passes = [p for o in outcomes for p in o.passes]
    own = {(p.site, p.code) for p in passes if p.intrinsic}
    best: dict[tuple[int, int], Reported] = {}
    for p in passes:
        if not p.intrinsic and (p.site, p.code) in own:
            continue
        key = (p.report[1], p.report[2])
        known = best.get(key)
        if known is None or BY_CODE[p.code].priority < BY_CODE[known.code].priority:
            best[key] = p
    findings = [p.finding for p in best.values()]
    flagged = {(f.span.start.line, f.span.start.character) for f in findings}
    justified = {r.site for o in outcomes for r in o.retains if r.justified}
    reported: set[Loc] = set()
    for r in (r for o in outcomes for r in o.retains):
        if r.finding is None or r.site in justified or r.site in reported:
            continue
        reported.add(r.site)
        if (r.finding.span.start.line, r.finding.span.start.character) not in flagged:
            findings.append(r.finding)
    return findings


# --------------------------------------------------------------------------- a module as one unit


def _check_whole(module: ast.Module, source: SourceText, modules: ModuleSource | None) -> CheckResult:
    """One interpreter for the whole module: for text the chunks misread."""
    try:
        return _check_whole_module(module, source, modules)
    except RecursionError:
        shallow, notes = _without_deep_parts(module)
        result = _check_whole_module(shallow, source, modules)
        result.errors[:0] = notes
        return result


def _check_whole_module(module: ast.Module, source: SourceText, modules: ModuleSource | None) -> CheckResult:
    interpreter, errors = _run_whole(module, len(source.lines), modules)
    outcome = _outcome(interpreter, source, 0, errors)
    return CheckResult(_merge([outcome]), list(outcome.errors), outcome.read)


def _run_whole(module: ast.Module, lines: int, modules: ModuleSource | None) -> tuple[Interpreter, list[str]]:
    """One interpreter for the whole module, every entry point run; what failed inside it."""
    interpreter = Interpreter(module, max(UNIT_BUDGET, own_budget(lines)), modules)
    return interpreter, _run_entries(interpreter, module)


def observe(text: str) -> list[Observation]:
    """Every second pass the interpreter observes in ``text`` run as one module, before any rule
    decides what it is (what ``errknow-ls`` tests of the rules' claims run on)."""
    interpreter, _ = _run_whole(ast.parse(text), len(text.splitlines()), None)
    return interpreter.events


def _without_deep_parts(module: ast.Module) -> tuple[ast.Module, list[str]]:
    """The module without its statements too deep to check (and their expressions too deep to
    check), and what was left out."""
    shallow: list[ast.stmt] = []
    notes: list[str] = []
    for stmt in module.body:
        left_out: list[int] = []
        if within_depth(stmt, {}, left_out):
            shallow.append(stmt)
        else:
            notes.append(deep_statement_note(stmt.lineno))
        notes += [deep_expression_note(line) for line in left_out]
    return ast.Module(body=shallow, type_ignores=[]), notes


def _run_entries(interpreter: Interpreter, module: ast.Module) -> list[str]:
    """Run every entry point; one that fails inside the checker is reported, the rest still run."""
    relevant = _module_relevant(module)
    module_entry = ("<module>", None, lambda: interpreter.run_module(_body_is_relevant(module, relevant)))
    errors = _run_all(interpreter, [module_entry])
    interpreter.forget_module_graphs()
    entries: Entries = []
    for stmt in module.body:
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef) and stmt.name in relevant:
            entries.append((stmt.name, stmt.lineno, partial(interpreter.run_function, stmt)))
    top_level: list[ast.stmt] = [s for s in module.body if isinstance(s, ast.ClassDef)]
    return errors + _run_all(interpreter, entries + _method_entries(interpreter, top_level, relevant))


def _run_all(interpreter: Interpreter, entries: Entries) -> list[str]:
    """Run the entries; the checker's own failures, then where a limit stopped one (the first
    MAX_STOP_NOTES by name, then how many more)."""
    errors = []
    stopped: list[str] = []
    for name, line, run in entries:
        interpreter.stopped = None
        try:
            run()
        except Exception as exc:
            errors.append(f"{INTERNAL_ERROR} while checking {name}: {type(exc).__name__}: {exc}")
        if interpreter.stopped is not None:
            stopped.append(limit_note(f"{name}: {interpreter.stopped}; what follows was not checked", line))
    if len(stopped) > MAX_STOP_NOTES:
        more = len(stopped) - MAX_STOP_NOTES
        stopped[MAX_STOP_NOTES:] = [limit_note(f"{more:,} more functions stopped at the budget")]
    return errors + stopped


def _module_relevant(module: ast.Module) -> frozenset[str]:
    functions: dict[str, set[str]] = {}
    calls_by_function(module, functions)
    return _fixpoint(functions)


def _body_is_relevant(module: ast.Module, relevant: frozenset[str]) -> bool:
    for stmt in module.body:
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        if called_names(stmt) & (relevant | BACKWARD_NAMES):
            return True
    return False


def _suppressed(source: SourceText, finding: Finding) -> bool:
    return suppressed(source.line(finding.span.start.line + 1), finding.code, finding.name)
