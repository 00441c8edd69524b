"""Bundle errknow-ls and its dependencies into ``bundled/`` for the .vsix (``importStrategy: useBundled``).

    python3 scripts/bundle.py               # this machine, ERRKNOW_BUNDLE_PYTHON's version
    python3 scripts/bundle.py --target win32-x64 --python 3.11 --python 3.12 --python 3.13

``bundled/libs/cp3XY`` is a ``pip install --target`` of this repository's package with its
dependencies for one Python minor version: pydantic-core, regex, pyahocorasick, rpds-py and msgspec
are compiled, so each folder runs on that version and platform only. Without ``--target`` the folder
is built for the Python that ``ERRKNOW_BUNDLE_PYTHON`` names (default: this one) on this machine;
with ``--target`` (a VS Code platform, as ``vsce package --target`` names it) pip fetches the binary
wheels of that platform for each ``--python`` version, and the package itself as a wheel built here.
``bundled/bundle.json`` records the platform and the versions for the extension to check;
``bundled/tool/serve.py`` starts the server from the folder of the interpreter it is run with.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
REPO = HERE.parent.parent
BUNDLED = HERE / "bundled"
PLATFORM_TAGS = {
    # pip widens each to the older tags its platform accepts (manylinux_2_17, macOS 10.x, ...).
    "linux-x64": "manylinux_2_28_x86_64",
    "linux-arm64": "manylinux_2_28_aarch64",
    "darwin-x64": "macosx_11_0_x86_64",
    "darwin-arm64": "macosx_11_0_arm64",
    "win32-x64": "win_amd64",
    "win32-arm64": "win_arm64",
}
"""The VS Code platforms a bundle can be built for, with the wheel platform tag of each."""
SERVE = '''"""Starts the errknow-ls bundled with the VS Code extension, with the interpreter it was given."""

import sys
from pathlib import Path

version = "%d.%d" % sys.version_info[:2]
libs = Path(__file__).resolve().parent.parent / "libs" / ("cp%d%d" % sys.version_info[:2])
if not libs.is_dir():
    sys.exit(f"errknow-ls: this extension carries no server for Python {version}: select another interpreter")
sys.path.insert(0, str(libs))

from errknow_ls.cli import main  # noqa: E402 (after the bundle is on the path)

sys.exit(main(["serve", *sys.argv[1:]]))
'''


def folder(version: str) -> str:
    major, minor = version.split(".")
    return f"cp{major}{minor}"


def native(python: str, libs: Path) -> tuple[str, str]:
    """Installs into the folder of ``python``'s version on this machine; its version and platform."""
    ask = "import sys, sysconfig; print('%d.%d' % sys.version_info[:2], sysconfig.get_platform())"
    info = subprocess.run(
        [python, "-c", ask],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    target = libs / folder(info[0])
    command = [python, "-m", "pip", "install", "--quiet", "--no-compile", "--target", str(target), str(REPO)]
    subprocess.run(command, check=True)
    shutil.rmtree(target / "bin", ignore_errors=True)
    return info[0], info[1]


def cross(platform: str, versions: list[str], libs: Path) -> None:
    """Installs the binary wheels of ``platform`` for each version, and this package as a wheel."""
    with tempfile.TemporaryDirectory() as built:
        wheel = ["pip", "wheel", "--quiet", "--no-deps", "--wheel-dir", built, str(REPO)]
        subprocess.run([sys.executable, "-m", *wheel], check=True)
        (package,) = Path(built).glob("*.whl")
        for version in versions:
            target = libs / folder(version)
            command = [
                sys.executable, "-m", "pip", "install", "--quiet", "--no-compile", "--target", str(target),
                "--only-binary=:all:", "--implementation", "cp", "--python-version", version,
                "--platform", PLATFORM_TAGS[platform], str(package),
            ]  # fmt: skip
            subprocess.run(command, check=True)
            shutil.rmtree(target / "bin", ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", choices=sorted(PLATFORM_TAGS), help="a VS Code platform (default: here)")
    parser.add_argument(
        "--python", action="append", default=[], help="a Python version, e.g. 3.12 (again: more)"
    )
    parser.add_argument("--out", type=Path, default=BUNDLED, help=f"the folder to fill (default: {BUNDLED})")
    options = parser.parse_args(argv)
    bundled = options.out.resolve()
    shutil.rmtree(bundled, ignore_errors=True)
    libs = bundled / "libs"
    if options.target is None:
        python = os.environ.get("ERRKNOW_BUNDLE_PYTHON", sys.executable)
        version, platform = native(python, libs)
        versions = [version]
    else:
        if not options.python:
            parser.error("--target needs at least one --python")
        versions = sorted(set(options.python), key=lambda v: tuple(map(int, v.split("."))))
        platform = options.target
        cross(platform, versions, libs)
    (bundled / "tool").mkdir(parents=True)
    (bundled / "tool" / "serve.py").write_text(SERVE, encoding="utf-8")
    manifest = {"pythons": versions, "platform": platform}
    (bundled / "bundle.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    print(f"bundled errknow-ls for Python {', '.join(versions)} on {platform} in {bundled}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
