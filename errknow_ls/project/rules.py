"""Which rules run, for the CLI and the server alike: one selection type and one resolver.

Selectors name rules by code, code prefix (``EK``, ``EK00``) or name. The caller's selectors (the
command line's, or the editor's) replace the project's ``[tool.errknow]`` ones key by key;
``extend-select`` adds to ``select``; a selector that names no rule is reported back, for the caller
to turn into an error (the command line) or a message (``pyproject.toml``, the editor).
``per-file-ignores`` (``PerFileIgnores``) adds, for the files a glob matches, codes never reported.
"""

from __future__ import annotations

import dataclasses
import fnmatch
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from errknow_ls.analysis.registry import RULES, resolve

SeverityName = Literal["error", "warning", "information", "hint", "off"]


@dataclass(frozen=True, slots=True)
class RuleSelection:
    """Codes to report (``None``: every rule), codes never to report, and per-rule severities."""

    select: frozenset[str] | None = None
    ignore: frozenset[str] = field(default_factory=frozenset)
    severity: Mapping[str, SeverityName] = field(default_factory=dict, compare=False)
    """Per rule code or name (the editor's ``severity``); ``off`` turns a rule off."""

    def allows(self, code: str) -> bool:
        return (self.select is None or code in self.select) and code not in self.ignore

    def severity_of(self, code: str, name: str) -> SeverityName | None:
        return self.severity.get(code) or self.severity.get(name)

    def ignored(self) -> frozenset[str]:
        """``ignore`` and the rules whose severity is ``off``."""
        off = (rule.code for rule in RULES if self.severity_of(rule.code, rule.name) == "off")
        return self.ignore | frozenset(off)


@dataclass(frozen=True, slots=True)
class Selectors:
    """``select``, ``ignore`` and ``extend-select`` as one layer of settings gives them; ``None``:
    not given."""

    select: Sequence[str] | None = None
    ignore: Sequence[str] | None = None
    extend_select: Sequence[str] | None = None


@dataclass(frozen=True, slots=True)
class UnknownSelectors:
    """Selectors that name no rule, where they were written."""

    key: Literal["select", "ignore", "extend-select", "severity"]
    given: bool
    """From the caller's layer (command line, editor), not the project's."""
    names: tuple[str, ...]

    def describe(self) -> str:
        return ", ".join(repr(name) for name in self.names)


def split_selectors(values: Iterable[str]) -> list[str]:
    """``["EK001,EK002", "double-backward"]`` -> ``["EK001", "EK002", "double-backward"]``."""
    return [part.strip() for value in values for part in value.split(",") if part.strip()]


def resolve_selectors(selectors: Iterable[str]) -> tuple[frozenset[str], list[str]]:
    """The codes the selectors name, and the selectors that name no rule."""
    codes: set[str] = set()
    unknown: list[str] = []
    for selector in split_selectors(selectors):
        rules = resolve(selector)
        if not rules:
            unknown.append(selector)
        codes.update(rule.code for rule in rules)
    return frozenset(codes), unknown


def select_rules(
    given: Selectors, configured: Selectors, severity: Mapping[str, SeverityName] | None = None
) -> tuple[RuleSelection, list[UnknownSelectors]]:
    """The rules ``given`` and ``configured`` (the project's) select, each key of ``given``
    replacing the project's; and the selectors that name no rule, in the order ``select``,
    ``ignore``, ``extend-select``, ``severity``.

    A project key whose every selector is unknown counts as absent (``select``: every rule).
    ``extend-select`` adds to ``select``; without ``select`` every rule is reported anyway.
    """
    unknown: list[UnknownSelectors] = []
    codes: dict[str, frozenset[str] | None] = {}
    keys: tuple[tuple[Literal["select", "ignore", "extend-select"], str], ...] = (
        ("select", "select"),
        ("ignore", "ignore"),
        ("extend-select", "extend_select"),
    )
    for key, attribute in keys:
        mine, theirs = getattr(given, attribute), getattr(configured, attribute)
        chosen, is_given = (mine, True) if mine is not None else (theirs, False)
        if chosen is None:
            codes[key] = None
            continue
        found, names = resolve_selectors(chosen)
        if names:
            unknown.append(UnknownSelectors(key, is_given, tuple(names)))
        codes[key] = None if (names and not found and not is_given) else found
    select, extend = codes["select"], codes["extend-select"]
    if select is not None and extend:
        select = select | extend
    severity = dict(severity or {})
    bad = tuple(name for name in severity if not resolve(name))
    if bad:
        unknown.append(UnknownSelectors("severity", True, bad))
    selection = RuleSelection(select, codes["ignore"] or frozenset(), severity)
    return selection, unknown


@dataclass(frozen=True, slots=True)
class PerFileIgnores:
    """``per-file-ignores``: a glob (relative to the project root; a bare name matches in any
    directory) and the codes never reported in the files it matches."""

    root: Path | None
    globs: tuple[tuple[str, frozenset[str]], ...] = ()

    @classmethod
    def resolve(
        cls, root: Path | None, per_file_ignores: Mapping[str, Sequence[str]]
    ) -> tuple[PerFileIgnores, list[tuple[str, list[str]]]]:
        """The globs' codes, and each glob's selectors that name no rule."""
        globs = []
        unknown = []
        for glob, selectors in per_file_ignores.items():
            codes, names = resolve_selectors(selectors)
            if names:
                unknown.append((glob, names))
            globs.append((glob, codes))
        return cls(root, tuple(globs)), unknown

    def codes_for(self, path: Path | None) -> frozenset[str]:
        if path is None or not self.globs:
            return frozenset()
        absolute = path.resolve()
        try:
            relative = absolute.relative_to(self.root.resolve()).as_posix() if self.root else path.as_posix()
        except ValueError:
            relative = path.as_posix()
        codes: set[str] = set()
        for glob, ignored in self.globs:
            if fnmatch.fnmatchcase(relative, glob) or fnmatch.fnmatchcase(path.name, glob):
                codes |= ignored
        return frozenset(codes)

    @staticmethod
    def describe_unknown(glob: str, names: Sequence[str]) -> str:
        """The warning for a glob's selectors that name no rule (the CLI's and the server's)."""
        described = ", ".join(repr(name) for name in names)
        return f"[tool.errknow] per-file-ignores: {glob!r}: no rule matches {described}; ignored"

    def rules_for(self, path: Path | None, rules: RuleSelection) -> RuleSelection:
        """``rules`` with what ``path``'s globs ignore added to ``ignore``."""
        codes = self.codes_for(path)
        return dataclasses.replace(rules, ignore=rules.ignore | codes) if codes else rules
