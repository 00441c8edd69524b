"""The pydantic model of one knowledge-base record, in the seed record's format."""

from __future__ import annotations

import datetime as dt
import re
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, model_serializer

Rate = Annotated[float, Field(ge=0.0, le=1.0)]
NonEmpty = Annotated[str, Field(min_length=1)]
VersionStr = Annotated[str, Field(pattern=r"^\d+(\.\d+){0,2}([a-z0-9.+-]*)?$")]
VerificationTier = Literal["ai_generated", "community", "cited", "reproduced", "verified"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


class VersionInfo(_Strict):
    """One release line of the library and how the error behaves there."""

    version: VersionStr
    introduced: str | None = None
    deprecated: str | None = None
    removed: str | None = None
    behavior_change: str | None = None
    status: Literal["active", "deprecated", "removed", "changed"] = "active"


_MEASURED = re.compile(r"^measured: (\d+) of (\d+) variants\b")
_APPLIES = re.compile(r"; the fix applies to (\d+) of (\d+) variants\b")


def measured(sources: list[str]) -> tuple[int, int] | None:
    """(cases that ran clean, cases) when a ``sources`` entry names the project's measurement
    (``measured: 3 of 4 variants in records/repro/... run clean (torch 2.13.0)``), else None."""
    for source in sources:
        found = _MEASURED.match(source)
        if found and int(found[2]) > 0:
            return int(found[1]), int(found[2])
    return None


def applies(sources: list[str]) -> tuple[int, int] | None:
    """(variants the fix is meant for, variants) when the project's measurement was made on some of
    a reproduction's variants only (``...; the fix applies to 1 of 5 variants``), else None."""
    for source in sources:
        if _MEASURED.match(source) and (found := _APPLIES.search(source)) and int(found[2]) > 0:
            return int(found[1]), int(found[2])
    return None


class DeadEnd(_Strict):
    """A fix people try that does not work, and how often it fails."""

    action: str
    why_fails: str
    fail_rate: Rate | None = None
    condition: str = ""
    sources: list[str] = Field(default_factory=list)


class Workaround(_Strict):
    """A fix that works, and how often."""

    action: str
    success_rate: Rate | None = None
    how: str = ""
    condition: str = ""
    sources: list[str] = Field(default_factory=list)


class TransitionGraph(_Strict):
    """Record ids this error leads to, follows, or is mistaken for."""

    leads_to: list[str] = Field(default_factory=list)
    preceded_by: list[str] = Field(default_factory=list)
    frequently_confused_with: list[str] = Field(default_factory=list)


class Citation(_Strict):
    """Where one claim of the record comes from: a URL, or a file of this project that shows it."""

    supports: NonEmpty = Field(pattern=r"^[a-z_]+(\.\d+)?(\.[a-z_]+)?$")
    """The claim, as a field path: ``aliases.0``, ``versions.2``, ``fix_success_rate``."""
    source: NonEmpty
    note: str = ""


class Change(_Strict):
    """One correction of a record's data, with the values it replaced."""

    date: dt.date
    note: NonEmpty
    previous: dict[str, Any] = Field(default_factory=dict)
    """Field path -> the value it held before this change."""


OMITTED_WHEN_EMPTY = ("citations", "history", "dead_ends_zh", "former_ids")
"""Fields added after the seed format: left out of a dump when empty, so seed-format records round-trip."""


RECORD_ID = r"^[a-z0-9][a-z0-9_.-]*(/[a-z0-9][a-z0-9_.-]*)*$"


class Record(_Strict):
    """One known error: how to recognise it, why it happens, what fails and what works."""

    id: NonEmpty = Field(pattern=RECORD_ID)
    signature: NonEmpty
    signature_zh: str = ""
    regex: NonEmpty
    domain: NonEmpty
    category: NonEmpty
    subcategory: str | None = None
    root_cause: NonEmpty
    root_cause_type: str = "generic"
    root_cause_zh: str = ""
    versions: list[VersionInfo] = Field(default_factory=list)
    os_specific: dict[str, Any] = Field(default_factory=dict)
    dead_ends: list[DeadEnd] = Field(default_factory=list)
    dead_ends_zh: list[str] = Field(default_factory=list)
    """Each dead end in Chinese, ``what people try — why it fails``, in ``dead_ends``'s order."""
    workarounds: list[Workaround] = Field(default_factory=list)
    workarounds_zh: list[str] = Field(default_factory=list)
    transition_graph: TransitionGraph = Field(default_factory=TransitionGraph)
    official_doc_url: str | None = Field(default=None, pattern=r"^https?://\S+$")
    official_doc_section: str | None = None
    error_code: str | None = None
    verification_tier: VerificationTier = "ai_generated"
    confidence: Rate
    fix_success_rate: Rate | None = None
    resolvable: Literal["true", "false", "partial"] = "true"
    first_seen: dt.date | None = None
    last_confirmed: dt.date | None = None
    last_updated: dt.date | None = None
    evidence_count: int = Field(default=0, ge=0)
    tags: list[str] = Field(default_factory=list)
    locale: str = "en"
    aliases: list[str] = Field(default_factory=list)
    """Other exact wordings of the message (another release's), which the regex must match too."""
    former_ids: list[Annotated[str, Field(pattern=RECORD_ID)]] = Field(default_factory=list)
    """Ids the record had before it was renamed: the knowledge base still finds it by them, so
    caches, settings and links written with an old id keep working."""
    citations: list[Citation] = Field(default_factory=list)
    history: list[Change] = Field(default_factory=list)

    @model_serializer(mode="wrap")
    def _omit_empty(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        for name in OMITTED_WHEN_EMPTY:
            if not data.get(name, True):
                del data[name]
        return data

    def cited(self, claim: str) -> list[Citation]:
        """The citations that support ``claim`` (a field path such as ``aliases.0``)."""
        return [citation for citation in self.citations if citation.supports == claim]

    def dump(self) -> dict[str, Any]:
        """The record as JSON data, field for field as it was loaded."""
        return self.model_dump(mode="json")

    def affects(self, version: str) -> bool | None:
        """True when ``version`` (e.g. ``2.3.1``) is on a listed release line, False when it is on
        one listed as ``removed``, None when nobody checked that line (not listed is not "safe")."""
        parts = version.split("+", maxsplit=1)[0].split(".")
        for info in self.versions:
            listed = info.version.split(".")
            if parts[: len(listed)] == listed:
                return info.status != "removed"
        return None


def json_schema() -> dict[str, Any]:
    """The JSON Schema that ``records/schema.json`` holds."""
    schema = Record.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = "https://github.com/errknow/errknow-ls/records/schema.json"
    return schema
