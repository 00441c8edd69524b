"""``errknow-ls check`` on Jupyter notebooks: the code cells as one program, findings on their cell,
fixes written back into the cells' sources as valid nbformat with everything else untouched."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import jsonschema
import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from errknow_ls.cli import EXIT_ERROR, EXIT_FOUND, EXIT_OK
from tests.runner.test_check_cli import Run, sarif_schema

SETUP = (
    "import torch\n"
    "from torch import nn\n"
    "%matplotlib inline\n"
    "backbone = nn.Linear(6, 12)\n"
    "probe = nn.Linear(12, 2)\n"
    "inputs = torch.randn(32, 6)\n"
    "features = backbone(inputs)\n"
    "print(features.shape)"
)
LOOP = (
    "!nvidia-smi\n"
    "for epoch in range(5):\n"
    "    loss = probe(features).sum()\n"
    "    loss.backward()  # EK002: `features` was built once, in the cell above"
)
LOOP_FIXED = (
    "!nvidia-smi\n"
    "for epoch in range(5):\n"
    "    features = backbone(inputs)\n"
    "    loss = probe(features).sum()\n"
    "    loss.backward()  # EK002: `features` was built once, in the cell above"
)
ERROR_OUTPUT = new_output(
    "error",
    ename="RuntimeError",
    evalue="Trying to backward through the graph a second time",
    traceback=["RuntimeError: Trying to backward through the graph a second time"],
)


def write_notebook(path: Path, cells: list[Any], language: str = "python") -> Path:
    notebook = new_notebook(
        cells=cells,
        metadata={
            "kernelspec": {"name": "python3", "language": language, "display_name": "Python 3"},
            "language_info": {"name": language},
            "custom": {"kept": [1, 2, 3]},
        },
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(notebook, path)
    return path


def training_notebook(path: Path) -> Path:
    return write_notebook(
        path,
        [
            new_markdown_cell("# A probe on features computed once"),
            new_code_cell(SETUP, execution_count=1),
            new_markdown_cell("Train it:"),
            new_code_cell(LOOP, execution_count=2, outputs=[ERROR_OUTPUT]),
        ],
    )


def test_the_cells_are_one_program_and_the_finding_names_its_cell(run: Run, tmp_path: Path) -> None:
    training_notebook(tmp_path / "train.ipynb")
    code, out, _ = run("--no-cache", "train.ipynb")
    assert code == EXIT_FOUND
    # Code cell 2 (the notebook's fourth cell), line 4 of that cell, where `loss.backward()` is.
    assert out.startswith("train.ipynb:cell 2:4:5: EK002 [*] `loss` reaches a graph built once")
    # Lines named in the message are a cell's own too, not lines of the cells joined.
    assert "built once, before the loop at cell 1, line 7:" in out.splitlines()[0]


def test_json_and_sarif_say_the_cell(run: Run, tmp_path: Path) -> None:
    training_notebook(tmp_path / "train.ipynb")
    (item,) = json.loads(run("--no-cache", "--output-format", "json", "train.ipynb")[1])
    assert (item["filename"], item["cell"], item["location"]) == ("train.ipynb", 2, {"row": 4, "column": 5})
    assert item["fix"]["edits"][0]["location"] == {"row": 3, "column": 1}  # in the cell's own lines
    log = json.loads(run("--no-cache", "--output-format", "sarif", "train.ipynb")[1])
    jsonschema.validate(log, sarif_schema())
    (result,) = log["runs"][0]["results"]
    assert result["properties"]["cell"] == 2
    assert result["locations"][0]["physicalLocation"]["region"]["startLine"] == 4


def test_notebooks_are_found_in_directories_but_not_their_checkpoints(run: Run, tmp_path: Path) -> None:
    training_notebook(tmp_path / "nbs" / "train.ipynb")
    training_notebook(tmp_path / "nbs" / ".ipynb_checkpoints" / "train-checkpoint.ipynb")
    items = json.loads(run("--no-cache", "--output-format", "json")[1])
    assert [item["filename"] for item in items] == [str(Path("nbs/train.ipynb"))]


def test_fix_writes_the_cell_and_nothing_else(run: Run, tmp_path: Path) -> None:
    path = training_notebook(tmp_path / "train.ipynb")
    before = json.loads(path.read_text(encoding="utf-8"))
    code, out, _ = run("--no-cache", "--fix", "train.ipynb")
    assert code == EXIT_OK
    assert out == "Found 1 error (1 fixed, 0 remaining).\n"
    nbformat.validate(nbformat.read(path, as_version=4))
    after = json.loads(path.read_text(encoding="utf-8"))
    assert "".join(after["cells"][3]["source"]) == LOOP_FIXED
    after["cells"][3]["source"] = before["cells"][3]["source"]
    assert after == before  # outputs, metadata, ids, the other cells: as they were
    assert run("--no-cache", "train.ipynb")[:2] == (EXIT_OK, "All checks passed!\n")


COLAB_SETUP = (
    "import sys\n"
    "IN_COLAB = 'google.colab' in sys.modules\n"
    "if IN_COLAB:\n"
    "    !pip install gymnasium\n"
    "    %load_ext autoreload\n"
    "message = ('%d cells'\n"
    "           % 2)\n" + SETUP
)


def test_a_magic_that_is_the_body_of_a_block_keeps_the_cell_checked(run: Run, tmp_path: Path) -> None:
    """MrSyee/pg-is-all-you-need's notebooks open with `if IN_COLAB:` over an indented `!pip
    install`: with the magic a comment the block was empty, the cell did not parse, and its imports
    and models were lost to every later cell. The `% 2` inside brackets stays Python's modulo."""
    path = write_notebook(
        tmp_path / "colab.ipynb",
        [new_code_cell(COLAB_SETUP, execution_count=1), new_code_cell(LOOP, execution_count=2)],
    )
    code, out, _ = run("--no-cache", "colab.ipynb")
    assert code == EXIT_FOUND
    assert out.startswith("colab.ipynb:cell 2:4:5: EK002 [*] `loss` reaches a graph built once")
    assert run("--no-cache", "--fix", "colab.ipynb")[:2] == (
        EXIT_OK,
        "Found 1 error (1 fixed, 0 remaining).\n",
    )
    cells = [cell["source"] for cell in nbformat.read(path, as_version=4)["cells"]]
    assert cells == [COLAB_SETUP, LOOP_FIXED]  # the magics where they were, at their indentation


INDENTED_SETUP = "  " + SETUP.replace("\n", "\n  ")
INDENTED_LOOP = "  " + LOOP.replace("\n", "\n  ")
HELP_AND_ASSIGNED_OUTPUT = "?nn.Linear\nnn.Linear?\ngpu_info = !nvidia-smi\nlines = %sx ls"


def test_an_indented_cell_is_checked_as_ipython_runs_it_and_fixed_at_its_indentation(
    run: Run, tmp_path: Path
) -> None:
    """jdtoscano94's PINN tutorials (Colab) open with the cell ` ! pip install pyDOE`: IPython takes
    a cell's first indentation off every line that has it, so the cell runs, where the cells joined
    as they were did not parse ("syntax error: unexpected indent") and nothing was checked. Help
    (`?nn.Linear`, `nn.Linear?`) and a shell escape's output assigned (`gpu_info = !nvidia-smi`,
    mrdbourke/pytorch-deep-learning) are IPython's too, not syntax errors."""
    path = write_notebook(
        tmp_path / "indented.ipynb",
        [
            new_code_cell(" ! pip install pyDOE", execution_count=1),
            new_code_cell(INDENTED_SETUP, execution_count=2),
            new_code_cell(HELP_AND_ASSIGNED_OUTPUT, execution_count=3),
            new_code_cell(INDENTED_LOOP, execution_count=4),
        ],
    )
    code, out, err = run("--no-cache", "indented.ipynb")
    assert (code, err) == (EXIT_FOUND, "")
    # The cell's own column: `loss.backward()` at 4 + 2 spaces, the message's line the cell's own.
    assert out.startswith("indented.ipynb:cell 4:4:7: EK002 [*] `loss` reaches a graph built once")
    assert "built once, before the loop at cell 2, line 7:" in out.splitlines()[0]
    (item,) = json.loads(run("--no-cache", "--output-format", "json", "indented.ipynb")[1])
    # Written after the line's own indentation, each line it starts indented as the cell is.
    assert item["fix"]["edits"][0]["location"] == {"row": 3, "column": 3}
    assert item["fix"]["edits"][0]["content"] == "    features = backbone(inputs)\n  "
    assert run("--no-cache", "--fix", "indented.ipynb")[:2] == (
        EXIT_OK,
        "Found 1 error (1 fixed, 0 remaining).\n",
    )
    cells = [cell["source"] for cell in nbformat.read(path, as_version=4)["cells"]]
    fixed_loop = "  " + LOOP_FIXED.replace("\n", "\n  ")
    assert cells == [" ! pip install pyDOE", INDENTED_SETUP, HELP_AND_ASSIGNED_OUTPUT, fixed_loop]
    assert run("--no-cache", "indented.ipynb")[:2] == (EXIT_OK, "All checks passed!\n")


WRITTEN_TO_A_FILE = "%%writefile train.py\n" + LOOP.removeprefix("!nvidia-smi\n")
SHELL = "%%bash\npip install gymnasium\nls -la | head"


def test_a_cell_magic_that_runs_no_python_here_is_not_the_notebooks_code(run: Run, tmp_path: Path) -> None:
    """phlippe/uvadlc_notebooks' `%%html` cells said "syntax error" and left the whole notebook
    unchecked; a `%%writefile` cell's code runs, if at all, in another process with names of its
    own, so the notebook's `features` is not what it reads. `%%time` runs its cell as it is."""
    path = write_notebook(
        tmp_path / "magics.ipynb",
        [
            new_code_cell(SETUP, execution_count=1),
            new_code_cell(SHELL, execution_count=2),
            new_code_cell(WRITTEN_TO_A_FILE, execution_count=3),
            new_code_cell("%%time\n" + LOOP, execution_count=4),
        ],
    )
    code, out, err = run("--no-cache", "magics.ipynb")
    assert (code, err) == (EXIT_FOUND, "")
    assert out.startswith("magics.ipynb:cell 4:5:5: EK002 [*] `loss` reaches a graph built once")
    assert len(out.splitlines()) == 3  # that finding alone, then the summary's two lines
    assert run("--no-cache", "--fix", "magics.ipynb")[:2] == (
        EXIT_OK,
        "Found 1 error (1 fixed, 0 remaining).\n",
    )
    cells = [cell["source"] for cell in nbformat.read(path, as_version=4)["cells"]]
    assert cells == [SETUP, SHELL, WRITTEN_TO_A_FILE, "%%time\n" + LOOP_FIXED]


def test_fix_keeps_the_line_breaks_of_cells_and_leaves_a_notebook_without_findings_as_it_was(
    run: Run, tmp_path: Path
) -> None:
    """dataflowr's `13_siamese_triplet_mnist_empty.ipynb` has a cell written with CRLF line breaks
    and no finding: `check --fix` rewrote it with LF ones (and the file with Jupyter's layout),
    as the cells split back from the joined program were compared with the notebook's own."""
    crlf_setup = SETUP.replace("\n", "\r\n")
    once = "loss = probe(features).sum()\r\nloss.backward()  # once: no finding"
    clean = write_notebook(
        tmp_path / "clean.ipynb",
        [new_code_cell(crlf_setup, execution_count=1), new_code_cell(once, execution_count=2)],
    )
    clean.write_bytes(clean.read_bytes().rstrip(b"\n"))  # no newline at the end, as some editors save
    before = clean.read_bytes()
    assert run("--no-cache", "--fix", "clean.ipynb")[:2] == (EXIT_OK, "All checks passed!\n")
    assert clean.read_bytes() == before
    crlf_loop = LOOP.replace("\n", "\r\n")
    path = write_notebook(
        tmp_path / "train.ipynb",
        [new_code_cell(crlf_setup, execution_count=1), new_code_cell(crlf_loop, execution_count=2)],
    )
    assert run("--no-cache", "--fix", "train.ipynb")[:2] == (
        EXIT_OK,
        "Found 1 error (1 fixed, 0 remaining).\n",
    )
    cells = [cell["source"] for cell in nbformat.read(path, as_version=4)["cells"]]
    assert cells == [crlf_setup, LOOP_FIXED.replace("\n", "\r\n")]


def test_a_fixed_notebook_is_written_as_jupyter_writes_it(run: Run, tmp_path: Path) -> None:
    path = training_notebook(tmp_path / "train.ipynb")
    run("--no-cache", "--fix", "train.ipynb")
    assert path.read_text(encoding="utf-8") == nbformat.writes(nbformat.read(path, as_version=4)) + "\n"


def test_diff_of_a_notebook_patches_into_what_fix_writes(run: Run, tmp_path: Path) -> None:
    if shutil.which("patch") is None:
        pytest.skip("needs the patch program")
    path = training_notebook(tmp_path / "train.ipynb")
    original = path.read_bytes()
    code, diff, _ = run("--no-cache", "--diff", "train.ipynb")
    assert code == EXIT_FOUND
    assert path.read_bytes() == original
    patched = tmp_path / "patched"
    patched.mkdir()
    (patched / "train.ipynb").write_bytes(original)
    subprocess.run(["patch", "-p1", "--quiet"], input=diff.encode(), cwd=patched, check=True)
    run("--no-cache", "--fix", "train.ipynb")
    assert (patched / "train.ipynb").read_bytes() == path.read_bytes()


def test_a_fix_that_would_edit_another_cell_is_not_offered(run: Run, tmp_path: Path) -> None:
    first = "import torch\nw = torch.ones(2, requires_grad=True)\nloss = (w * 2).sum()\nloss.backward()"
    write_notebook(tmp_path / "twice.ipynb", [new_code_cell(first), new_code_cell("loss.backward()")])
    (tmp_path / "twice.py").write_text(first + "\nloss.backward()\n", encoding="utf-8")
    in_cells, as_file = json.loads(run("--no-cache", "--output-format", "json")[1])  # sorted by path
    assert (in_cells["code"], in_cells["cell"], in_cells["location"]["row"]) == ("EK001", 2, 1)
    # In one file, `retain_graph=True` goes on the first backward; in the notebook that is another cell.
    assert any("retain_graph" in fix["title"] for fix in as_file["fixes"])
    assert [fix["title"] for fix in in_cells["fixes"]] == [
        fix["title"] for fix in as_file["fixes"] if "retain_graph" not in fix["title"]
    ]
    assert run("--no-cache", "--fix", "--unsafe-fixes", "twice.ipynb")[0] == EXIT_OK
    cells = json.loads((tmp_path / "twice.ipynb").read_text(encoding="utf-8"))["cells"]
    assert ["".join(cell["source"]) for cell in cells] == [first, ""]


@pytest.mark.parametrize(
    ("again", "fixed"), [("print(w.grad)\nloss.backward()", "print(w.grad)"), ("loss.backward()", "")]
)
def test_a_fix_that_removes_a_cells_last_line_is_offered_in_the_cell(
    run: Run, tmp_path: Path, again: str, fixed: str
) -> None:
    """dataflowr's `02a_basics.ipynb` backwards `l_t` again in a cell of its own, with cells after
    it: "Remove the second backward" deletes that line with its line break, which in the cells
    joined reached the next cell's boundary, so the fix was not offered in the notebook (it was in
    the notebook's export as a script)."""
    first = "import torch\nw = torch.ones(2, requires_grad=True)\nloss = (w.exp() * 2).sum()\nloss.backward()"
    path = write_notebook(
        tmp_path / "again.ipynb", [new_code_cell(first), new_code_cell(again), new_code_cell("print(w)")]
    )
    (item,) = json.loads(run("--no-cache", "--output-format", "json", "again.ipynb")[1])
    assert (item["cell"], item["location"]["row"]) == (2, again.count("\n") + 1)
    assert "Remove the second backward (one backward per step)" in [fix["title"] for fix in item["fixes"]]
    assert run("--no-cache", "--fix", "--unsafe-fixes", "again.ipynb")[0] == EXIT_OK
    cells = [cell["source"] for cell in nbformat.read(path, as_version=4)["cells"]]
    assert cells == [first, fixed, "print(w)"]


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ("{not json", "not a notebook: not JSON"),
        ('{"cells": {}}', "not a notebook: no 'cells' list"),
        (
            json.dumps({"cells": [], "metadata": {"language_info": {"name": "julia"}}, "nbformat": 4}),
            "not a Python notebook (its language is 'julia')",
        ),
    ],
)
def test_a_file_that_is_no_python_notebook_is_an_error(
    run: Run, tmp_path: Path, content: str, problem: str
) -> None:
    (tmp_path / "bad.ipynb").write_text(content, encoding="utf-8")
    training_notebook(tmp_path / "good.ipynb")
    code, out, err = run("--no-cache", ".")
    assert code == EXIT_ERROR
    assert f"bad.ipynb: error: {problem}" in err
    assert out.startswith("good.ipynb:cell 2:4:5: EK002")
