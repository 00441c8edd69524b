"""The rules, one per file; each decides which of the interpreter's events are its own and turns
them into findings.

A rule is a module here with ``CODE`` (its entry in ``analysis/registry.py``), its documentation as
the module docstring, and either ``claims(event: Observation) -> bool`` with ``build(event, ctx)``
(rules about what the interpreter observed: a second pass through a freed graph, a saved tensor
read after it was freed) or ``build(site, ctx)`` for a retain site. The modules are found by
walking this package: adding a rule is a registry entry, a file, fixtures.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from types import ModuleType

from errknow_ls.analysis.events import Observation
from errknow_ls.analysis.registry import BY_CODE
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


def documentation(code: str) -> str:
    """The rule's own docs (its module docstring), as hover and ``--explain`` show them."""
    for module in RULE_MODULES:
        if code == module.CODE:
            return (module.__doc__ or "").strip()
    return ""
