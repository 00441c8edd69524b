"""The sample of real error reports in ``tests/kb/reports/`` and what ``errknow-ls explain`` makes of each.

``queries.json`` holds the queries, written before any was run; ``qNN.json`` every result of query
qNN in the order the search returned it: its address, the torch version where the report states
one, and the error text as the report quotes it (``null`` where it quotes none: a screenshot, a pull
request). Each quoted error carries its kind and the record that explains it as judged from the
report (``"none"`` where no record is its error; a list where the report quotes two errors).
"""

from __future__ import annotations

import io
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from errknow_ls.runner.explain import ExplainOptions, run_explain

REPORTS_DIR = Path(__file__).resolve().parent / "reports"
NO_RECORD = "none"


@dataclass(frozen=True, slots=True)
class Query:
    id: str
    corpus: str
    text: str


@dataclass(frozen=True, slots=True)
class Report:
    query: str
    rank: int
    url: str
    torch: str | None
    error: str
    kind: str
    expected: tuple[str, ...]
    """The records that explain it; empty where none does."""


@dataclass(frozen=True, slots=True)
class Sample:
    queries: list[Query]
    results: dict[str, int]
    """Query id -> how many results it returned (quoting an error or not)."""
    reports: list[Report]
    """The results that quote an error, query by query, in the order returned."""


def load_sample(directory: Path = REPORTS_DIR) -> Sample:
    listed = json.loads((directory / "queries.json").read_text(encoding="utf-8"))["queries"]
    queries = [Query(q["id"], q["corpus"], q["query"]) for q in listed]
    results: dict[str, int] = {}
    reports: list[Report] = []
    for query in queries:
        returned = json.loads((directory / f"{query.id}.json").read_text(encoding="utf-8"))["reports"]
        results[query.id] = len(returned)
        for item in returned:
            if item["error"] is None:
                continue
            expected = item["expected"]
            ids = (expected,) if isinstance(expected, str) else tuple(expected)
            reports.append(
                Report(
                    query=query.id,
                    rank=item["rank"],
                    url=item["url"],
                    torch=item["torch"],
                    error=item["error"],
                    kind=item["kind"],
                    expected=tuple(i for i in ids if i != NO_RECORD),
                )
            )
    return Sample(queries, results, reports)


def explained_by(error: str, records: Sequence[Path] = ()) -> list[str]:
    """The records ``errknow-ls explain`` names for ``error`` given on standard input, in order."""
    out = io.StringIO()
    options = ExplainOptions(sources=["-"], output_format="json", records=list(records))
    run_explain(options, stdin=io.BytesIO(error.encode("utf-8")), out=out, err=io.StringIO())
    return [item["record"] for item in json.loads(out.getvalue()) if item["record"]]


@dataclass(frozen=True, slots=True)
class Outcome:
    report: Report
    found: list[str]

    @property
    def covered(self) -> bool:
        """A record that explains it was named."""
        return any(record in self.report.expected for record in self.found)

    @property
    def wrong(self) -> list[str]:
        """Records named that are not its error."""
        return [record for record in self.found if record not in self.report.expected]


def outcomes(sample: Sample) -> list[Outcome]:
    return [Outcome(report, explained_by(report.error)) for report in sample.reports]
