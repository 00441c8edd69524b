"""The static checker: an abstract interpreter over Python source (imports only ``core``)."""

from errknow_ls.analysis.checker import Cache, CheckResult, check_source
from errknow_ls.analysis.registry import RULES, RuleInfo

__all__ = ["RULES", "Cache", "CheckResult", "RuleInfo", "check_source"]
