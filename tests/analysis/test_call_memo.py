"""A call of the project's code whose run changed nothing is answered again without running it
(``interpreter/memo.py``): a training step that calls the same logging and checkpoint helpers many
times is checked to its end, and a call whose course may differ runs again."""

from __future__ import annotations

from errknow_ls.analysis import check_source

HELPER = "def log_line(step):\n    for i in range(3):\n        for j in range(3):\n" + "".join(
    f"            a{k} = {k}\n" for k in range(60)
)
"""A helper that takes about 550 statements each run and changes nothing the checker tracks."""

DOUBLE_BACKWARD = "    loss = model(torch.randn(3, 4)).sum()\n    loss.backward()\n    loss.backward()\n"


def program(call: str, calls: int) -> str:
    train = "def train():\n    model = nn.Linear(4, 1)\n    step = 0\n" + f"    {call}\n" * calls
    return "import torch\nimport torch.nn as nn\n\n\n" + HELPER + "\n\n" + train + DOUBLE_BACKWARD


def test_a_helper_called_alike_many_times_runs_once_and_the_function_is_checked_to_its_end() -> None:
    text = program("log_line(step)", 400)
    result = check_source(text)
    assert result.errors == []
    (finding,) = result.findings
    assert (finding.code, finding.span.start.line + 1) == ("EK001", text.count("\n"))


def test_a_helper_handed_another_value_each_time_runs_each_time() -> None:
    text = program("step = step + 1\n    log_line(step)", 200)
    result = check_source(text)
    assert len(result.errors) == 1 and "train: stopped after" in result.errors[0]
