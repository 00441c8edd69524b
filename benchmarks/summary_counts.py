"""How many calls of the project's own functions a summary answered on the real-code corpus, and
that the summaries change no finding.

    python benchmarks/summary_counts.py [--corpus /work/corpus] [--limit N]

Checks every Python file ``check`` would read (the same discovery), in this process, with the
project's modules read as ``check`` reads them: once with summaries off (every call runs its body)
and once with them on, from an empty memo. Prints the calls answered by a summary and the calls
inlined, the summaries worked out, the time of each pass, and every file whose findings differ
(message, place, notes and fixes compared whole). Nothing passes or fails.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from errknow_ls.analysis import check_source
from errknow_ls.analysis.summaries import SUMMARIES
from errknow_ls.project.discovery import Excluder, discover
from errknow_ls.project.modules import ProjectModules
from errknow_ls.runner.notebooks import is_notebook


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=Path("/work/corpus"))
    parser.add_argument("--limit", type=int, default=0, help="check only the first N files")
    args = parser.parse_args()
    files = [p for p in discover([args.corpus], Excluder()).files if not is_notebook(p)]
    if args.limit:
        files = files[: args.limit]
    texts = {}
    for path in files:
        try:
            texts[path] = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
    passes = {}
    for enabled in (False, True):
        SUMMARIES.clear()
        SUMMARIES.enabled = enabled
        start = time.perf_counter()
        passes[enabled] = {
            path: check_source(text, modules=ProjectModules.for_file(path)) for path, text in texts.items()
        }
        took = time.perf_counter() - start
        stats = SUMMARIES.stats
        print(f"summaries {'on ' if enabled else 'off'}: {len(texts)} files in {took:.1f} s")
    print(f"calls of the project's functions answered by a summary: {stats.applied}")
    print(f"calls of the project's functions inlined (body run):    {stats.inlined}")
    for why, count in sorted(stats.because.items(), key=lambda pair: -pair[1]):
        print(f"  {count:6d}  {why}")
    print(f"summaries worked out: {stats.worked_out}")
    differ = [p for p in texts if passes[False][p].findings != passes[True][p].findings]
    findings = sum(len(r.findings) for r in passes[True].values())
    print(f"findings: {findings}; files whose findings differ: {len(differ)}")
    for path in differ:
        print(f"  {path}")


if __name__ == "__main__":
    main()
