"""The rules, one per file; each decides which of the interpreter's events are its own and turns
them into findings.

A rule is a module here with ``CODE`` (its entry in ``analysis/registry.py``), its documentation as
the module docstring, and either ``claims(event: Observation) -> bool`` with ``build(event, ctx)``
(rules about what the interpreter observed: a second pass through a freed graph, a saved tensor
read after it was freed) or ``build(site, ctx)`` for a retain site. The modules are found by
walking this package: adding a rule is a registry entry, a file, fixtures.
"""

from __future__ import annotations

import dataclasses
import importlib
import pkgutil
import re
from collections.abc import Callable
from types import ModuleType

from errknow_ls.analysis.events import Observation
from errknow_ls.analysis.registry import BY_CODE
from errknow_ls.analysis.rules import zh
from errknow_ls.analysis.rules.context import RuleContext
from errknow_ls.core import Finding


def _rule_modules() -> tuple[ModuleType, ...]:
    found = []
    for info in pkgutil.iter_modules(__path__):
        module = importlib.import_module(f"{__name__}.{info.name}")
        if isinstance(getattr(module, "CODE", None), str):
            found.append(module)
    return tuple(sorted(found, key=lambda m: m.CODE))


RULE_MODULES = _rule_modules()
"""Every rule's module, by code."""
OBSERVATION_RULES: tuple[ModuleType, ...] = tuple(
    sorted((m for m in RULE_MODULES if hasattr(m, "claims")), key=lambda m: BY_CODE[m.CODE].priority)
)
"""The rules about what the interpreter observed, by priority."""


def claiming(event: Observation) -> tuple[str, Callable[[Observation, RuleContext], Finding]] | None:
    """The code and finding builder of the rule whose event this is (None: no rule's)."""
    for module in OBSERVATION_RULES:
        if module.claims(event):
            return module.CODE, module.build
    return None


def documentation(code: str, lang: str = "en") -> str:
    """The rule's own docs (its module docstring, or its Chinese in ``zh``), as hover and
    ``--explain`` show them."""
    if lang == "zh" and code in zh.DOCUMENTATION:
        return zh.DOCUMENTATION[code]
    for module in RULE_MODULES:
        if code == module.CODE:
            return (module.__doc__ or "").strip()
    return ""


_WHY = re.compile(r"^### (?:Why is this bad\?|为什么有问题？)\n(.*?)(?=^### |\Z)", re.M | re.S)  # noqa: RUF001


def why(code: str, lang: str = "en") -> str:
    """Why the rule's pattern raises: its documentation's *Why is this bad?* section, which explains
    this pattern (the record's root cause speaks of the error in general)."""
    found = _WHY.search(documentation(code, lang))
    if not found:
        return ""
    lines = [line.strip() for line in found[1].strip().splitlines()]
    return ("" if lang == "zh" else " ").join(lines)  # Chinese wraps lines without a space


def documentation_without_why(code: str, lang: str = "en") -> str:
    """The documentation below a hover that has already said why."""
    return _WHY.sub("", documentation(code, lang)).strip()


def localized(finding: Finding, lang: str) -> Finding:
    """The finding as a person reading ``lang`` sees it: message, related places and fix titles."""
    if lang != "zh":
        return finding
    say = zh.MESSAGES.translate
    return dataclasses.replace(
        finding,
        message=say(finding.message),
        related=tuple(dataclasses.replace(r, message=say(r.message)) for r in finding.related),
        fixes=tuple(dataclasses.replace(f, title=say(f.title)) for f in finding.fixes),
    )
