"""Real captures: the programs under fixtures/programs run once per session, all at once, each
writing its stdout and stderr to one file as a terminal log or a job's log would hold them."""

from __future__ import annotations

import importlib.util
import os
import re
import socket
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from errknow_ls.tracebacks.lines import strip_ansi

PROGRAMS = Path(__file__).resolve().parent / "fixtures" / "programs"
TIMEOUT_SECONDS = 300
SECOND_BACKWARD = "RuntimeError: Trying to backward through the graph a second time"


@dataclass(frozen=True)
class Capture:
    name: str
    path: Path
    """The capture file: the program's output, or for ``notebook`` the executed notebook."""
    program: Path
    returncode: int

    @property
    def output(self) -> bytes:
        return self.path.read_bytes()

    @property
    def plain_lines(self) -> list[str]:
        """The capture's lines with colour codes gone, split on newlines only (as the reader counts)."""
        return strip_ansi(self.output.decode("utf-8", "replace")).split("\n")

    def lines_with(self, text: str) -> list[int]:
        return [i for i, line in enumerate(self.plain_lines) if text in line]

    def marker_line(self, marker: str, source: str | None = None) -> int:
        """The 1-based line of the program (or of ``source``) that carries ``# marker``."""
        lines = (source if source is not None else self.program.read_text(encoding="utf-8")).splitlines()
        found = [n for n, line in enumerate(lines, start=1) if re.search(rf"#\s*{re.escape(marker)}$", line)]
        assert len(found) == 1, f"{marker!r} in {self.program}: {found}"
        return found[0]


@dataclass
class _Job:
    name: str
    command: list[str]
    program: Path
    needs: tuple[str, ...] = ("torch",)
    stdin: Path | None = None
    env: dict[str, str] = field(default_factory=dict)
    output: Path | None = None
    """Where the program writes its result itself (the notebook); else its output is the capture."""


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _torchrun(program: Path, *extra: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "torch.distributed.run",
        "--nproc-per-node",
        "2",
        "--master-addr",
        "127.0.0.1",
        "--master-port",
        str(_free_port()),
        *extra,
        str(program),
    ]


def _jobs(workdir: Path) -> list[_Job]:
    python = sys.executable

    def script(name: str, *args: str) -> tuple[list[str], Path]:
        program = PROGRAMS / name
        return [python, str(program), *args], program

    ipython = [python, "-m", "IPython", "--colors=Linux", "--no-banner", "--HistoryManager.enabled=False"]
    ddp = PROGRAMS / "ddp_second_backward.py"
    notebook = workdir / "run.ipynb"
    return [
        _Job("plain", *script("second_backward.py")),
        _Job("inplace", *script("other_errors.py", "inplace")),
        _Job("shape", *script("other_errors.py", "shape")),
        _Job("chained-cause", *script("chained.py", "cause")),
        _Job("chained-context", *script("chained.py", "context")),
        _Job("exception-group", *script("exception_group.py")),
        _Job("torchrun", _torchrun(ddp), ddp),
        _Job("torchrun-tee", _torchrun(ddp, "--tee", "3"), ddp, env={"ERRKNOW_RECORD": "1"}),
        _Job(
            "ipython-session",
            [*ipython, "--simple-prompt"],
            PROGRAMS / "ipython_session.txt",
            ("torch", "IPython"),
            stdin=PROGRAMS / "ipython_session.txt",
        ),
        _Job(
            "ipython-script",
            [*ipython, str(PROGRAMS / "second_backward.py")],
            PROGRAMS / "second_backward.py",
            ("torch", "IPython"),
        ),
        _Job(
            "notebook",
            *script("make_notebook.py", str(notebook)),
            ("torch", "nbclient", "nbformat", "ipykernel"),
            output=notebook,
        ),
        _Job("rich", *script("rich_traceback.py"), ("torch", "rich")),
        _Job("tqdm", *script("tqdm_logging.py"), ("torch", "tqdm")),
    ]


def _environment(workdir: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        IPYTHONDIR=str(workdir / "ipython"),
        JUPYTER_PLATFORM_DIRS="1",
        JUPYTER_RUNTIME_DIR=str(workdir / "jupyter-runtime"),
        PYTHONDONTWRITEBYTECODE="1",
    )
    return env


@dataclass
class Captures:
    done: dict[str, Capture]
    skipped: dict[str, str]

    def __getitem__(self, name: str) -> Capture:
        if name in self.skipped:
            pytest.skip(self.skipped[name])
        return self.done[name]


def _missing(needs: tuple[str, ...]) -> list[str]:
    return [name for name in needs if importlib.util.find_spec(name) is None]


def _start(job: _Job, workdir: Path, env: dict[str, str]) -> tuple[Path, subprocess.Popen[bytes]]:
    log = workdir / f"{job.name}.log"
    with log.open("wb") as out, (job.stdin or Path(os.devnull)).open("rb") as stdin:
        process = subprocess.Popen(
            job.command, stdin=stdin, stdout=out, stderr=subprocess.STDOUT, cwd=workdir, env=env | job.env
        )
    return log, process


@pytest.fixture(scope="session")
def captures(tmp_path_factory: pytest.TempPathFactory) -> Captures:
    workdir = tmp_path_factory.mktemp("captures")
    env = _environment(workdir)
    result = Captures({}, {})
    running = []
    for job in _jobs(workdir):
        missing = _missing(job.needs)
        if missing:
            result.skipped[job.name] = f"{', '.join(missing)} not importable by {sys.executable}; `make test`"
        else:
            running.append((job, *_start(job, workdir, env)))
    for job, log, process in running:
        returncode = process.wait(timeout=TIMEOUT_SECONDS)
        path = job.output or log
        assert path.exists(), f"{job.name} made no capture:\n{log.read_text(errors='replace')[-3000:]}"
        result.done[job.name] = Capture(job.name, path, job.program, returncode)
    return result
