"""How much of a fairly drawn sample of real error reports the knowledge base explains.

    python benchmarks/kb_coverage.py

Runs ``errknow-ls explain`` over every quoted error in ``tests/kb/reports/`` (see
``tests/kb/sample_reports.py``) and prints coverage overall, for the errors PyTorch raises (a
project's own message or another program's error can have no record here), and per query; every
wrong match (a record named that is not the report's error); and the kinds no record explains, most
frequent first. Nothing passes or fails: the test of the sample is ``tests/kb/test_reports.py``.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.kb.sample_reports import Outcome, load_sample, outcomes

NOT_TORCH = {"not a PyTorch error", "project's own message"}
"""Kinds no PyTorch record can explain: another program's error, a project's own message."""


def share(outcomes: list[Outcome]) -> str:
    covered = sum(outcome.covered for outcome in outcomes)
    percent = f"{covered / len(outcomes):.1%}" if outcomes else "-"
    return f"{covered} of {len(outcomes)} ({percent})"


def main() -> None:
    sample = load_sample()
    results = outcomes(sample)
    torch_errors = [outcome for outcome in results if outcome.report.kind not in NOT_TORCH]
    print(f"results returned: {sum(sample.results.values())}; quoting an error: {len(results)}")
    print(f"explained, all quoted errors: {share(results)}")
    print(f"explained, PyTorch errors only: {share(torch_errors)}")
    wrong = [outcome for outcome in results if outcome.wrong]
    print(f"wrong matches: {len(wrong)}")
    for outcome in wrong:
        print(f"  {outcome.report.query}#{outcome.report.rank} {outcome.report.url}: {outcome.wrong}")
    print("\nper query (results returned; errors explained):")
    for query in sample.queries:
        mine = [outcome for outcome in results if outcome.report.query == query.id]
        print(f"  {query.id} {query.corpus:6} {sample.results[query.id]:3}  {share(mine):18} {query.text}")
    missed = Counter(outcome.report.kind for outcome in results if not outcome.covered)
    print("\nkinds no record explains, most frequent first:")
    for kind, count in missed.most_common():
        print(f"  {count:3}  {kind}")


if __name__ == "__main__":
    main()
