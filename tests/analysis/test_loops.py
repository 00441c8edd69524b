"""How often a loop's body runs: twice where what one iteration leaves may matter to the next, once
where a loop deep inside others (across calls) only computed forward into local names."""

from __future__ import annotations

from typing import Any

import pytest

from errknow_ls.analysis.checker import check_source
from errknow_ls.analysis.interpreter import UNIT_BUDGET

FILLER = UNIT_BUDGET * 3 // 20
"""Statements of the model's loop over its layers: run twice inside an epoch's and a step's loop
(2 x 2 x 2 x FILLER), they outgrow a unit's budget; run once (2 x 2 x 1 x FILLER), they do not."""
STOPPED = f"stopped after {UNIT_BUDGET:,} interpreted statements"


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
    stopped = [e for e in result.errors if STOPPED in e]
    assert (not stopped) is whole
    lines = text.splitlines()
    expected = next(n for n, line in enumerate(lines, 1) if "the last step's graph" in line)
    assert [(f.code, f.span.start.line + 1) for f in result.findings] == [("EK001", expected)]


PADDING = UNIT_BUDGET * 5 // 8
"""Statements of a helper the outer loop calls after its inner loops: the first run of the outer
loop reaches its second iteration's inner loops (where a path that cannot happen backwards a
freed graph) within a unit's budget, and the budget stops it before that run ends."""


def _agent_with_a_constructor_flag(padding: int) -> str:
    """SAC's entropy temperature (XinJingHao/DRL-Pytorch, ``5.2 SAC-Continuous/SAC.py``): where
    ``self.adaptive`` holds, each update ends with ``self.alpha = self.log_alpha.exp()``, a new graph
    that the next update's backward frees once; where it does not, ``self.alpha`` stays a number.
    The flag is set only by the constructor, so a path that takes it on one update and not on the
    next cannot happen."""
    filler = "".join("    x = x + 1.0\n" for _ in range(padding))
    return (
        "import torch\nfrom torch import nn\n\n\n"
        "class Agent:\n"
        "    def __init__(self, adaptive):\n"
        "        self.adaptive = adaptive\n"
        "        self.log_alpha = torch.zeros((), requires_grad=True)\n"
        "        self.alpha = 0.1\n"
        "        self.actor = nn.Linear(3, 1)\n"
        "        self.opt = torch.optim.Adam([*self.actor.parameters(), self.log_alpha], lr=1e-3)\n\n"
        "    def train(self):\n"
        "        loss = (self.alpha * self.actor(torch.randn(8, 3))).mean()\n"
        "        self.opt.zero_grad()\n"
        "        loss.backward()\n"
        "        self.opt.step()\n"
        "        if self.adaptive:\n"
        "            self.alpha = self.log_alpha.exp()\n\n\n"
        f"def pad(x):\n{filler}    return x\n\n\n"
        "def main(adaptive):\n"
        "    agent = Agent(adaptive)\n"
        "    x = 0.0\n"
        "    for episode in range(3):\n"
        "        for step in range(3):\n"
        "            for update in range(2):\n"
        "                agent.train()\n"
        "        x = pad(x)\n"
        "    return agent\n"
    )


@pytest.mark.parametrize("padding", [0, PADDING])
def test_a_run_the_budget_stops_before_it_is_split_by_a_flag_reports_nothing_of_it(padding: int) -> None:
    """The outer loop's first run goes both ways on the constructor's flag from one update to the
    next, and backwards a freed graph on such a path; run to its end, it is run again once per way
    the flag goes and what it observed is dropped. Where the budget stops it first, what it
    observed is dropped all the same: a false EK003 on ``loss.backward()`` before."""
    text = _agent_with_a_constructor_flag(padding)
    result = check_source(text)
    stopped = [e for e in result.errors if STOPPED in e]
    assert bool(stopped) is (padding == PADDING)
    assert result.findings == []


def test_the_agent_with_a_constructor_flag_trains_either_way() -> None:
    """The ground truth of the test above: under torch, neither way of the flag raises, the actor
    trains, and the temperature trains where the flag holds."""
    torch = pytest.importorskip("torch")
    namespace: dict[str, Any] = {}
    exec(compile(_agent_with_a_constructor_flag(1), "<agent>", "exec"), namespace)
    for adaptive in (True, False):
        torch.manual_seed(0)
        agent = namespace["Agent"](adaptive)
        before = agent.actor.weight.detach().clone()
        torch.manual_seed(0)
        trained = namespace["main"](adaptive)
        assert not torch.equal(trained.actor.weight.detach(), before)
        assert (trained.log_alpha.item() != 0.0) is adaptive
