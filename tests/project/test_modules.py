"""The project's modules as the checker gets them: found as the import system finds them from the
checked file, read from an editor's unsaved text before the disk; on real trees in ``tmp_path``."""

from __future__ import annotations

from pathlib import Path

from errknow_ls.project.modules import DiskTexts, ProjectModules, module_roots
from tests.project.test_roots import write


def found(modules: ProjectModules, name: str, level: int = 0, importer: Path | None = None) -> str | None:
    module = modules.find(None if importer is None else str(importer), name, level)
    return None if module is None else Path(module.key).relative_to(modules_root(modules)).as_posix()


def modules_root(modules: ProjectModules) -> Path:
    assert modules.checked is not None
    return next(p for p in modules.checked.parents if (p / "pyproject.toml").is_file())


def test_absolute_imports_resolve_from_the_project_roots(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "pyproject.toml": "",
            "src/pkg/__init__.py": "",
            "src/pkg/models.py": "",
            "src/pkg.py": "",  # a package wins over a module of the same name, as in Python
            "src/ns/part/deep.py": "",
            "scripts/train.py": "",
            "scripts/helpers.py": "",
        },
    )
    modules = ProjectModules.for_file(tmp_path / "scripts" / "train.py")
    assert found(modules, "pkg") == "src/pkg/__init__.py"
    assert found(modules, "pkg.models") == "src/pkg/models.py"
    assert found(modules, "ns.part.deep") == "src/ns/part/deep.py"
    assert found(modules, "helpers") == "scripts/helpers.py"  # the script's own folder
    assert found(modules, "train") is None  # the checked file is not one of its own modules
    assert found(modules, "torch") is None  # installed libraries stay unknown
    assert found(modules, "ns") is None  # a namespace package has no text


def test_relative_imports_resolve_from_the_importer(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "pyproject.toml": "",
            "trainer/__init__.py": "",
            "trainer/loop.py": "",
            "trainer/data.py": "",
            "trainer/models/__init__.py": "",
            "trainer/models/encoder.py": "",
        },
    )
    checked = tmp_path / "trainer" / "loop.py"
    modules = ProjectModules.for_file(checked)
    assert found(modules, "", 1) == "trainer/__init__.py"  # from . import x
    assert found(modules, "models.encoder", 1) == "trainer/models/encoder.py"
    encoder = (tmp_path / "trainer" / "models" / "encoder.py").resolve()
    assert found(modules, "data", 2, importer=encoder) == "trainer/data.py"
    assert found(modules, "loop", 2, importer=encoder) is None  # the checked file itself
    assert found(modules, "x", 9) is None  # above the file system's root
    # the package's top is a root: `trainer/loop.py` imports `trainer.models` absolutely
    assert found(modules, "trainer.models") == "trainer/models/__init__.py"


def test_module_roots_in_order(tmp_path: Path) -> None:
    write(
        tmp_path,
        {"setup.cfg": "", "src/lib/__init__.py": "", "lib2/pkg/__init__.py": "", "lib2/pkg/a.py": ""},
    )
    checked = (tmp_path / "lib2" / "pkg" / "a.py").resolve()
    root = tmp_path.resolve()
    assert module_roots(checked, [root / "extra"]) == [
        root / "lib2" / "pkg",
        root / "lib2",
        root / "src",
        root,
        root / "extra",
    ]


def test_unsaved_text_comes_before_the_disk(tmp_path: Path) -> None:
    write(tmp_path, {"pyproject.toml": "", "train.py": "", "utils.py": "on disk\n"})
    utils = str((tmp_path / "utils.py").resolve())
    saved = ProjectModules.for_file(tmp_path / "train.py", texts=DiskTexts())
    edited = ProjectModules.for_file(tmp_path / "train.py", unsaved={utils: "in the editor\n"})
    assert saved.text(utils) == "on disk\n"
    module = edited.find(None, "utils", 0)
    assert module is not None and (module.key, module.text) == (utils, "in the editor\n")


def test_disk_texts_are_read_again_when_the_file_changes(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_text("a = 1\n", encoding="utf-8")
    texts = DiskTexts()
    assert texts.text(str(path)) == "a = 1\n"
    path.write_text("a = 22\n", encoding="utf-8")
    assert texts.text(str(path)) == "a = 22\n"
    path.write_bytes(b"\xff\xfe not utf-8")
    assert texts.text(str(path)) is None
    path.unlink()
    assert texts.text(str(path)) is None
    assert texts.text(str(tmp_path)) is None  # a directory is no module
