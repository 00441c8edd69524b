"""What following the project's own imports costs `check`: one helper module imported by many files.

Writes a project into a temporary directory: ``utils.py`` with N small functions (and a model
class) and M training scripts that import two of them each; checks every script in this process
(as one worker of ``check`` does), with the project's modules read and without (each file alone,
its imports unknown). Prints seconds per file for both and their ratio, medians of R runs:

    python benchmarks/check_imports.py [--helpers N] [--files M] [--repeat R]

The helper is parsed, and walked for what it defines, once per text for the whole run
(``errknow_ls/analysis/modules.py``: ``PARSED``); each check still runs its definitions.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from errknow_ls.analysis import check_source
from errknow_ls.project.modules import ProjectModules

HELPER = """\
def helper_{i}(x, k={i}):
    y = x * k
    if k > 3:
        y = y + 1
    return y.detach()
"""
MODEL = """\
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.layer = nn.Linear(4, 4)

    def forward(self, x):
        return self.layer(x)
"""
SCRIPT = """\
import torch
from utils import Net, helper_{a}, helper_{b}


def main():
    net = Net()
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    state = torch.zeros(2, 4)
    for _ in range(3):
        state = helper_{a}(net(state))
        loss = helper_{b}(net(state)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
"""


def write_project(root: Path, helpers: int, files: int) -> list[Path]:
    body = "\n\n".join(HELPER.format(i=i) for i in range(helpers))
    (root / "utils.py").write_text(
        f"import torch\nfrom torch import nn\n\n\n{body}\n\n{MODEL}", encoding="utf-8"
    )
    scripts = []
    for n in range(files):
        script = root / f"train_{n}.py"
        script.write_text(SCRIPT.format(a=n % helpers, b=(n + 1) % helpers), encoding="utf-8")
        scripts.append(script)
    return scripts


def seconds_per_file(scripts: list[Path], follow: bool) -> float:
    start = time.perf_counter()
    for script in scripts:
        modules = ProjectModules.for_file(script) if follow else None
        check_source(script.read_text(encoding="utf-8"), modules=modules)
    return (time.perf_counter() - start) / len(scripts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--helpers", type=int, default=300)
    parser.add_argument("--files", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        root = Path(directory)
        (root / "pyproject.toml").write_text("", encoding="utf-8")
        scripts = write_project(root, args.helpers, args.files)
        seconds_per_file(scripts[:2], follow=True)  # loads the checker
        alone, followed = [], []
        for _ in range(args.repeat):  # interleaved: a load that comes and goes weighs on both
            alone.append(seconds_per_file(scripts, follow=False))
            followed.append(seconds_per_file(scripts, follow=True))
    a, f = statistics.median(alone), statistics.median(followed)
    print(f"{args.files} files importing 2 of {args.helpers} helpers of one module, median of {args.repeat}")
    print(f"  imports unknown:        {a * 1000:7.2f} ms per file")
    print(f"  project's modules read: {f * 1000:7.2f} ms per file  ({f / a:.2f}x)")


if __name__ == "__main__":
    main()
