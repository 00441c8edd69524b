"""Emacs 28 + eglot 1.9 (Debian's emacs-nox and elpa-eglot), in batch, with editors/emacs/errknow.el."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.editors.support import PATTERN_WHY, VENV_BIN, check_clean
from tests.support import REPO, english_left

SNIPPET = REPO / "editors" / "emacs" / "errknow.el"
SCENARIOS = Path(__file__).resolve().parent / "emacs"
PACKAGES = ["emacs-nox", "elpa-eglot"]


@pytest.fixture(scope="session")
def emacs() -> str:
    """Debian's Emacs with eglot, installed with apt-get when missing."""
    if not Path("/usr/share/emacs/site-lisp/elpa").is_dir() or shutil.which("emacs") is None:
        if shutil.which("apt-get") is None or os.geteuid() != 0:
            pytest.skip("emacs-nox and elpa-eglot are missing and apt-get cannot install them (needs root)")
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        subprocess.run(["apt-get", "update", "-qq"], env=env, check=True, timeout=600)
        subprocess.run(
            ["apt-get", "install", "-y", "-qq", "--no-install-recommends", *PACKAGES],
            env=env,
            check=True,
            capture_output=True,
            timeout=900,
        )
    emacs = shutil.which("emacs")
    assert emacs is not None
    return emacs


