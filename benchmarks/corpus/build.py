"""Rebuild the real-code corpus (issue 13) from a mirror folder of fetched repositories.

    python benchmarks/corpus/build.py [--mirror /work/.mirror] [--corpus /work/corpus] [--list repos.toml]

For each repository in ``repos.toml`` it finds the repository's git directory under the mirror
(any folder below it holding ``HEAD`` and ``objects`` whose path names the repository, as
``owner+name`` or ``owner/name``), checks that the pinned commit is there, and writes that
commit's ``*.py`` and ``*.ipynb`` files to ``<corpus>/<owner>+<name>/``, replacing what the folder
held. A notebook is also exported to ``<notebook>.ipynb.py``: its code cells in order, each after
a ``# %%`` line (the layout of ``jupytext --to py:percent``), with IPython magics and shell
escapes made inert, so that ``errknow-ls check`` and ruff read it as a Python file. Nothing of
the repositories is ever committed: only the list.

Prints one line per repository and, at the end, the repositories it could not export and why
(exit 1 when there are any).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

from errknow_ls.analysis.cells import MAGIC, leading_indent, runs_no_python

HERE = Path(__file__).resolve().parent
SUFFIXES = (".py", ".ipynb")


@dataclass(frozen=True)
class PinnedRepo:
    name: str
    commit: str
    family: str

    @property
    def folder(self) -> str:
        return self.name.replace("/", "+")


def read_list(path: Path) -> list[PinnedRepo]:
    with path.open("rb") as handle:
        entries = tomllib.load(handle)["repo"]
    return [PinnedRepo(entry["name"], entry["commit"], entry["family"]) for entry in entries]


def git_dirs(mirror: Path) -> dict[str, Path]:
    """Each git directory under ``mirror``, by the ``owner+name`` folder it sits in."""
    found: dict[str, Path] = {}
    for head in sorted(mirror.glob("**/HEAD")):
        gitdir = head.parent
        if not (gitdir / "objects").is_dir() or "+" not in str(gitdir.relative_to(mirror)):
            continue
        owner_name = next(part for part in gitdir.relative_to(mirror).parts if "+" in part)
        found.setdefault(owner_name.lower(), gitdir)
    return found


def git(gitdir: Path, *args: str, stdin: bytes | None = None) -> bytes:
    return subprocess.run(
        ["git", f"--git-dir={gitdir}", *args], input=stdin, capture_output=True, check=True
    ).stdout


def blobs(gitdir: Path, commit: str) -> list[tuple[str, str]]:
    """(path, blob id) of every *.py / *.ipynb file in ``commit``."""
    listing = git(gitdir, "ls-tree", "-r", "-z", "--full-tree", commit)
    files = []
    for record in listing.split(b"\0"):
        if not record:
            continue
        meta, path = record.decode("utf-8", "surrogateescape").split("\t", 1)
        _mode, kind, blob = meta.split()
        if kind == "blob" and path.lower().endswith(SUFFIXES):
            files.append((path, blob))
    return files


def read_blobs(gitdir: Path, ids: list[str]) -> dict[str, bytes]:
    """The content of each blob the snapshot holds (it lacks files of 4 MiB and more)."""
    out = git(gitdir, "cat-file", "--batch", stdin="".join(f"{blob}\n" for blob in ids).encode())
    contents: dict[str, bytes] = {}
    position = 0
    while position < len(out):
        end = out.index(b"\n", position)
        header = out[position:end].split()
        position = end + 1
        if header[-1] == b"missing":
            continue
        size = int(header[2])
        contents[header[0].decode()] = out[position : position + size]
        position += size + 1
    return contents


def notebook_as_script(content: bytes) -> str | None:
    """The code cells of a notebook (format 4, or 3's worksheets) as a percent-format script.

    None if it is not a notebook's JSON. A cell magic that runs no Python here (``%%bash``,
    ``%%writefile`` ...: the checker's ``runs_no_python``) makes its whole cell a comment; a line
    magic, shell escape or help (the checker's ``MAGIC``) becomes ``pass`` with the line as a
    comment, at its own indentation, so that the block it sits in stays a block. A cell whose first
    line is indented loses that indentation, as IPython runs it.
    """
    try:
        notebook = json.loads(content)
        cells = notebook["cells"] if "cells" in notebook else notebook["worksheets"][0]["cells"]
    except (ValueError, KeyError, IndexError, TypeError):
        return None
    scripts = []
    for cell in cells:
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        source = cell.get("source", cell.get("input", ""))
        lines = ("".join(source) if isinstance(source, list) else str(source)).splitlines()
        indent = leading_indent(lines)
        lines = [line.removeprefix(indent) for line in lines]
        if runs_no_python(lines):
            lines = [f"# {line}" for line in lines]
        else:
            lines = [magic_as_python(line) for line in lines]
        scripts.append("# %%\n" + "\n".join(lines) + "\n")
    return "\n".join(scripts)


def magic_as_python(line: str) -> str:
    code = line.lstrip()
    if not MAGIC.match(line):
        return line
    return f"{line[: len(line) - len(code)]}pass  # {code}"


def export(repo: PinnedRepo, gitdir: Path, corpus: Path) -> tuple[int, int]:
    """Write the pinned commit's files; (files written, files the snapshot lacks)."""
    files = blobs(gitdir, repo.commit)
    contents = read_blobs(gitdir, [blob for _path, blob in files])
    target = corpus / repo.folder
    shutil.rmtree(target, ignore_errors=True)
    written = 0
    for path, blob in files:
        if blob not in contents:
            continue
        destination = target / path
        destination.parent.mkdir(parents=True, exist_ok=True)
        destination.write_bytes(contents[blob])
        written += 1
        if path.lower().endswith(".ipynb"):
            script = notebook_as_script(contents[blob])
            if script is not None:
                destination.with_name(destination.name + ".py").write_text(script, encoding="utf-8")
    return written, len(files) - written


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirror", type=Path, default=Path("/work/.mirror"), help="fetched repositories")
    parser.add_argument("--corpus", type=Path, default=Path("/work/corpus"), help="folder to (re)build")
    parser.add_argument("--list", type=Path, default=HERE / "repos.toml", help="the pinned list")
    args = parser.parse_args()
    repos = read_list(args.list)
    found = git_dirs(args.mirror)
    args.corpus.mkdir(parents=True, exist_ok=True)
    problems: list[str] = []
    for repo in repos:
        gitdir = found.get(repo.folder.lower())
        if gitdir is None:
            problems.append(f"{repo.name}: not in {args.mirror}")
            continue
        probe = ["git", f"--git-dir={gitdir}", "cat-file", "-e", f"{repo.commit}^{{commit}}"]
        if subprocess.run(probe, check=False).returncode:
            problems.append(f"{repo.name}: {gitdir} lacks commit {repo.commit}")
            continue
        written, lacking = export(repo, gitdir, args.corpus)
        note = f" ({lacking} over the snapshot's size limit, not exported)" if lacking else ""
        print(f"{repo.name:60} {repo.commit[:12]}  {written:5} files{note}")
    print(f"\n{len(repos) - len(problems)} of {len(repos)} repositories exported to {args.corpus}")
    for problem in problems:
        print(f"could not export {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
