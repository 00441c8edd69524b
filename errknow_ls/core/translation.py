"""Messages in the user's language: a catalog of English templates and their translations.

The checker writes its messages in English (they are cached, encoded and compared in English);
what a person reads is translated at the edge, as gettext does with its message ids. A template
names its parts in braces (``{tensor} is backwarded a second time``); a part's text is kept as it
is (code, a line number) unless the catalog translates it too (``the previous iteration``).
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterable
from dataclasses import dataclass, field


def language(locale: str | None) -> str:
    """``zh`` for any Chinese locale (``zh``, ``zh-CN``, ``zh_TW``), else ``en``."""
    return "zh" if locale and locale.lower().replace("_", "-").startswith("zh") else "en"


@dataclass(frozen=True, slots=True)
class _Entry:
    english: str
    pattern: re.Pattern[str]
    translated: str


def _compile(english: str) -> re.Pattern[str]:
    parts = []
    seen: set[str] = set()
    for literal, name, _spec, _conversion in string.Formatter().parse(english):
        parts.append(re.escape(literal))
        if name:
            parts.append(f"(?P={name})" if name in seen else f"(?P<{name}>.+?)")
            seen.add(name)
    return re.compile("".join(parts), re.DOTALL)


_TRANSLATED: dict[str, re.Pattern[str]] = {}


def _translated(entry: _Entry) -> re.Pattern[str]:
    """The pattern of an entry's translation (its parts named as in the English)."""
    if entry.translated not in _TRANSLATED:
        _TRANSLATED[entry.translated] = _compile(entry.translated)
    return _TRANSLATED[entry.translated]


@dataclass(frozen=True, slots=True)
class Catalog:
    """English templates -> their translation into one language, tried in order."""

    entries: tuple[_Entry, ...] = field(default_factory=tuple)

    @classmethod
    def of(cls, pairs: Iterable[tuple[str, str]]) -> Catalog:
        return cls(tuple(_Entry(english, _compile(english), translated) for english, translated in pairs))

    def __add__(self, other: Catalog) -> Catalog:
        return Catalog(self.entries + other.entries)

    def find(self, text: str) -> str | None:
        """The translation of ``text``, or None when no template matches all of it."""
        for entry in self.entries:
            found = entry.pattern.fullmatch(text)
            if found is not None:
                parts = {name: self.find(value) or value for name, value in found.groupdict().items()}
                return entry.translated.format(**parts)
        return None

    def template_of(self, text: str) -> str | None:
        """The English template ``text`` is an instance of, in English or translated (what a fix
        title says, whatever the names and lines in it), or None."""
        for entry in self.entries:
            if entry.pattern.fullmatch(text) is not None or _translated(entry).fullmatch(text) is not None:
                return entry.english
        return None

    def translate(self, text: str) -> str:
        """The translation of ``text``, or ``text`` itself where the catalog has none."""
        return self.find(text) or text
