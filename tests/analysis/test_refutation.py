"""Refuting runs (``checker._refuted``): a unit that reported something runs again once per way the
flags it tested can go together; where those runs stop at the budget, a finding stands only where
one of them showed it before it stopped (Lizhi-sjtu/MARL-code-pytorch's MAPPO runners: the
agent's ``self.use_rnn``, tested in its constructor and in its update, taken both ways by a run
of the runner's loop that the budget stops; triage rows 132-133)."""

from __future__ import annotations

import ast
from typing import Any

import pytest

from errknow_ls.analysis.checker import check_source
from errknow_ls.analysis.interpreter import UNIT_BUDGET, Interpreter

STOPPED = f"stopped after {UNIT_BUDGET:,} interpreted statements"
PADDING = UNIT_BUDGET + 100
"""Statements of a helper the training loop calls after its updates: more than a unit's budget."""


def _agent(reset: str, padding: int, before: str = "") -> str:
    """The MAPPO agent (``1.MAPPO_MPE/mappo_mpe.py``): the constructor builds a recurrent actor
    where ``self.use_rnn`` holds, and each update resets its hidden state, under the same flag,
    before its pass."""
    filler = "".join("    x = x + 1.0\n" for _ in range(padding))
    return (
        "import torch\nfrom torch import nn\n\n\n"
        "class RecurrentActor(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.rnn_hidden = None\n"
        "        self.rnn = nn.GRUCell(4, 4)\n"
        "        self.fc = nn.Linear(4, 2)\n\n"
        "    def forward(self, x):\n"
        "        self.rnn_hidden = self.rnn(x, self.rnn_hidden)\n"
        "        return self.fc(self.rnn_hidden)\n\n\n"
        "class PlainActor(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.fc = nn.Linear(4, 2)\n\n"
        "    def forward(self, x):\n"
        "        return self.fc(x)\n\n\n"
        "class Agent:\n"
        "    def __init__(self, options):\n"
        "        self.use_rnn = options['use_rnn']\n"
        "        if self.use_rnn:\n"
        "            self.actor = RecurrentActor()\n"
        "        else:\n"
        "            self.actor = PlainActor()\n"
        "        self.optimizer = torch.optim.SGD(self.actor.parameters(), lr=0.1)\n\n"
        "    def train(self, batch):\n"
        f"        {reset}\n"
        "            self.actor.rnn_hidden = None\n"
        "        loss = self.actor(batch).pow(2).mean()\n"
        "        self.optimizer.zero_grad()\n"
        "        loss.backward()  # the update's backward\n"
        "        self.optimizer.step()\n\n\n"
        f"def pad(x):\n{filler}    return x\n\n\n"
        "class Settings:\n"
        "    def __init__(self, options):\n"
        "        self.verbose = options['verbose']\n\n\n"
        "def banner():\n"
        "    return 'training'\n\n\n"
        "def main(options, batches):\n"
        f"{before}"
        "    agent = Agent(options)\n"
        "    for batch in batches:\n"
        "        agent.train(batch)\n"
        "    return pad(0.0)\n"
    )


@pytest.mark.parametrize("padding", [0, PADDING])
def test_a_path_that_takes_a_flag_both_ways_is_no_witness(padding: int) -> None:
    """The hidden state is reset before each update's pass whenever the actor is recurrent: no run
    that fixes the flag reports the update's backward, whether or not the budget stops the runs
    after it (a false EK003 where it stopped them before)."""
    result = check_source(_agent("if self.use_rnn:", padding))
    stopped = [e for e in result.errors if STOPPED in e]
    assert bool(stopped) is (padding == PADDING)
    assert result.findings == []


@pytest.mark.parametrize("padding", [0, PADDING])
def test_a_run_that_fixes_the_flag_and_shows_the_bug_before_it_stops_keeps_it(padding: int) -> None:
    """The reset is tested on another flag, never set: with ``use_rnn`` set, each update's pass
    goes on from the hidden state of the update before, whose graph its backward freed; the run
    that sets it shows that before the budget stops it."""
    text = _agent("if self.actor is None:", padding)
    result = check_source(text)
    expected = next(n for n, line in enumerate(text.splitlines(), 1) if "the update's backward" in line)
    assert [(f.code, f.span.start.line + 1) for f in result.findings] == [("EK003", expected)]


def test_a_flag_is_fixed_on_its_object_where_an_earlier_flag_changed_what_was_built_before_it() -> None:
    """A flag is known by where its object was built: a run that fixes ``settings.verbose`` makes
    one call fewer before the agent is built, which numbers the agent otherwise than the run that
    reported; its ``use_rnn`` is fixed all the same (QMIX's runner in MARL-code-pytorch, triage
    row 134)."""
    before = "    settings = Settings(options)\n    if settings.verbose:\n        print(banner())\n"
    result = check_source(_agent("if self.use_rnn:", 0, before))
    assert result.findings == []


def _run_agent(reset: str, use_rnn: bool) -> None:
    torch = pytest.importorskip("torch")
    namespace: dict[str, Any] = {}
    before = "    settings = Settings(options)\n    if settings.verbose:\n        print(banner())\n"
    exec(compile(_agent(reset, 1, before), "<agent>", "exec"), namespace)
    batches = [torch.randn(3, 4) for _ in range(3)]
    namespace["main"]({"use_rnn": use_rnn, "verbose": False}, batches)


@pytest.mark.parametrize("use_rnn", [True, False])
def test_the_agent_that_resets_its_hidden_state_trains_either_way(use_rnn: bool) -> None:
    """The ground truth of the negatives above: under torch, neither way of the flag raises."""
    _run_agent("if self.use_rnn:", use_rnn)


def test_the_agent_that_never_resets_raises_where_the_actor_is_recurrent() -> None:
    """The ground truth of the twin: the second update's backward raises."""
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        _run_agent("if self.actor is None:", True)


def test_a_split_on_a_repeated_negated_test_decides_it_inside() -> None:
    """A refuting run splits at ``if not code in "hyper":`` and its repeat (brain-inspired-replay's
    ``options.py``); inside the split the same ``if`` asks how its test goes. Taking the ``not``
    apart before asking the split, the run split the same test again inside the first, and its
    end removed the outer split's entry: a KeyError, the file's check an internal error."""
    source = (
        "import sys\n"
        "code = sys.argv[-1]\n"
        "options = []\n"
        'if not code in "hyper":\n'
        '    options.append("lr")\n'
        'if not code in "hyper":\n'
        '    options.append("batch")\n'
    )
    interpreter = Interpreter(ast.parse(source), UNIT_BUDGET, None)
    interpreter.split_retests = True
    interpreter.run_module(True)
    assert interpreter.stopped is None
    assert interpreter.retest_truths == {}
