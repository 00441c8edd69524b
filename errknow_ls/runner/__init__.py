"""``errknow-ls check``: find files, check them, apply fixes, print findings (core, kb, analysis).

The layer between the checker, which sees one source text, and the command line, which sees
paths and flags: file discovery, project settings, the fix loop, atomic writes, output formats.
"""

from errknow_ls.runner.options import CheckOptions, ExitCode, OutputFormat
from errknow_ls.runner.run import run_check

__all__ = ["CheckOptions", "ExitCode", "OutputFormat", "run_check"]