@pytest.fixture(scope="session")
def markdown_mode(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Debian's markdown-mode (elpa-markdown-mode), unpacked into a folder of its own and not installed:
    the Emacs the other scenarios drive stays without it, as Emacs is by default."""
    if shutil.which("apt-get") is None or shutil.which("dpkg") is None:
        pytest.skip("fetching markdown-mode needs apt-get and dpkg")
    folder = tmp_path_factory.mktemp("markdown-mode")
    subprocess.run(["apt-get", "download", "-qq", "elpa-markdown-mode"], cwd=folder, check=True, timeout=300)
    [package] = folder.glob("elpa-markdown-mode_*.deb")
    subprocess.run(["dpkg", "-x", str(package), str(folder / "unpacked")], check=True, timeout=120)
    [source] = (folder / "unpacked").glob(
        "usr/share/emacs/site-lisp/elpa-src/markdown-mode-*/markdown-mode.el"
    )
    return source.parent


def run_scenario(emacs: str, project: Path, scenario: str, env: dict[str, str]) -> dict[str, Any]:
    """``emacs -Q --batch -l <scenario>.el`` in the project, HOME and the cache beside it; what it saw."""
    out = project.parent / "seen.json"
    result = subprocess.run(
        [emacs, "-Q", "--batch", "-l", str(SCENARIOS / f"{scenario}.el")],
        cwd=project,
        env={
            **os.environ,
            "HOME": str(project.parent),
            "XDG_CACHE_HOME": str(project.parent / "cache"),
            "ERRKNOW_EMACS_SNIPPET": str(SNIPPET),
            "ERRKNOW_E2E_OUT": str(out),
            **env,
        },
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    seen: dict[str, Any] = json.loads(out.read_text(encoding="utf-8")) if out.exists() else {}
    assert result.returncode == 0, (
        f"emacs exited {result.returncode}: {seen.get('error')}\n{result.stderr[-3000:]}"
    )
    return seen


@pytest.mark.parametrize("hover_format", ["plaintext", "markdown"])
def test_eglot_diagnostics_and_code_actions(
    emacs: str, project: Path, hover_format: str, request: pytest.FixtureRequest
) -> None:
    env = {"ERRKNOW_E2E_FILE": str(project / "warmup_probe.py")}
    if hover_format == "markdown":  # eglot asks for Markdown where markdown-mode is there
        env["ERRKNOW_EMACS_MARKDOWN_MODE"] = str(request.getfixturevalue("markdown_mode"))
    seen = run_scenario(emacs, project, "e2e", env)

    assert seen["server"] == [str(project / ".venv" / "bin" / "errknow-ls"), "serve"]
    [diagnostic] = seen["diagnostics"]
    assert diagnostic["line"] == 18
    assert diagnostic["type"] == "eglot-error"
    assert "[EK002]" in diagnostic["text"]
    # The hover's link opens the record explained whole, the file the server wrote under
    # XDG_CACHE_HOME. Without markdown-mode eglot asks for plain text: the file's URI follows the
    # command, and M-x ffap on it opens it. With markdown-mode the link shows as the command alone,
    # and mouse-2 on it opens it (browse-url visits a file: URL in Emacs, named by its URL).
    assert PATTERN_WHY in seen["hover_shown"]
    [whole] = (project.parent / "cache" / "errknow-ls" / "explain").rglob("*.md")
    assert f"({whole.as_uri()})" in seen["hover"]
    if hover_format == "plaintext":
        assert f"({whole.as_uri()})" in seen["hover_shown"]
        assert seen["hover_link"] == str(whole)
        assert seen["hover_link_opened"] == str(whole)
    else:
        assert "file:" not in seen["hover_shown"] and "**" not in seen["hover_shown"], seen["hover_shown"]
        assert "errknow-ls explain " in seen["hover_shown"]
        assert seen["hover_link_command"] == "markdown-follow-thing-at-point"
        assert seen["hover_link_opened"] in {str(whole), whole.as_uri()}
    assert seen["hover_link_text"] == whole.read_text(encoding="utf-8")
    assert "**What not to do**" in seen["hover_link_text"]
    assert seen["actions"][0] == "Compute `features` inside the loop, on every iteration (safe)"  # preferred
    assert "Disable EK002 for this line" in seen["actions"]
    assert "for epoch in range(5):\n    features = backbone(inputs)\n" in seen["fixed"]
    assert (project / "warmup_probe.py").read_text(encoding="utf-8") == seen["fixed"]
    assert check_clean(project / "warmup_probe.py").returncode == 0


BASHRC = """PS0='\\e]133;C\\a'
PROMPT_COMMAND='printf "\\e]133;D;%s\\a" $?'
PS1='\\[\\e]133;A\\a\\]$ \\[\\e]133;B\\a\\]'
"""
"""The three lines editors/README.md gives for bash: its prompt marks each command's run (OSC 133)."""


def test_runs_in_compile_shell_and_python_are_forwarded_and_a_clean_rerun_clears(
    emacs: str, project: Path
) -> None:
    (project.parent / ".bashrc").write_text(BASHRC, encoding="utf-8")
    python = str(VENV_BIN / "python")
    seen = run_scenario(
        emacs, project, "runs", {"ERRKNOW_E2E_ROOT": str(project), "ERRKNOW_E2E_PYTHON": python}
    )
    command = f"{python} fit.py"
    for way in ("compile", "shell"):
        [raised] = seen[f"{way}_raised"]
        assert raised["line"] == 5, seen  # steps.py, `loss.backward()`
        assert f"raised here in the run of `{command[:59]}" in raised["text"], raised
        assert not seen[f"{way}_cleared"]  # JSON null: no diagnostic from a run left
    # Each run ended with its exit status: compile and recompile, then the command typed twice.
    assert seen["ends"] == [[command, 1, str(project)], [command, 0, str(project)]] * 2
    # The Python shell's output belongs to no program: a clean run there proves nothing; the
    # clear command takes the error back.
    [raised] = seen["python_raised"]
    assert raised["line"] == 5, seen
    assert seen["python_after_rerun"] == seen["python_raised"]
    assert {command for _, command in seen["python_sources"]} == {None}


def test_chinese_shows_no_english_sentence(emacs: str, project: Path) -> None:
    """The locale set where an eglot user sets a server's settings (``eglot-workspace-configuration``
    in the project's ``.dir-locals.el``): the diagnostic, the hover and the quick-fix titles are
    Chinese, with no English sentence left."""
    (project / ".dir-locals.el").write_text(
        '((nil . ((eglot-workspace-configuration . (:errknow (:locale "zh"))))))\n', encoding="utf-8"
    )
    seen = run_scenario(emacs, project, "chinese", {"ERRKNOW_E2E_FILE": str(project / "warmup_probe.py")})
    assert seen["configuration"] == {"errknow": {"locale": "zh"}}, seen  # read from .dir-locals.el
    assert "原因" in seen["hover"] and "它检查什么" in seen["hover"], seen["hover"]
    assert "在这一行禁用 EK002" in seen["actions"], seen["actions"]
    assert any(title.endswith("（安全）") for title in seen["actions"]), seen["actions"]  # noqa: RUF001
    for text in [seen["diagnostic"], seen["hover"], *seen["actions"]]:
        assert english_left(text) == [], text
