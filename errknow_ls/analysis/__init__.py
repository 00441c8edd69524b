"""The static checker: an abstract interpreter over Python source (imports only ``core``).

The checker itself is imported when first used: a warm ``check`` answered from its cache, or a
command that only reads the rules' registry, never pays for it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from errknow_ls.analysis.registry import RULES, RuleInfo

if TYPE_CHECKING:
    from errknow_ls.analysis.checker import Cache, CheckResult, CheckStopped, check_source

__all__ = ["RULES", "Cache", "CheckResult", "CheckStopped", "RuleInfo", "check_source"]
_LAZY = frozenset({"Cache", "CheckResult", "CheckStopped", "check_source"})


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        from errknow_ls.analysis import checker  # noqa: PLC0415 (lazy: `check` on cached files never loads it)

        return getattr(checker, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
