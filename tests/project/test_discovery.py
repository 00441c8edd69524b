"""File discovery finds what ``os.walk`` and ``Path.resolve`` say is there, symlinks and excludes included.

The reference below is the plain way to walk (one ``resolve`` per file, ``fnmatch`` per glob);
``discover`` must find the same files, in the same order, with the same errors.
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from errknow_ls.project.discovery import DEFAULT_EXCLUDE, Discovered, Excluder, discover


def reference_excludes(excluder: Excluder, path: Path) -> bool:
    if any(fnmatch.fnmatchcase(path.name, pattern) for pattern in excluder.patterns):
        return True
    if excluder.root is None:
        return False
    try:
        relative = path.resolve().relative_to(excluder.root.resolve()).as_posix()
    except ValueError:
        return False
    for pattern in excluder.patterns:
        pattern = pattern.removeprefix("./").rstrip("/")  # noqa: PLW2901
        if fnmatch.fnmatchcase(relative, pattern) or fnmatch.fnmatchcase(relative, f"{pattern}/*"):
            return True
    return False


def reference_walk(top: Path, excluder: Excluder, errors: list[tuple[Path, str]]) -> Iterator[Path]:
    def unreadable(exc: OSError) -> None:
        errors.append((Path(exc.filename or top), exc.strerror or str(exc)))

    for directory, dirnames, filenames in os.walk(top, onerror=unreadable):
        here = Path(directory)
        dirnames[:] = sorted(d for d in dirnames if not reference_excludes(excluder, here / d))
        for name in sorted(filenames):
            file = here / name
            if name.endswith((".py", ".ipynb")) and not reference_excludes(excluder, file):
                yield file


def reference_discover(paths: Sequence[Path], excluder: Excluder) -> Discovered:
    found = Discovered()
    seen: set[Path] = set()
    for path in paths:
        if path.is_file():
            candidates: Iterator[Path] = iter([path])
        elif path.is_dir():
            candidates = reference_walk(path, excluder, found.errors)
        else:
            problem = "No such file or directory" if not path.exists() else "not a file or directory"
            found.errors.append((path, problem))
            continue
        for candidate in candidates:
            key = candidate.resolve()
            if key not in seen:
                seen.add(key)
                found.names.append(str(candidate))
    return found


def tree(root: Path) -> None:
    for name in [
        "train.py",
        "notes.txt",
        "pkg/__init__.py",
        "pkg/model.py",
        "pkg/sub/deep.py",
        "pkg/sub/train.ipynb",
        "pkg/.ipynb_checkpoints/train-checkpoint.ipynb",
        "pkg/__pycache__/model.cpython-311.py",
        ".venv/lib/site.py",
        "venv/lib/other.py",
        "legacy/old.py",
        "legacy/keep/inner.py",
        "generated/out.py",
        "b/z.py",
        "a/y.py",
        "weird name ü.py",
    ]:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x = 1\n")
    (root / "pkg" / "alias.py").symlink_to(root / "train.py")
    (root / "linked_pkg").symlink_to(root / "pkg", target_is_directory=True)
    (root / "dangling.py").symlink_to(root / "nowhere.py")
    (root / "outside_link.py").symlink_to(root.parent / "outside.py")
    (root.parent / "outside.py").write_text("y = 2\n")
    (root / "dir.py").mkdir()
    (root / "dir.py" / "inside.py").write_text("z = 3\n")


EXCLUDES = [
    DEFAULT_EXCLUDE,
    (*DEFAULT_EXCLUDE, "generated", "legacy/*.py"),
    ("skipped",),
    ("./pkg/sub/", "*.txt", "alias.py"),
    (),
]


@pytest.mark.parametrize("patterns", EXCLUDES)
@pytest.mark.parametrize("rooted", [True, False])
def test_discover_agrees_with_the_plain_walk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, patterns: tuple[str, ...], rooted: bool
) -> None:
    project = tmp_path / "project"
    tree(project)
    monkeypatch.chdir(project)
    excluder = Excluder(patterns, project if rooted else None)
    for paths in (
        [Path()],
        [project],
        [Path("pkg"), Path("train.py"), Path("pkg/model.py"), Path("missing")],
        [Path("linked_pkg"), Path("pkg")],
        [Path("legacy"), Path("legacy/old.py")],
    ):
        assert discover(paths, excluder) == reference_discover(paths, excluder), paths


def test_a_symlinked_project_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = tmp_path / "project"
    tree(project)
    (tmp_path / "link").symlink_to(project, target_is_directory=True)
    monkeypatch.chdir(tmp_path / "link")
    excluder = Excluder((*DEFAULT_EXCLUDE, "generated", "legacy/*.py"), tmp_path / "link")
    assert discover([Path()], excluder) == reference_discover([Path()], excluder)
    assert Path("generated/out.py") not in discover([Path()], excluder).files


def test_excludes_agrees_with_the_plain_match(tmp_path: Path) -> None:
    project = tmp_path / "project"
    tree(project)
    for patterns in EXCLUDES:
        excluder = Excluder(patterns, project)
        for path in [*project.rglob("*"), project, tmp_path]:
            assert excluder.excludes(path) == reference_excludes(excluder, path), (patterns, path)


def test_force_exclude_applies_the_excludes_to_paths_named(tmp_path: Path) -> None:
    root = tmp_path / "project"
    for name in ("legacy/old.py", "legacy/deep/older.py", "venv/lib/x.py", "src/a.py", "src/gen_1.py"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("", encoding="utf-8")
    excluder = Excluder((*DEFAULT_EXCLUDE, "legacy", "gen_*.py"), root)
    named = [root / n for n in ("legacy/old.py", "legacy/deep/older.py", "venv/lib/x.py", "src/gen_1.py")]
    named += [root / "src/a.py", root / "legacy"]
    assert discover(named, excluder).files == named[:5]  # walking legacy/ finds nothing more
    assert discover(named, excluder, force_exclude=True).files == [root / "src/a.py"]
