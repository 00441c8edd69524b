"""Import roots and module files of a project, on real trees in ``tmp_path``."""

from __future__ import annotations

from pathlib import Path

import pytest

from errknow_ls.project import import_roots, module_file


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        ({"train.py": ""}, ["."]),
        ({"src/pkg/__init__.py": ""}, ["src", "."]),
        ({"src/notes.txt": ""}, ["."]),  # a src/ without modules is no source root
        ({"pyproject.toml": '[tool.setuptools]\npackage-dir = {"" = "lib"}\n', "lib/m.py": ""}, ["lib", "."]),
        (
            {
                "pyproject.toml": '[tool.setuptools.packages.find]\nwhere = ["code"]\n',
                "code/a/__init__.py": "",
            },
            ["code", "."],
        ),
        (
            {
                "pyproject.toml": '[tool.poetry]\npackages = [{include = "p", from = "python"}]\n',
                "python/p/__init__.py": "",
            },
            ["python", "."],
        ),
        (
            {"pyproject.toml": '[tool.hatch.build.targets.wheel]\nsources = ["srcs"]\n', "srcs/x.py": ""},
            ["srcs", "."],
        ),
        # Declared but missing: not listed. A broken pyproject.toml declares nothing.
        ({"pyproject.toml": '[tool.setuptools]\npackage-dir = {"" = "gone"}\n'}, ["."]),
        ({"pyproject.toml": "[tool.setuptools\n", "src/m.py": ""}, ["src", "."]),
    ],
)
def test_import_roots(tmp_path: Path, files: dict[str, str], expected: list[str]) -> None:
    write(tmp_path, files)
    assert import_roots(tmp_path) == [(tmp_path / e).resolve() for e in expected]


def test_module_file_follows_the_import_system(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "src/pkg/__init__.py": "",
            "src/pkg/models.py": "",
            "src/ns/part/deep.py": "",  # ns and part are namespace packages
            "pkg.py": "",  # shadowed by src/pkg, which comes first
            "script.py": "",
        },
    )
    roots = import_roots(tmp_path)
    src = (tmp_path / "src").resolve()
    assert module_file(roots, "pkg") == src / "pkg" / "__init__.py"
    assert module_file(roots, "pkg.models") == src / "pkg" / "models.py"
    assert module_file(roots, "ns.part.deep") == src / "ns" / "part" / "deep.py"
    assert module_file(roots, "ns") is None
    assert module_file(roots, "script") == (tmp_path / "script.py").resolve()
    assert module_file(roots, "pkg.missing") is None
    assert module_file(roots, "script.attr") is None
