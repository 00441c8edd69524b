"""README's "Use in CI" snippets, run: the GitHub Actions step, and the pre-commit hooks of
``.pre-commit-hooks.yaml`` run by the ``pre-commit`` package in a temporary git repository."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from errknow_ls import __version__
from tests.runner.test_check_cli import write
from tests.runner.test_check_notebooks import training_notebook
from tests.runner.test_check_output_formats import WARMUP, WARMUP_LINE, parse_annotation

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
LONG = "1" in (os.environ.get("ERRKNOW_FUZZ_LONG"), os.environ.get("ERRKNOW_LONG"))


def ci_snippets() -> list[str]:
    """The yaml blocks of README's "Use in CI" section, in order."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("### Use in CI\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```yaml\n(.*?)```", section, flags=re.DOTALL)


def hooks_file() -> list[dict[str, Any]]:
    hooks: list[dict[str, Any]] = yaml.safe_load(
        (ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8")
    )
    return hooks


def environment(home: Path) -> dict[str, str]:
    """``errknow-ls`` of this environment first on PATH; pre-commit's cache in ``home``."""
    return {
        **os.environ,
        "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
        "PRE_COMMIT_HOME": str(home),
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
    }


def git(cwd: Path, env: dict[str, str], *args: str) -> None:
    subprocess.run(
        ["git", "-c", "init.defaultBranch=main", *args], cwd=cwd, env=env, check=True, capture_output=True
    )


def pre_commit(project: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    command = [str(BIN / "pre-commit"), "run", "--all-files", "--color", "never"]
    return subprocess.run(command, cwd=project, env=env, capture_output=True, text=True, check=False)


def project_with_a_bug(root: Path, env: dict[str, str], config: dict[str, Any]) -> Path:
    project = root / "project"
    write(project / "train.py", WARMUP)
    training_notebook(project / "nbs" / "train.ipynb")
    (project / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    git(project, env, "init", "-q")
    git(project, env, "add", "-A")
    return project


# --- GitHub Actions ----------------------------------------------------------------------------


def test_the_github_step_prints_annotations_on_the_finding(tmp_path: Path) -> None:
    github = ci_snippets()[0]
    (command,) = [
        line.split("- run:", 1)[1].strip() for line in github.splitlines() if "run: errknow-ls" in line
    ]
    assert command == "errknow-ls check --output-format github"
    write(tmp_path / "train.py", WARMUP)
    args = shlex.split(command)
    done = subprocess.run(
        [str(BIN / args[0]), *args[1:]], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    assert done.returncode == 1  # the step fails, and the annotation says where
    ((kind, properties, message),) = [parse_annotation(line) for line in done.stdout.splitlines()]
    assert (kind, properties["file"], properties["line"]) == ("error", "train.py", str(WARMUP_LINE))
    assert " EK002 " in message


# --- pre-commit --------------------------------------------------------------------------------


def snippet_hook_ids() -> list[str]:
    config = yaml.safe_load(ci_snippets()[1])
    (repo,) = config["repos"]
    assert repo["rev"] == f"v{__version__}"
    return [hook["id"] for hook in repo["hooks"]]


def local_config(ids: list[str]) -> dict[str, Any]:
    """The hooks of ``.pre-commit-hooks.yaml`` named ``ids``, as a ``repo: local`` that runs this
    environment's errknow-ls (no install: the suite reaches no network)."""
    by_id = {hook["id"]: hook for hook in hooks_file()}
    hooks = [{**by_id[hook_id], "language": "system"} for hook_id in ids]
    return {"repos": [{"repo": "local", "hooks": hooks}]}


def test_the_hooks_file_declares_both_hooks_for_python_and_notebooks() -> None:
    hooks = {hook["id"]: hook for hook in hooks_file()}
    assert set(hooks) == {"errknow-check", "errknow-check-fix"}
    for hook in hooks.values():
        assert hook["language"] == "python"
        assert hook["types_or"] == ["python", "jupyter"]
        assert hook["entry"].startswith("errknow-ls check")
    assert "--fix" in hooks["errknow-check-fix"]["entry"].split()


def test_pre_commit_runs_the_check_hook_on_files_and_notebooks(tmp_path: Path) -> None:
    env = environment(tmp_path / "home")
    project = project_with_a_bug(tmp_path, env, local_config(snippet_hook_ids()))
    done = pre_commit(project, env)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "- hook id: errknow-check\n" in done.stdout
    assert f"train.py:{WARMUP_LINE}:5: EK002" in done.stdout
    assert f"{Path('nbs/train.ipynb')}:cell 2:4:5: EK002" in done.stdout


def test_pre_commit_fix_hook_fixes_then_passes(tmp_path: Path) -> None:
    env = environment(tmp_path / "home")
    project = project_with_a_bug(tmp_path, env, local_config(["errknow-check-fix"]))
    first = pre_commit(project, env)
    assert first.returncode == 1, first.stdout + first.stderr
    assert "Found 2 errors (2 fixed, 0 remaining)." in first.stdout
    assert "files were modified by this hook" in first.stdout
    git(project, env, "add", "-A")
    second = pre_commit(project, env)
    assert second.returncode == 0, second.stdout + second.stderr
    assert "backbone = nn.Linear(6, 12)\n" in (project / "train.py").read_text(encoding="utf-8")


def test_pre_commit_respects_the_projects_excludes(tmp_path: Path) -> None:
    """pre-commit names every file; the hooks' ``--force-exclude`` keeps ``extend-exclude`` in force."""
    env = environment(tmp_path / "home")
    project = project_with_a_bug(tmp_path, env, local_config(snippet_hook_ids()))
    write(project / "pyproject.toml", '[tool.errknow]\nextend-exclude = ["nbs"]\n')
    git(project, env, "add", "-A")
    done = pre_commit(project, env)
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"train.py:{WARMUP_LINE}:5: EK002" in done.stdout
    assert "train.ipynb" not in done.stdout
    write(project / "pyproject.toml", '[tool.errknow]\nextend-exclude = ["nbs", "train.py"]\n')
    git(project, env, "add", "-A")
    done = pre_commit(project, env)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.skipif(
    not LONG,
    reason="installs errknow-ls into pre-commit's own environment (~1 min); ERRKNOW_FUZZ_LONG=1 runs it",
)
def test_the_readme_snippet_installs_the_hook_from_a_clone(tmp_path: Path) -> None:
    env = environment(tmp_path / "home")
    clone = tmp_path / "errknow-ls"
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    for name in [*tracked.splitlines(), ".pre-commit-hooks.yaml"]:
        if (ROOT / name).is_file() and not name.startswith(("tests/", "editors/", "benchmarks/")):
            (clone / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, clone / name)
    git(clone, env, "init", "-q")
    git(clone, env, "add", "-A")
    git(clone, env, "commit", "-q", "-m", "errknow-ls")
    git(clone, env, "tag", f"v{__version__}")
    config = yaml.safe_load(ci_snippets()[1].replace("/path/to/errknow-ls", str(clone)))
    project = project_with_a_bug(tmp_path, env, config)
    env["PATH"] = os.environ.get("PATH", "")  # the hook's own environment must bring errknow-ls
    done = pre_commit(project, env)
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"train.py:{WARMUP_LINE}:5: EK002" in done.stdout
