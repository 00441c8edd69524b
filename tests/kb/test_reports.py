"""The sample of real error reports (tests/kb/sample_reports.py): whole, judged against records that
exist, and never explained by a record that is not the report's error. Coverage is not asserted
here: ``benchmarks/kb_coverage.py`` prints it."""

from __future__ import annotations

import json

import pytest

from tests.kb.sample_reports import NO_RECORD, REPORTS_DIR, Sample, load_sample, outcomes
from tests.support import SHIPPED_IDS


@pytest.fixture(scope="module")
def sample() -> Sample:
    return load_sample()


def test_every_query_kept_every_result_in_the_order_returned(sample: Sample) -> None:
    for query in sample.queries:
        returned = json.loads((REPORTS_DIR / f"{query.id}.json").read_text(encoding="utf-8"))
        assert returned["query"] == query.id
        ranks = [item["rank"] for item in returned["reports"]]
        assert ranks == list(range(1, len(ranks) + 1)), query.id
        assert all(item["url"].startswith(("https://", "http://")) for item in returned["reports"])
    assert {path.stem for path in REPORTS_DIR.glob("q*.json")} - {"queries"} == {q.id for q in sample.queries}


def test_every_quoted_error_is_judged_against_a_record_that_exists(sample: Sample) -> None:
    assert sample.reports
    for report in sample.reports:
        assert report.error.strip() and report.kind.strip(), report.url
        assert set(report.expected) <= set(SHIPPED_IDS), (report.url, report.expected)
        assert NO_RECORD not in report.expected


def test_no_report_is_explained_by_a_record_that_is_not_its_error(sample: Sample) -> None:
    wrong = [(o.report.query, o.report.rank, o.wrong) for o in outcomes(sample) if o.wrong]
    assert wrong == []
