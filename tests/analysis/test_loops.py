"""How often a loop's body runs: twice where what one iteration leaves may matter to the next, once
where a loop deep inside others (across calls) only computed forward into local names."""

from __future__ import annotations

import pytest

from errknow_ls.analysis.checker import check_source

FILLER = 1_200
"""Statements of the model's loop over its layers: run twice inside an epoch's and a step's loop
(2 x 2 x 2 x 1,200), they outgrow a unit's budget of 8,000; run once, they do not."""


def _deep_model(store: str) -> str:
    filler = "".join("            x = x + 0.0\n" for _ in range(FILLER))
    return (
        "import kornia\nimport torch\nfrom torch import nn\n\n\n"
        "class Deep(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.layers = nn.ModuleList([nn.Linear(4, 4) for _ in range(3)])\n\n"
        "    def forward(self, x):\n"
        "        seen = []\n"
        "        for layer in self.layers:\n"
        "            x = torch.tanh(layer(x))\n"
        f"            {store}\n"
        f"{filler}"
        "        return x\n\n\n"
        "def main():\n"
        "    model = Deep()\n"
        "    opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    for epoch in range(2):\n"
        "        for step in range(3):\n"
        "            loss = model(torch.randn(2, 4)).sum()\n"
        "            opt.zero_grad()\n"
        "            loss.backward()\n"
        "            opt.step()\n"
        "        loss.backward()  # the last step's graph, freed\n"
    )


@pytest.mark.parametrize(
    ("store", "whole"),
    [
        # each iteration only makes a longer graph of local tensors: once is enough
        ("x = x * 1.0", True),
        # what a library the checker does not follow made of a tensor: a graph too, unknown
        ("y = kornia.filters.box_blur(x)", True),
        # what the first iteration stores on an object or in a list, the second reads or extends
        ("self.last = x", False),
        ("seen.append(x)", False),
    ],
)
def test_a_loop_deep_in_others_that_only_computes_forward_runs_once(store: str, whole: bool) -> None:
    """The model's loop over its layers runs inside the epochs' loop and the steps' loop. Where its
    first iteration only computed forward into local names, it is not run a second time, so the
    check reaches the double backward after the loops within the budget; where the first stored
    something elsewhere, it runs twice, as before, and the budget stops the check."""
    text = _deep_model(store)
    result = check_source(text)
    stopped = [e for e in result.errors if "stopped after 8,000 interpreted statements" in e]
    assert (not stopped) is whole
    lines = text.splitlines()
    expected = next(n for n, line in enumerate(lines, 1) if "the last step's graph" in line)
    assert [(f.code, f.span.start.line + 1) for f in result.findings] == [("EK001", expected)]
