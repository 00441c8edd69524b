"""Fixtures of the editor end-to-end tests: a fresh copy of the fixture project, an artifacts folder."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.editors.support import ARTIFACTS, make_project


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_project(tmp_path)


@pytest.fixture
def artifacts(request: pytest.FixtureRequest) -> Iterator[Path]:
    """``test-artifacts/<test name>/``, emptied first: screenshots and logs a person can look at."""
    directory = ARTIFACTS / request.node.name.replace("[", "-").replace("]", "")
    shutil.rmtree(directory, ignore_errors=True)
    directory.mkdir(parents=True)
    yield directory
