"""Bundle errknow-ls and its dependencies into ``bundled/`` for the .vsix (``importStrategy: useBundled``).

``bundled/libs`` is a ``pip install --target`` of this repository's package with its dependencies,
for the Python that ``ERRKNOW_BUNDLE_PYTHON`` names (default: this one): pydantic-core, regex and
pyahocorasick are compiled, so the bundle runs on that Python minor version and platform, which
``bundled/bundle.json`` records for the extension to check. ``bundled/tool/serve.py`` starts the
server from ``libs`` with whatever interpreter the extension picked.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
REPO = HERE.parent.parent
BUNDLED = HERE / "bundled"
SERVE = '''"""Starts the errknow-ls bundled with the VS Code extension, with the interpreter it was given."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "libs"))

from errknow_ls.cli import main  # noqa: E402 (after the bundle is on the path)

sys.exit(main(["serve", *sys.argv[1:]]))
'''


def main() -> int:
    python = os.environ.get("ERRKNOW_BUNDLE_PYTHON", sys.executable)
    shutil.rmtree(BUNDLED, ignore_errors=True)
    libs = BUNDLED / "libs"
    command = [python, "-m", "pip", "install", "--quiet", "--no-compile", "--target", str(libs), str(REPO)]
    subprocess.run(command, check=True)
    shutil.rmtree(libs / "bin", ignore_errors=True)
    info = subprocess.run(
        [python, "-c", "import sys, sysconfig; print('%d.%d' % sys.version_info[:2], sysconfig.get_platform())"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    (BUNDLED / "tool").mkdir(parents=True)
    (BUNDLED / "tool" / "serve.py").write_text(SERVE, encoding="utf-8")
    manifest = {"python": info[0], "platform": info[1]}
    (BUNDLED / "bundle.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    print(f"bundled errknow-ls for Python {info[0]} on {info[1]} in {BUNDLED}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
