"""What a safe fix may do (errknow_ls/analysis/rules/fix_safety.py), on the checker's real output."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from errknow_ls.analysis import check_source
from errknow_ls.analysis.rules.fix_safety import detach_expression
from errknow_ls.analysis.values import UNKNOWN, Const, Seq, Tensor, Value
from errknow_ls.core import Applicability

FIXES = Path(__file__).resolve().parent / "fixes"
GRAPH = Tensor(frozenset({1}), True, 1)


def _inserted(source: str) -> list[tuple[str, str]]:
    """(applicability, inserted text) of every edit of every fix offered."""
    return [
        (fix.applicability, edit.content)
        for finding in check_source(source).findings
        for fix in finding.fixes
        for edit in fix.edits
    ]


def test_a_model_built_once_is_never_rebuilt_inside_the_loop() -> None:
    """Issue 15: `net = net_cls(width)` was moved into the loop by a *safe* fix; the optimizer then
    owned none of the parameters that made the loss. No fix of any kind may re-run it."""
    source = (FIXES / "ek002_model_class_passed_in.in.py").read_text(encoding="utf-8")
    findings = check_source(source).findings
    assert [f.code for f in findings] == ["EK002"]
    assert findings[0].fixes, "the finding offers a real fix"
    assert all("net_cls(" not in text for _, text in _inserted(source))
    assert all(fix.applicability != Applicability.SAFE for fix in findings[0].fixes)


@pytest.mark.parametrize(
    "built",
    [
        "torch.optim.SGD(model.parameters(), lr=0.1)",
        "nn.Linear(4, 4)(inputs)",
        "nn.Parameter(torch.randn(4, 4)) @ inputs.T",
        "make_features(model, inputs)",
        "torch.distributions.Normal(model(inputs), 1.0).rsample()",
    ],
)
def test_what_is_not_a_forward_computation_is_never_re_run(built: str) -> None:
    """A statement with a constructor, or a call the analysis does not follow, is not recomputed."""
    source = (
        "import torch\nfrom torch import nn\nfrom helpers import make_features\n"
        "model = nn.Linear(4, 4)\ninputs = torch.randn(8, 4)\n"
        f"output = model(inputs) * {built}.sum()\n"
        "for step in range(3):\n"
        "    loss = output.pow(2).mean()\n"
        "    loss.backward()\n"
    )
    assert [f.code for f in check_source(source).findings] == ["EK002"]
    texts = [text for _, text in _inserted(source)]
    assert all("output = " not in text for text in texts)


def test_a_module_forward_is_recomputed_and_moved() -> None:
    source = (
        "import torch\nfrom torch import nn\n"
        "model = nn.Linear(4, 4)\ninputs = torch.randn(8, 4)\n"
        "output = model(inputs)  # computed once\n"
        "for step in range(3):\n"
        "    loss = output.pow(2).mean()\n"
        "    loss.backward()\n"
    )
    (finding,) = check_source(source).findings
    first = finding.fixes[0]
    assert first.applicability == Applicability.SAFE
    assert first.title == "Compute `output` inside the loop, on every iteration"
    assert sorted(edit.content for edit in first.edits) == ["", "    output = model(inputs)\n"]


def test_a_forward_read_after_the_loop_is_copied_not_moved() -> None:
    source = (
        "import torch\nfrom torch import nn\n"
        "model = nn.Linear(4, 4)\ninputs = torch.randn(8, 4)\n"
        "output = model(inputs)\n"
        "for step in range(3):\n"
        "    loss = output.pow(2).mean()\n"
        "    loss.backward()\n"
        "print(output.shape)\n"
    )
    (finding,) = check_source(source).findings
    first = finding.fixes[0]
    assert first.title == "Recompute `output` inside the loop, on every iteration"
    assert [edit.content for edit in first.edits] == ["    output = model(inputs)\n"]


def test_a_retain_graph_handed_to_unknown_code_is_never_removed_safely() -> None:
    source = (
        "import torch\nfrom torch import nn\nfrom rl_lib import update\n"
        "model = nn.Linear(4, 1)\n"
        "for step in range(3):\n"
        "    loss = model(torch.randn(8, 4)).mean()\n"
        "    loss.backward(retain_graph=True)\n"
        "    update(loss)\n"
    )
    assert all(applicability != Applicability.SAFE for applicability, _ in _inserted(source))


def test_a_retain_whose_graph_a_later_iteration_backwards_again_is_never_removed_safely() -> None:
    """``retain-graph-in-loop/retain_of_a_carried_graph.py``: the state carried to the next
    iteration holds the graph this one kept, so removing the retain alone raises there (under torch
    2.13, checked by the fixture's ground truth): display-only, and said so."""
    fixture = Path(__file__).parent / "fixtures" / "retain-graph-in-loop" / "retain_of_a_carried_graph.py"
    findings = check_source(fixture.read_text(encoding="utf-8")).findings
    assert len(findings) == 2
    for finding in findings:
        assert "a later iteration backwards through the graph it keeps" in finding.message
        assert [fix.applicability for fix in finding.fixes] == [Applicability.DISPLAY_ONLY]


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (GRAPH, "h.detach()"),
        (Seq(GRAPH, "list"), "[t.detach() for t in h]"),
        (Seq(GRAPH, "tuple", (GRAPH, GRAPH)), "tuple(t.detach() for t in h)"),
        (Seq(GRAPH, "dict"), "{k: v.detach() for k, v in h.items()}"),
        (Seq(Seq(GRAPH, "tuple", (GRAPH, GRAPH)), "list"), "[tuple(t.detach() for t in s) for s in h]"),
        (
            Seq(GRAPH, "tuple", (GRAPH, Seq(GRAPH, "tuple", (GRAPH, GRAPH)))),
            "(h[0].detach(), tuple(t.detach() for t in h[1]),)",
        ),
        (Seq(UNKNOWN, "tuple", (Const(3), GRAPH)), "(h[0], h[1].detach(),)"),
        (Seq(UNKNOWN, "list"), None),
        (UNKNOWN, None),
    ],
)
def test_a_detach_keeps_the_values_shape(value: Value, expected: str | None) -> None:
    """Never `.detach()` on a list: each tensor is detached where it sits."""
    assert detach_expression("h", value) == expected


@pytest.mark.parametrize(
    ("entering", "steps_inside"),
    [("encoder(src)", True), ("torch.zeros(4, 8)", False), ("encoder(src)", False)],
)
def test_detaching_carried_state_is_safe_only_between_training_steps(
    entering: str, steps_inside: bool
) -> None:
    """A decoder's hidden state between its time steps, or an encoder's output entering the loop:
    detaching it at the top of each iteration would stop the gradient the loss sends back."""
    source = (
        "import torch\nfrom torch import nn\n"
        "encoder, cell = nn.Linear(8, 8), nn.GRUCell(8, 8)\n"
        "opt = torch.optim.SGD([*encoder.parameters(), *cell.parameters()], lr=0.1)\n"
        "src = torch.randn(4, 8)\n"
        f"hidden = {entering}\n"
        "for t in range(3):\n"
        "    hidden = cell(src, hidden)\n"
        "    loss = hidden.pow(2).mean()\n"
        "    loss.backward()\n" + ("    opt.step()\n" if steps_inside else "") + "opt.step()\n"
    )
    (finding,) = check_source(source).findings
    detaches = [fix for fix in finding.fixes if fix.title.startswith("Detach `hidden`")]
    assert detaches
    assert all(fix.applicability != Applicability.SAFE for fix in detaches)


def test_detaching_a_zero_initial_state_between_steps_is_safe() -> None:
    source = (
        "import torch\nfrom torch import nn\n"
        "cell = nn.GRUCell(8, 8)\nopt = torch.optim.SGD(cell.parameters(), lr=0.1)\n"
        "hidden = torch.zeros(4, 8)\n"
        "for t in range(3):\n"
        "    hidden = cell(torch.randn(4, 8), hidden)\n"
        "    loss = hidden.pow(2).mean()\n"
        "    loss.backward()\n"
        "    opt.step()\n"
    )
    (finding,) = check_source(source).findings
    assert finding.fixes[0].title == "Detach `hidden` at the start of each iteration"
    assert finding.fixes[0].applicability == Applicability.SAFE


def test_a_hand_written_optimizer_makes_each_iteration_a_training_step() -> None:
    """`p.data.add_(p.grad, alpha=-lr)` steps like an optimizer (word_language_model's loop)."""
    source = (
        "import torch\nfrom torch import nn\n"
        "cell = nn.GRUCell(8, 8)\n"
        "hidden = torch.zeros(4, 8)\n"
        "for t in range(3):\n"
        "    cell.zero_grad()\n"
        "    hidden = cell(torch.randn(4, 8), hidden)\n"
        "    loss = hidden.pow(2).mean()\n"
        "    loss.backward()\n"
        "    for p in cell.parameters():\n"
        "        p.data.add_(p.grad, alpha=-0.1)\n"
    )
    (finding,) = check_source(source).findings
    assert finding.fixes[0].applicability == Applicability.SAFE


@pytest.mark.parametrize(
    ("policy_weight", "safe"),
    [("(returns - values)", False), ("returns", True)],
)
def test_losses_are_summed_safely_only_when_each_learns_through_its_own_part(
    policy_weight: str, safe: bool
) -> None:
    """An actor-critic's policy loss weighted by the critic's values: summing would train the critic
    through the baseline too (the report's fix detaches it); two heads on a trunk sum safely."""
    source = (
        "import torch\nfrom torch import nn\n"
        "trunk, actor, critic = nn.Linear(4, 8), nn.Linear(8, 2), nn.Linear(8, 1)\n"
        "features = trunk(torch.randn(5, 4))\n"
        "values = critic(features).squeeze(-1)\n"
        "log_probs = actor(features).log_softmax(-1)[:, 0]\n"
        "returns = torch.randn(5)\n"
        f"policy_loss = -({policy_weight} * log_probs).sum()\n"
        "value_loss = (returns - values).pow(2).mean()\n"
        "policy_loss.backward()\n"
        "value_loss.backward()\n"
    )
    (finding,) = check_source(source).findings
    (summed,) = [fix for fix in finding.fixes if fix.title.startswith("Sum the losses")]
    assert (summed.applicability == Applicability.SAFE) is safe


def test_a_cached_value_refreshed_now_and_then_is_not_detached_safely() -> None:
    """Not a recurrence: the encoder would stop learning between refreshes (recompute it)."""
    source = (
        "import torch\nfrom torch import nn\n"
        "encoder, head = nn.Linear(4, 4), nn.Linear(4, 1)\n"
        "opt = torch.optim.SGD([*encoder.parameters(), *head.parameters()], lr=0.1)\n"
        "latent = None\n"
        "for step in range(6):\n"
        "    if step % 3 == 0:\n"
        "        latent = encoder(torch.randn(2, 4))\n"
        "    loss = head(latent).pow(2).mean()\n"
        "    opt.zero_grad()\n"
        "    loss.backward()\n"
        "    opt.step()\n"
    )
    (finding,) = check_source(source).findings
    assert all(fix.applicability != Applicability.SAFE for fix in finding.fixes)


@pytest.mark.parametrize(("validation_only", "safe"), [(False, False), (True, True)])
def test_a_value_the_loop_trains_again_is_not_recomputed_safely(validation_only: bool, safe: bool) -> None:
    """Advantages from a critic the mini-epochs train through their own value loss are targets:
    detaching them comes first, recomputing is unsafe. A module called again only under
    ``no_grad`` (a validation pass) trains through nothing else: recomputing stays safe."""
    again = (
        "    with torch.no_grad():\n        critic(obs)\n"
        if validation_only
        else "    loss = loss + (critic(obs).squeeze(-1) - returns).pow(2).mean()\n"
    )
    source = (
        "import torch\nfrom torch import nn\n"
        "actor, critic = nn.Linear(4, 3), nn.Linear(4, 1)\n"
        "opt = torch.optim.SGD([*actor.parameters(), *critic.parameters()], lr=0.1)\n"
        "obs, returns = torch.randn(6, 4), torch.randn(6)\n"
        "advantages = returns - critic(obs).squeeze(-1)\n"
        "for epoch in range(3):\n"
        "    loss = -(actor(obs)[:, 0] * advantages).mean()\n" + again + "    opt.zero_grad()\n"
        "    loss.backward()\n"
        "    opt.step()\n"
    )
    (finding,) = check_source(source).findings
    (recomputed,) = [fix for fix in finding.fixes if "inside the loop" in fix.title]
    assert (recomputed.applicability == Applicability.SAFE) is safe
    assert finding.fixes[0].title.startswith("Detach") is not safe


RECURRENCE = (
    "import torch\nfrom torch import nn\n"
    "cell = nn.GRUCell(3, 4)\nopt = torch.optim.SGD(cell.parameters(), lr=0.1)\n"
    "series = torch.randn(5, 2, 3)\n"
    "hidden = torch.zeros(2, 4)\n"
    "for {target} in range(3):\n"
    "    loss = 0\n"
    "    for t in range(5):\n"
    "        hidden = cell(series[{index}], hidden)\n"
    "        loss = loss + hidden.pow(2).mean()\n"
    "    opt.zero_grad()\n"
    "    loss.backward()\n"
    "    opt.step()\n"
    "    print(f'{{{target}}}: {{loss.item()}}')\n"
)


@pytest.mark.parametrize(
    ("target", "index", "reset_safe"),
    [
        ("epoch", "t", True),
        ("chunk", "(chunk + t) % 5", False),
        ("epoch", "torch.randint(5, ()).item()", False),
    ],
)
def test_state_is_reset_safely_only_where_every_iteration_re_runs_the_same_sequence(
    target: str, index: str, reset_safe: bool
) -> None:
    """Each epoch steps the state over the same sequence: it starts from the initial state again
    (carrying the last state, detached or not, would feed the sequence's end into its start). A
    loop that reads its own iteration (a stream in chunks), or draws new inputs, carries the state
    on: detach first."""
    (finding,) = check_source(RECURRENCE.format(target=target, index=index)).findings
    (reset,) = [fix for fix in finding.fixes if fix.title == "Reset `hidden` at the start of each iteration"]
    assert [edit.content.strip() for edit in reset.edits] == ["hidden = torch.zeros(2, 4)"]
    assert (reset.applicability == Applicability.SAFE) is reset_safe
    assert (finding.fixes[0] is reset) is reset_safe
    (detach,) = [fix for fix in finding.fixes if fix.title.startswith("Detach `hidden`")]
    assert (detach.applicability == Applicability.SAFE) is not reset_safe


def test_state_updated_within_a_step_is_not_stored_detached_safely() -> None:
    """A membrane potential stepped over a forward's own time steps: storing it detached would cut
    the step's own gradient (nothing would train); storing back the ``None`` it started from at the
    start of each epoch is the fix."""
    source = (
        "import torch\nfrom torch import nn\n"
        "class Leaky(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.lin = nn.Linear(3, 3)\n"
        "        self.mem = None\n"
        "    def forward(self, x):\n"
        "        for t in range(4):\n"
        "            if self.mem is None:\n"
        "                self.mem = torch.zeros_like(x)\n"
        "            self.mem = 0.9 * self.mem + self.lin(x)\n"
        "        return self.mem\n"
        "net = Leaky()\nopt = torch.optim.SGD(net.parameters(), lr=0.1)\nx = torch.randn(2, 3)\n"
        "for epoch in range(3):\n"
        "    loss = net(x).pow(2).mean()\n"
        "    opt.zero_grad()\n"
        "    loss.backward()\n"
        "    opt.step()\n"
    )
    (finding,) = check_source(source).findings
    assert finding.fixes[0].title == "Reset `net.mem` at the start of each iteration"
    assert finding.fixes[0].applicability == Applicability.SAFE
    # The forward returns what it stored, so the cut goes where the previous state is read; over
    # the forward's own time steps that cut stops the gradient through time: unsafe.
    (stored,) = [fix for fix in finding.fixes if fix.title.startswith("Detach the previous step's")]
    assert stored.applicability == Applicability.UNSAFE


@pytest.mark.parametrize(
    ("program", "safe"),
    [("ek004_recompute_after_step", True), ("ek004_two_optimizers_sum_then_step", False)],
)
def test_recomputing_after_another_optimizer_stepped_is_not_safe(program: str, safe: bool) -> None:
    """One optimizer steps twice (a sharpness-aware update): the second loss is recomputed at the
    new parameters, safely. Two optimizers, each stepping after its own loss, both losses built by
    one forward pass (an actor-critic on a shared body): recomputing the critic's loss after the
    actor stepped, or cutting the body out of the actor's loss, changes what trains; no fix is
    safe, and summing the losses then stepping each optimizer comes first."""
    source = (FIXES / f"{program}.in.py").read_text(encoding="utf-8")
    (finding,) = check_source(source).findings
    recomputed = [fix for fix in finding.fixes if fix.title.startswith("Recompute")]
    assert recomputed
    assert all((fix.applicability == Applicability.SAFE) is safe for fix in recomputed)
    assert any(fix.applicability == Applicability.SAFE for fix in finding.fixes) is safe
    if not safe:
        assert (
            finding.fixes[0].title == "Sum the losses, backward once, then step `actor_opt` and `critic_opt`"
        )


@pytest.mark.parametrize("steps_inside", [False, True])
def test_a_create_graph_gradient_is_retained_only_where_the_parameters_stay(steps_inside: bool) -> None:
    """Hessian-vector products from one ``create_graph=True`` gradient: each keeps its graph
    (``retain_graph=True``, safe). Where an optimizer steps in the loop, the gradient belongs to
    parameters that changed: retaining it is not offered."""
    source = (
        "import torch\nfrom torch import nn\n"
        "model = nn.Linear(3, 1)\nopt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "params = list(model.parameters())\n"
        "grads = torch.autograd.grad(model(torch.randn(4, 3)).pow(2).mean(), params, create_graph=True)\n"
        "vec = [torch.ones_like(p) for p in params]\n"
        "for _ in range(3):\n"
        "    hv = torch.autograd.grad(grads, params, grad_outputs=vec)\n"
        "    vec = [h.detach() for h in hv]\n" + ("    opt.step()\n" if steps_inside else "")
    )
    (finding,) = check_source(source).findings
    retained = [fix for fix in finding.fixes if "retain_graph=True" in fix.title]
    if steps_inside:
        assert not retained
    else:
        assert [fix.applicability for fix in retained] == [Applicability.SAFE]
        assert finding.fixes[0] is retained[0]


def test_a_loop_that_hands_its_target_to_a_print_the_file_imports_does_not_repeat_its_sequence() -> None:
    """``print`` is the builtin only where the module leaves the name alone: imported from a library
    (``from rich import print``), it is a call not followed, which may use the epoch; the reset is
    then unsafe, as for any loop that reads its own iteration."""
    source = RECURRENCE.format(target="epoch", index="t").replace(
        "import torch\n", "import torch\nfrom rich import print\n", 1
    )
    (finding,) = check_source(source).findings
    (reset,) = [fix for fix in finding.fixes if fix.title == "Reset `hidden` at the start of each iteration"]
    assert reset.applicability == Applicability.UNSAFE


def test_an_object_state_its_code_never_tests_for_none_is_not_reset() -> None:
    """A cache kept as a pair (``self._cell_key``, ``self._kvectors``), refreshed when the key
    changes: storing ``None`` into the value alone would hand ``None`` back on the next call."""
    programs = Path(__file__).resolve().parent / "programs" / "buggy"
    source = (programs / "ewald_kvectors_cached_while_cell_unchanged.py").read_text(encoding="utf-8")
    (finding,) = check_source(source).findings
    assert not [fix for fix in finding.fixes if fix.title.startswith("Reset")]


def _fixes(source: str) -> list[tuple[str, Applicability]]:
    (finding,) = check_source(source).findings
    return [(fix.title, fix.applicability) for fix in finding.fixes]


MEMO = (
    "import torch\nfrom torch import nn\n"
    "class Gp(nn.Module):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.points = nn.Parameter(torch.randn(4))\n"
    "        self._memo = {}\n"
    "    def factor(self):\n"
    "        if 'f' not in self._memo:\n"
    "            self._memo['f'] = (self.points[:, None] * self.points[None, :]).exp()\n"
    "        return self._memo['f']\n"
    "    def forward(self, x):\n"
    "        return (self.factor() @ x) * self.points\n"
    "gp = Gp()\nopt = torch.optim.SGD(gp.parameters(), lr=0.1)\nx = torch.randn(4)\n"
    "for step in range(3):\n"
    "    loss = gp(x).pow(2).sum()\n"
    "    opt.zero_grad()\n"
    "    loss.backward()\n"
    "    opt.step()\n"
)


def test_a_memo_filled_once_is_never_stored_detached_safely() -> None:
    """A sparse GP's memoised factor (issue 15): stored detached, it would keep the first step's
    value for ever and the inducing points would stop learning through it; emptied at the start of
    each iteration, it is computed again from the current points (rule 14), safely, and first."""
    fixes = _fixes(MEMO)
    assert all(applicability != Applicability.SAFE for title, applicability in fixes if "detached" in title)
    assert fixes[0] == ("Empty the cache `gp._memo` at the start of each iteration", Applicability.SAFE)


@pytest.mark.parametrize(
    ("old", "new"),
    [
        # filled from what it held: a recurrent state, not a memo
        (
            "self._memo['f'] = (self.points[:, None] * self.points[None, :]).exp()",
            "self._memo['f'] = (self.points[:, None] * self.points[None, :]).exp() + self._memo.get('g', 0)",
        ),
        # a random draw: filled again, it holds other numbers
        ("* self.points[None, :]).exp()", "* torch.randn(4)[None, :]).exp()"),
        # changed by a call the rule does not model
        (
            "        return self._memo['f']\n",
            "        self._memo.update({'g': 1})\n        return self._memo['f']\n",
        ),
        # written from outside the object's methods
        ("    loss = gp(x).pow(2).sum()\n", "    gp._memo['g'] = x\n    loss = gp(x).pow(2).sum()\n"),
        # a fill that also writes elsewhere
        (
            "        if 'f' not in self._memo:\n",
            "        self.calls = 1\n        if 'f' not in self._memo:\n",
        ),
    ],
)
def test_a_cache_that_is_not_shown_a_memo_is_not_emptied_safely(old: str, new: str) -> None:
    """Rule 14 holds only where every fill of the cache only computes, from what the cache did not
    hold, and nothing else changes it."""
    source = MEMO.replace(old, new)
    assert source != MEMO
    empties = [a for title, a in _fixes(source) if title.startswith("Empty the cache")]
    assert empties
    assert all(applicability != Applicability.SAFE for applicability in empties)


def test_a_read_of_the_memo_is_a_read_only_where_no_class_of_the_code_defines_it() -> None:
    """``gp._memo.keys()`` leaves a dict as it was, and the memo stays safe to empty; where a class
    of the checked code defines ``keys``, the call may be to it, and it may fill the cache."""
    read = MEMO.replace("    opt.step()\n", "    opt.step()\n    print(list(gp._memo.keys()))\n")
    assert read != MEMO
    assert ("Empty the cache `gp._memo` at the start of each iteration", Applicability.SAFE) in _fixes(read)
    own_get = read.replace(
        "class Gp(nn.Module):\n", "class Box:\n    def keys(self):\n        return ()\nclass Gp(nn.Module):\n"
    ).replace("        self._memo = {}\n", "        self._memo = {}\n        self.box = Box()\n")
    empties = [a for title, a in _fixes(own_get) if title.startswith("Empty the cache")]
    assert empties
    assert all(applicability != Applicability.SAFE for applicability in empties)


def test_what_a_step_stores_and_reads_back_is_not_detached_where_it_is_stored() -> None:
    """A KV cache written with this step's keys and read by this step's attention (issue 15): the
    slots are not detached (the keys' projection would stop learning); the buffer carried from the
    previous step is, and `.to(x)` takes only x's dtype, not its graph."""
    source = (
        "import torch\nfrom torch import nn\n"
        "class Attention(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.wq, self.wk = nn.Linear(4, 4), nn.Linear(4, 4)\n"
        "        self.cache = torch.zeros(2, 6, 4)\n"
        "    def forward(self, x):\n"
        "        q, k = self.wq(x), self.wk(x)\n"
        "        self.cache = self.cache.to(q)\n"
        "        self.cache[:, :3] = k\n"
        "        return q @ self.cache[:, :3].transpose(1, 2)\n"
        "attn = Attention()\nopt = torch.optim.SGD(attn.parameters(), lr=0.1)\n"
        "for step in range(3):\n"
        "    loss = attn(torch.randn(2, 3, 4)).pow(2).mean()\n"
        "    opt.zero_grad()\n"
        "    loss.backward()\n"
        "    opt.step()\n"
    )
    inserted = _inserted(source)
    # The previous step's buffer, cut where it is stored again: what that store makes does not learn
    # (the slots written after it do), so the step's own gradient is not cut.
    assert ("safe", "self.cache.to(q).detach()") in inserted
    assert all("k.detach()" not in text for _, text in inserted)


def test_a_list_rebound_whole_is_not_emptied() -> None:
    """A meta-model's weights list, reassigned by its update and never appended to (issue 15):
    emptying it would lose the weights; storing it detached would cut the step's own meta-gradient."""
    source = (
        "import torch\nfrom torch import nn\n"
        "class Meta:\n"
        "    def load(self, model):\n"
        "        self.weights = [p.detach().clone().requires_grad_(True) for p in model.parameters()]\n"
        "    def __call__(self, x):\n"
        "        w, b = self.weights\n"
        "        return x @ w.T + b\n"
        "    def update(self, grads):\n"
        "        self.weights = [w - 0.1 * g for w, g in zip(self.weights, grads)]\n"
        "model = nn.Linear(3, 1)\nscale = nn.Parameter(torch.ones(1))\n"
        "opt = torch.optim.SGD([scale], lr=0.1)\nmeta = Meta()\nmeta.load(model)\n"
        "for step in range(3):\n"
        "    inner = (meta(torch.randn(5, 3)) * scale).pow(2).mean()\n"
        "    meta.update(torch.autograd.grad(inner, meta.weights, create_graph=True))\n"
        "    loss = meta(torch.randn(5, 3)).pow(2).mean()\n"
        "    opt.zero_grad()\n"
        "    loss.backward()\n"
        "    opt.step()\n"
    )
    titles = [title for title, _ in _fixes(source)]
    assert not any(title.startswith(("Empty", "Store")) for title in titles)


def test_a_forward_already_run_per_step_is_not_recomputed_per_inner_step() -> None:
    """Deep mutual learning (issue 15): both peers' outputs come from one forward per step, and each
    peer's optimizer steps in turn in an inner loop; re-run per peer, the second peer's target would
    come from the first peer's stepped parameters (rule 11): not offered, not even as unsafe."""
    source = (
        "import torch\nimport torch.nn.functional as F\nfrom torch import nn\n"
        "peers = [nn.Linear(4, 3), nn.Linear(4, 3)]\n"
        "opts = [torch.optim.SGD(p.parameters(), lr=0.1) for p in peers]\n"
        "for step in range(3):\n"
        "    x = torch.randn(8, 4)\n"
        "    outputs = [peer(x) for peer in peers]\n"
        "    for i in range(2):\n"
        "        loss = F.mse_loss(outputs[i], outputs[1 - i])\n"
        "        opts[i].zero_grad()\n"
        "        loss.backward()\n"
        "        opts[i].step()\n"
    )
    assert [t for t, _ in _fixes(source) if "inside the loop" in t] == []
    one_optimizer = source.replace("opts[i]", "opts[0]")
    assert [t for t, _ in _fixes(one_optimizer) if "inside the loop" in t]


PEERS_STEPPED_IN_TURN = (
    "import torch\nimport torch.nn.functional as F\nfrom torch import nn\n"
    "peers = [nn.Linear(4, 3), nn.Linear(4, 3)]\n"
    "opts = [torch.optim.SGD(p.parameters(), lr=0.1) for p in peers]\n"
    "for step in range(3):\n"
    "    x = torch.randn(8, 4)\n"
    "    outputs = [peer(x) for peer in peers]\n"
    "    for i in range(2):\n"
    "        loss = F.mse_loss(outputs[i], outputs[1 - i])\n"
    "        opts[i].zero_grad()\n"
    "        loss.backward()\n"
    "        opts[i].step()\n"
)


def test_each_turn_backwards_only_into_what_its_optimizer_steps_unsafely() -> None:
    """Deep mutual learning (issue 15): each peer's turn backwards only into the parameters its
    optimizer steps, so it leaves the other peer's graph to that peer's turn. Unsafe: which
    parameters each turn reaches is not shown (the peers share the origin of one comprehension)."""
    fixes = _fixes(PEERS_STEPPED_IN_TURN)
    assert fixes == [("Backward `loss` only into the parameters `opts[i]` steps", Applicability.UNSAFE)]


@pytest.mark.parametrize(
    "changed",
    [
        # built once before both loops: the next step's first turn would find its graph freed
        lambda s: s.replace(
            "for step in range(3):\n    x = torch.randn(8, 4)\n    outputs = [peer(x) for peer in peers]\n",
            "x = torch.randn(8, 4)\noutputs = [peer(x) for peer in peers]\nfor step in range(3):\n",
        ),
        # the optimizer's expression reads a name rebound between the backward and the step
        lambda s: s.replace("        loss.backward()\n", "        loss.backward()\n        i = 1 - i\n"),
        # no step follows the backward in its block: which optimizer the turn feeds is not shown
        lambda s: s.replace("        opts[i].step()\n", "    for opt in opts:\n        opt.step()\n"),
    ],
    ids=["built-before-every-loop", "receiver-rebound", "stepped-elsewhere"],
)
def test_a_turn_is_not_restricted_to_its_optimizer_where_that_is_not_shown(
    changed: Callable[[str], str],
) -> None:
    findings = check_source(changed(PEERS_STEPPED_IN_TURN)).findings
    assert [f.code for f in findings] == ["EK002"]
    assert not any("only into the parameters" in fix.title for f in findings for fix in f.fixes)


REMOVED_HOOKS = (
    "import torch\nfrom torch import nn\n"
    "class Saved:\n"
    "    def __init__(self, module):\n"
    "        self.hook = module.register_forward_hook(self.keep)\n"
    "    def keep(self, module, inputs, output):\n"
    "        self.features = output\n"
    "    def close(self):\n"
    "        self.hook.remove()\n"
    "net = nn.Sequential(nn.Linear(4, 4), nn.Tanh())\n"
    "for p in net.parameters():\n"
    "    p.requires_grad_(False)\n"
    "saved = Saved(net[1])\n"
    "image = torch.rand(1, 4).requires_grad_(True)\n"
    "opt = torch.optim.SGD([image], lr=0.1)\n"
    "for it in range(2):\n"
    "    net(image)\n"
    "    opt.zero_grad()\n"
    "    saved.features.pow(2).mean().backward()\n"
    "    opt.step()\n"
    "saved.close()\n"
    "image = torch.rand(1, 4).requires_grad_(True)\n"
    "opt = torch.optim.SGD([image], lr=0.1)\n"
    "for it in range(2):\n"
    "    net(image)\n"
    "    opt.zero_grad()\n"
    "    (saved.features.pow(2).mean() + image.pow(2).mean()).backward()\n"
    "    opt.step()\n"
)


def test_hooks_removed_before_a_loop_that_runs_a_module_for_them_are_registered_again_safely() -> None:
    """The style transfer's second loop (issue 15, rule 16): the hooks that refreshed `features`
    were removed after the first loop, and the second one calls `net(image)` for its hooks alone;
    the statement that registered them, which builds only hook holders, is re-run before it."""
    fixes = _fixes(REMOVED_HOOKS)
    assert fixes == [("Register the forward hooks of line 13 again before the loop", Applicability.SAFE)]


@pytest.mark.parametrize(
    "changed",
    [
        # the hook does more than store what it is handed
        lambda s: s.replace(
            "        self.features = output\n",
            "        self.features = output\n        self.count = output.sum()\n",
        ),
        # the holder is a module: re-run, its constructor builds parameters
        lambda s: s.replace("class Saved:\n", "class Saved(nn.Module):\n").replace(
            "    def __init__(self, module):\n",
            "    def __init__(self, module):\n        super().__init__()\n",
        ),
        # the constructor does more than register the hook
        lambda s: s.replace(
            "        self.hook = module.register_forward_hook(self.keep)\n",
            "        self.hook = module.register_forward_hook(self.keep)\n        self.w = torch.randn(4)\n",
        ),
        # the loop uses the forward's value: that it runs for the hooks is not shown
        lambda s: s.replace(
            "    net(image)\n    opt.zero_grad()\n    (saved.features",
            "    out = net(image)\n    opt.zero_grad()\n    (out.sum() + saved.features",
        ),
    ],
    ids=["hook-stores-more", "holder-is-a-module", "constructor-does-more", "forward-value-used"],
)
def test_hooks_registered_again_are_unsafe_where_the_statement_does_more(
    changed: Callable[[str], str],
) -> None:
    findings = check_source(changed(REMOVED_HOOKS)).findings
    assert [f.code for f in findings] == ["EK002"]
    applicabilities = [
        fix.applicability
        for f in findings
        for fix in f.fixes
        if fix.title.startswith("Register the forward hooks")
    ]
    assert applicabilities == [Applicability.UNSAFE]


@pytest.mark.parametrize(
    "changed",
    [
        # the module the statement hooks is another one by the second loop
        lambda s: s.replace(
            "saved.close()\n", "saved.close()\nnet = nn.Sequential(nn.Linear(4, 4), nn.Tanh())\n"
        ),
        # two statements registered the hooks the loop reads: which to re-run is not shown
        lambda s: s.replace(
            "saved = Saved(net[1])\n",
            "saved = Saved(net[1])\nif torch.rand(()) > 0.5:\n    saved = Saved(net[0])\n",
        ),
    ],
    ids=["module-rebound", "registered-twice"],
)
def test_hooks_are_not_registered_again_where_the_statement_is_not_shown(
    changed: Callable[[str], str],
) -> None:
    findings = check_source(changed(REMOVED_HOOKS)).findings
    assert [f.code for f in findings] == ["EK002"]
    assert not any(fix.title.startswith("Register the forward hooks") for f in findings for fix in f.fixes)


PENALTY_BUILT_IN_INIT = (
    "import torch\nfrom torch import nn\n"
    "class Model(nn.Module):\n"
    "    def __init__(self, l2=1e-2):\n"
    "        super().__init__()\n"
    "        self.embedding = nn.Embedding(10, 4)\n"
    "        self.head = nn.Linear(4, 1)\n"
    "        self.penalty = torch.zeros(())\n"
    "        self.add_penalty(self.embedding.parameters(), l2)\n"
    "    def add_penalty(self, weights, l2):\n"
    "        self.penalty = self.penalty + l2 * sum(torch.sum(w * w) for w in weights)\n"
    "    def forward(self, x):\n"
    "        return self.head(self.embedding(x)).squeeze(-1)\n"
    "model = Model()\n"
    "optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
    "x, y = torch.randint(10, (32,)), torch.randn(32)\n"
    "for step in range(3):\n"
    "    total = (model(x) - y).pow(2).mean() + model.penalty\n"
    "    optimizer.zero_grad()\n"
    "    total.backward()\n"
    "    optimizer.step()\n"
)


def test_a_penalty_init_builds_is_built_again_before_each_step_unsafely() -> None:
    """DeepCTR's penalty (issue 15): `__init__` starts it from zero and a method adds the weights'
    squares; those two lines become a method that the loop calls before it reads the penalty.
    Unsafe: the method runs code of the checked program for its effect on the object (rule 2)."""
    fixes = _fixes(PENALTY_BUILT_IN_INIT)
    assert fixes == [
        (
            "Build `model.penalty` again before each use in the loop, as `__init__` built it",
            Applicability.UNSAFE,
        )
    ]


@pytest.mark.parametrize(
    "changed",
    [
        # another method adds to it too: rebuilt from `__init__`'s lines, that term would be lost
        lambda s: s.replace(
            "    def forward(self, x):\n",
            "    def add_bias_penalty(self):\n"
            "        self.penalty = self.penalty + self.head.bias.pow(2).sum()\n"
            "    def forward(self, x):\n",
        ).replace("model = Model()\n", "model = Model()\nmodel.add_bias_penalty()\n"),
        # no line starts it again: re-run, the method would add the penalty to what it held
        lambda s: s.replace("        self.penalty = torch.zeros(())\n", "").replace(
            "class Model(nn.Module):\n", "class Model(nn.Module):\n    penalty = 0.0\n"
        ),
        # the method it calls also keeps something else
        lambda s: s.replace(
            "        self.penalty = self.penalty + l2",
            "        self.weights = list(weights)\n        self.penalty = self.penalty + l2",
        ).replace("for w in weights)", "for w in self.weights)"),
        # a name the fix would add is taken
        lambda s: s.replace("model = Model()\n", "model = Model()\nmodel.l2 = 0.5\n"),
        # what it would keep on the object is a tensor the caller passes (a module would be registered)
        lambda s: s.replace("model = Model()\n", "model = Model(torch.tensor(1e-2))\n"),
    ],
    ids=["added-to-elsewhere", "not-started-again", "stores-more", "name-taken", "keeps-a-tensor"],
)
def test_a_penalty_is_not_built_again_where_its_lines_are_not_all_it_is(
    changed: Callable[[str], str],
) -> None:
    findings = check_source(changed(PENALTY_BUILT_IN_INIT)).findings
    assert [f.code for f in findings] == ["EK002"]
    assert not any(fix.title.startswith("Build `") for f in findings for fix in f.fixes)


def test_a_recompute_after_what_changes_its_inputs_goes_where_it_is_read_and_is_unsafe() -> None:
    """PGD (issue 15): the attack perturbs the embedding before the attack step's forward; the clean
    logits re-run at the top of the loop would be taken at the previous perturbation."""
    source = (
        "import torch\nfrom torch import nn\n"
        "emb, head = nn.Embedding(10, 4), nn.Linear(4, 2)\n"
        "opt = torch.optim.SGD([*emb.parameters(), *head.parameters()], lr=0.1)\n"
        "ids = torch.randint(10, (6, 3))\n"
        "def attack(weight):\n"
        "    with torch.no_grad():\n"
        "        weight.add_(0.01 * weight.grad.sign())\n"
        "outputs = head(emb(ids).mean(1))\n"
        "outputs.pow(2).mean().backward()\n"
        "for t in range(3):\n"
        "    attack(emb.weight)\n"
        "    loss_adv = outputs.pow(2).mean()\n"
        "    loss_adv.backward()\n"
        "opt.step()\n"
    )
    (finding,) = check_source(source).findings
    (recompute,) = [fix for fix in finding.fixes if "inside the loop" in fix.title]
    assert recompute.applicability == Applicability.UNSAFE
    (insert,) = [edit for edit in recompute.edits if edit.content]
    assert insert.span.start.line == source.split("\n").index("    loss_adv = outputs.pow(2).mean()")


@pytest.mark.parametrize("name", ["fake", "x_hat", "batch"])
def test_the_order_of_a_gans_fixes_never_depends_on_a_name(name: str) -> None:
    """The discriminator's optimizer is built over the discriminator only: the generator's output is
    its input, detached there first, whatever the variable is called."""
    source = (FIXES / "ek004_gan_detach.in.py").read_text(encoding="utf-8").replace("fake", name)
    first_title, first_applicability = _fixes(source)[0]
    assert first_title == f"Detach `{name}` in the first loss (`{name}.detach()`)"
    assert first_applicability == Applicability.SAFE


def test_a_generator_updated_first_is_not_cut_from_its_own_loss() -> None:
    """The generator's optimizer steps between the passes and is built over the generator: a detach
    in its loss would stop it learning; the discriminator's loss reads the batch as input."""
    source = (FIXES / "ek004_generator_updated_first.in.py").read_text(encoding="utf-8")
    fixes = _fixes(source)
    assert fixes[0] == ("Detach `fake` where the second loss uses it (`fake.detach()`)", Applicability.SAFE)
    assert not any("in the first loss" in title for title, _ in fixes)
    assert all(applicability != Applicability.SAFE for title, applicability in fixes[1:])


def test_a_value_one_optimizer_trains_is_detached_where_another_loss_reads_it() -> None:
    """SAC's temperature loss reads the actor's log-probabilities (unpacked from a tuple) after the
    actor stepped; `Adam([log_alpha])` owns only the temperature: detaching them there is safe."""
    source = (
        "import torch\nfrom torch import nn\n"
        "class Actor(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.net = nn.Linear(3, 2)\n"
        "    def forward(self, obs):\n"
        "        out = self.net(obs)\n"
        "        return out[:, :1].tanh(), out[:, 1:]\n"
        "actor = Actor()\nlog_alpha = torch.zeros(1, requires_grad=True)\n"
        "actor_opt = torch.optim.Adam(actor.parameters(), lr=1e-3)\n"
        "alpha_opt = torch.optim.Adam([log_alpha], lr=1e-3)\n"
        "for step in range(3):\n"
        "    action, log_pi = actor(torch.randn(4, 3))\n"
        "    actor_loss = (log_pi - action).mean()\n"
        "    actor_opt.zero_grad()\n"
        "    actor_loss.backward()\n"
        "    actor_opt.step()\n"
        "    alpha_loss = -(log_alpha * (log_pi + 1.0)).mean()\n"
        "    alpha_opt.zero_grad()\n"
        "    alpha_loss.backward()\n"
        "    alpha_opt.step()\n"
    )
    title, applicability = _fixes(source)[0]
    assert title == "Detach `log_pi` where the second loss uses it (`log_pi.detach()`)"
    assert applicability == Applicability.SAFE


@pytest.mark.parametrize(("grows", "safe"), [(False, True), (True, False)])
def test_a_fixed_set_of_states_is_detached_item_by_item_safely(grows: bool, safe: bool) -> None:
    """Per-layer states in a list the code never appends to: each detached, in the list's shape, is
    truncated BPTT (safe); a list that grows keeps earlier items' graphs for later backwards."""
    source = (
        "import torch\nfrom torch import nn\n"
        "cells = nn.ModuleList([nn.GRUCell(4, 4), nn.GRUCell(4, 4)])\n"
        "opt = torch.optim.SGD(cells.parameters(), lr=0.1)\n"
        "states = [torch.zeros(2, 4), torch.zeros(2, 4)]\n"
        "for step in range(3):\n"
        "    x = torch.randn(2, 4)\n"
        "    states = [cell(x, h) for cell, h in zip(cells, states)]\n"
        + ("    states.append(states[-1])\n" if grows else "")
        + "    loss = states[-1].pow(2).mean()\n"
        "    opt.zero_grad()\n"
        "    loss.backward()\n"
        "    opt.step()\n"
    )
    detaches = [(t, a) for t, a in _fixes(source) if t.startswith("Detach `states`")]
    assert detaches
    assert (detaches[0][1] == Applicability.SAFE) is safe


def test_a_score_the_second_loss_trains_through_is_never_detached_there_safely() -> None:
    """The discriminator's score of the fake batch is shared, and the generator's optimizer owns
    what that score was made from (the generator, upstream of the discriminator): detached in the
    generator's loss, nothing of the generator would train."""
    source = (
        "import torch\nfrom torch import nn\n"
        "G, D = nn.Linear(2, 2), nn.Sequential(nn.Linear(2, 1), nn.Sigmoid())\n"
        "opt_g = torch.optim.SGD(G.parameters(), lr=0.1)\n"
        "opt_d = torch.optim.SGD(D.parameters(), lr=0.1)\n"
        "for step in range(3):\n"
        "    fake = G(torch.randn(4, 2))\n"
        "    p_fake = D(fake)\n"
        "    d_loss = -torch.log(1 - p_fake).mean() - torch.log(D(torch.randn(4, 2))).mean()\n"
        "    opt_d.zero_grad()\n"
        "    d_loss.backward()\n"
        "    opt_d.step()\n"
        "    g_loss = torch.log(1 - p_fake).mean() + 0.01 * G.weight.pow(2).sum()\n"
        "    opt_g.zero_grad()\n"
        "    g_loss.backward()\n"
        "    opt_g.step()\n"
    )
    fixes = _fixes(source)
    assert fixes
    assert not any(a == Applicability.SAFE and "second loss" in t for t, a in fixes)


def test_losses_are_not_summed_across_a_step_that_reads_the_first_gradient() -> None:
    """SAM (issue 15): `first_step` reads the first backward's gradients to perturb the weights;
    one backward of the sum would hand it the sum's gradient, and nothing to perturb with."""
    source = (
        "import torch\nfrom torch import nn\n"
        "class Sam:\n"
        "    def __init__(self, params):\n"
        "        self.params = list(params)\n"
        "    def first_step(self):\n"
        "        with torch.no_grad():\n"
        "            for p in self.params:\n"
        "                p.add_(0.05 * p.grad)\n"
        "                p.grad = None\n"
        "model = nn.Linear(3, 2)\nsam = Sam(model.parameters())\n"
        "for step in range(2):\n"
        "    output = model(torch.randn(4, 3))\n"
        "    loss = output.pow(2).mean()\n"
        "    loss.backward()\n"
        "    sam.first_step()\n"
        "    output.pow(2).mean().backward()\n"
    )
    assert not any(title.startswith("Sum the losses") for title, _ in _fixes(source))


DERIVED_IN_INIT = (
    "import math\nimport torch\nfrom torch import nn\nfrom torch.nn import functional as F\n\n\n"
    "class WNLinear(nn.Module):\n"
    "    def __init__(self, n):\n"
    "        super().__init__()\n"
    "        self.v = nn.Parameter(torch.randn(n, n))\n"
    "        self.g = nn.Parameter(torch.ones(n, 1))\n"
    "        self.weight = {derived}\n\n"
    "    def forward(self, x):\n"
    "        return F.linear(x, self.weight){extra}\n"
    "{method}\n\n"
    "layer = WNLinear(4)\n"
    "opt = torch.optim.SGD(layer.parameters(), lr=0.1)\n"
    "for step in range(3):\n"
    "    loss = layer(torch.randn(2, 4)).pow(2).mean()\n"
    "    opt.zero_grad()\n"
    "    loss.backward()\n"
    "    opt.step()\n"
    "{after}"
)
WEIGHT_NORM = "self.g * self.v / self.v.norm(dim=1, keepdim=True)"


@pytest.mark.parametrize(
    ("extra", "after", "safe"),
    [
        ("", "", True),
        # its source read next to it: the value may be an anchor the loss compares it with
        (" + (self.weight - self.v).pow(2).sum()", "", False),
        # reached by a name in a string: what else reads it is not shown
        ("", "print(getattr(layer, 'g'))\n", False),
        ("", "print(layer.state_dict()['g'])\n", False),
        # read from outside the class
        ("", "print(layer.weight)\n", False),
        # every parameter read at once, besides the optimizer's: an L2-SP penalty against an anchor
        (" + sum(p.pow(2).sum() for p in self.parameters())", "", False),
    ],
)
def test_a_value_init_derives_from_parameters_only_it_reads_is_computed_where_read_safely(
    extra: str, after: str, safe: bool
) -> None:
    """Rule 8: weight normalisation computed once in ``__init__``. Where the parameters reach the
    loss only through it, computing it where it is read is safe (the first step is the same, and
    detached they would never learn); where anything else reads them, it stays unsafe."""
    source = DERIVED_IN_INIT.format(derived=WEIGHT_NORM, extra=extra, method="", after=after)
    (finding,) = check_source(source).findings
    first = finding.fixes[0]
    assert first.title == "Compute `self.weight` where it is used, on every call"
    assert (first.applicability == Applicability.SAFE) is safe


def test_a_value_a_method_stores_on_every_step_is_not_computed_where_read_safely() -> None:
    """Stored by a method other than ``__init__`` (run per outer step, its value at store time may
    be meant): never computed where read safely."""
    source = DERIVED_IN_INIT.format(derived=WEIGHT_NORM, extra="", method="", after="").replace(
        "        self.weight = self.g * self.v / self.v.norm(dim=1, keepdim=True)\n\n",
        "        self.prepare()\n\n"
        "    def prepare(self):\n"
        "        self.weight = self.g * self.v / self.v.norm(dim=1, keepdim=True)\n\n",
    )
    findings = check_source(source).findings
    assert findings
    assert all(fix.applicability != Applicability.SAFE for f in findings for fix in f.fixes)


@pytest.mark.parametrize(("penalty", "safe"), [("", True), (" + w.grad.abs().sum()", False)])
def test_a_gradient_cleared_by_hand_before_the_first_use_leaves_the_recompute_safe(
    penalty: str, safe: bool
) -> None:
    """``w.grad = None`` above the loss's first use changes nothing a forward computation reads:
    the recompute stays safe, unless what it re-runs reads a ``.grad`` itself."""
    source = (
        "import torch\n"
        "x = torch.randn(8, 3)\nw = torch.zeros(3, requires_grad=True)\n"
        f"loss = (x @ w).pow(2).mean(){penalty}\n"
        "for step in range(3):\n"
        "    w.grad = None\n"
        "    loss.backward()\n"
        "    with torch.no_grad():\n"
        "        w -= 0.1 * w.grad\n"
    )
    (finding,) = check_source(source).findings
    recomputed = [fix for fix in finding.fixes if "inside the loop" in fix.title]
    assert recomputed
    assert (recomputed[0].applicability == Applicability.SAFE) is safe


@pytest.mark.parametrize(
    ("read_again", "safe"), [("", True), ("print(sum(p.numel() for p in trainable))\n", False)]
)
def test_parameters_handed_to_the_optimizer_through_a_name_are_no_other_read(
    read_again: str, safe: bool
) -> None:
    """``trainable = [p for p in layer.parameters() if p.requires_grad]`` read only by the optimizer's
    construction reads no parameter; read anywhere else as well, it may."""
    source = DERIVED_IN_INIT.format(derived=WEIGHT_NORM, extra="", method="", after="").replace(
        "opt = torch.optim.SGD(layer.parameters(), lr=0.1)\n",
        "trainable = [p for p in layer.parameters() if p.requires_grad]\n"
        f"{read_again}opt = torch.optim.SGD(trainable, lr=0.1)\n",
    )
    (finding,) = check_source(source).findings
    assert (finding.fixes[0].applicability == Applicability.SAFE) is safe


TEACHER = (FIXES / "ek002_teacher_targets_built_once.in.py").read_text(encoding="utf-8")
STUDENT_OPTIMIZER = "optimizer = torch.optim.Adam(student.parameters(), lr=1e-2)\n"
BUILT_ONCE = "Detach `targets`, built once and only read by the loop"


def _detach_built_once(source: str) -> Applicability | None:
    """The applicability of the detach offered, None where none is (fix_safety rule 10)."""
    (finding,) = check_source(source).findings
    detaches = [fix.applicability for fix in finding.fixes if fix.title.startswith(BUILT_ONCE)]
    assert len(detaches) <= 1
    return detaches[0] if detaches else None


WITHHELD = None
"""The loop's own optimizer owns the teacher, which the loss reaches only through the targets:
detached, they would leave the teacher without a gradient, so no detach is offered (rule 10)."""


@pytest.mark.parametrize(
    ("optimizer", "after", "expected"),
    [
        (STUDENT_OPTIMIZER, "", Applicability.SAFE),
        # the teacher handed to the loop's optimizer, however it is spelled: detached, it never learns
        (
            "optimizer = torch.optim.Adam(itertools.chain(student.parameters(), teacher.parameters()))\n",
            "",
            WITHHELD,
        ),
        (
            "optimizer = torch.optim.Adam("
            "[{'params': student.parameters()}, {'params': teacher.parameters()}])\n",
            "",
            WITHHELD,
        ),
        (
            "optimizer = torch.optim.Adam(list(student.parameters()) + list(teacher.parameters()))\n",
            "",
            WITHHELD,
        ),
        (
            "optimizer = torch.optim.Adam([p for p in teacher.parameters() if p.requires_grad])\n",
            "",
            WITHHELD,
        ),
        ("optimizer = torch.optim.Adam([*student.parameters(), teacher[0].weight])\n", "", WITHHELD),
        # an optimizer of the teacher that steps after the student's first backward applies the
        # gradient the loss sends there, which reaches the teacher only through the targets
        (
            STUDENT_OPTIMIZER + "teacher_optimizer = torch.optim.SGD(teacher.parameters(), lr=0.1)\n",
            "teacher_optimizer.step()\n",
            WITHHELD,
        ),
        # ... or it may, handed to code the checker does not follow
        (
            STUDENT_OPTIMIZER + "teacher_optimizer = torch.optim.SGD(teacher.parameters(), lr=0.1)\n",
            "watch(teacher_optimizer)\n",
            Applicability.UNSAFE,
        ),
        # one that never steps (or steps only before) never applies it: the detach changes nothing
        (
            STUDENT_OPTIMIZER + "teacher_optimizer = torch.optim.SGD(teacher.parameters(), lr=0.1)\n",
            "",
            Applicability.SAFE,
        ),
        # handed to the loop's optimizer later, by a group of its own: the same
        (
            STUDENT_OPTIMIZER + "optimizer.add_param_group({'params': teacher.parameters()})\n",
            "",
            WITHHELD,
        ),
        # what the optimizer is handed is not known
        ("optimizer = torch.optim.Adam(trainable(student))\n", "", Applicability.UNSAFE),
        # something else sees the teacher's gradients
        (STUDENT_OPTIMIZER, "print(teacher[0].weight.grad)\n", Applicability.UNSAFE),
        (STUDENT_OPTIMIZER + "teacher.register_full_backward_hook(print)\n", "", Applicability.UNSAFE),
        (STUDENT_OPTIMIZER + "watch(teacher)\n", "", Applicability.UNSAFE),
        (STUDENT_OPTIMIZER, "targets.grad_fn.register_hook(print)\n", Applicability.UNSAFE),
        (STUDENT_OPTIMIZER + "teacher[0].weight.register_hook(print)\n", "", Applicability.UNSAFE),
        (
            STUDENT_OPTIMIZER + "torch.nn.modules.module.register_module_full_backward_hook(print)\n",
            "",
            Applicability.UNSAFE,
        ),
        # the student's head is the teacher's (tied): the optimizer trains a part of the teacher
        (STUDENT_OPTIMIZER + "teacher[2].bias = student[2].bias\n", "", Applicability.UNSAFE),
    ],
)
def test_a_value_built_once_is_detached_safely_only_where_no_optimizer_trains_what_made_it(
    optimizer: str, after: str, expected: Applicability | None
) -> None:
    """Rule 9: the teacher's targets, built once before the student's epochs, are detached safely
    where no optimizer owns a parameter of the teacher (the two modules made by the same helper are
    two modules: the constructor call under the call that ran it) and nothing else sees its
    gradients; otherwise it stays unsafe, and where the loop's own optimizer owns the teacher it is
    not offered at all (rule 10)."""
    header = "import itertools\n\nimport torch\nfrom training_utils import trainable, watch\n"
    source = TEACHER.replace("import torch\n", header, 1).replace(STUDENT_OPTIMIZER, optimizer)
    assert _detach_built_once(source + after) == expected


def test_modules_one_constructor_call_makes_are_one_module_to_the_ownership() -> None:
    """Two modules made by one call site under the same calls (a comprehension) cannot be told
    apart by their origin: an optimizer over one of them may own the other's parameters."""
    source = TEACHER.replace(
        "teacher = mlp(32)\nstudent = mlp(8)\n", "teacher, student = [mlp(w) for w in (32, 8)]\n"
    )
    assert source != TEACHER
    assert _detach_built_once(source) == Applicability.UNSAFE


def test_which_module_an_optimizer_trains_never_depends_on_a_name() -> None:
    """The teacher called `student` and the student `teacher`: the same program, the same answer."""
    swapped = TEACHER.replace("teacher", "TMP").replace("student", "teacher").replace("TMP", "student")
    assert swapped != TEACHER
    assert _detach_built_once(swapped) == _detach_built_once(TEACHER) == Applicability.SAFE


ROLLOUT = (FIXES / "ek002_rollout_log_probs_reused.in.py").read_text(encoding="utf-8")
OLD_LOG_PROBS = "Detach `old_log_probs`, built once and only read by the loop"


def _detach_old_log_probs(source: str) -> Applicability | None:
    (finding,) = check_source(source).findings
    detaches = [fix.applicability for fix in finding.fixes if fix.title.startswith(OLD_LOG_PROBS)]
    assert len(detaches) <= 1
    return detaches[0] if detaches else None


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ("", "", Applicability.SAFE),
        # a second policy made by the same constructor call: which one the epochs run again is not shown
        (
            "policy = nn.Linear(4, 2)\n",
            "policy, other = [nn.Linear(4, 2) for _ in range(2)]\n",
            Applicability.UNSAFE,
        ),
        # the rollout's policy is another module, owned by the optimizer too: detached, it stops learning
        (
            "obs, actions, old_log_probs = rollout(policy)\n",
            "behaviour = nn.Linear(4, 2)\noptimizer.add_param_group({'params': behaviour.parameters()})\n"
            "obs, actions, old_log_probs = rollout(behaviour)\n",
            None,
        ),
        # ... owned by an optimizer of its own, which nothing steps after the epochs' first backward
        # (nor is handed to code the checker does not follow): the gradient the cut stops would
        # never be applied (rule 9)
        (
            "obs, actions, old_log_probs = rollout(policy)\n",
            "behaviour = nn.Linear(4, 2)\nbehaviour_opt = torch.optim.SGD(behaviour.parameters(), lr=0.1)\n"
            "obs, actions, old_log_probs = rollout(behaviour)\n",
            Applicability.SAFE,
        ),
        # ... handed on, it may be stepped by what it is handed to: unsafe
        (
            "obs, actions, old_log_probs = rollout(policy)\n",
            "behaviour = nn.Linear(4, 2)\nbehaviour_opt = torch.optim.SGD(behaviour.parameters(), lr=0.1)\n"
            "optimizers = [optimizer, behaviour_opt]\n"
            "obs, actions, old_log_probs = rollout(behaviour)\n",
            Applicability.UNSAFE,
        ),
        # something else sees the policy's gradients
        ("    optimizer.step()", "    print(policy.weight.grad)\n    optimizer.step()", Applicability.UNSAFE),
        # the log-probabilities read the weight by an op of their own, not only through the module's call
        (
            "dist = Categorical(logits=policy(obs))",
            "dist = Categorical(logits=policy(obs) + obs[:2] @ policy.weight[:, :2])",
            Applicability.UNSAFE,
        ),
    ],
)
def test_a_module_output_built_once_is_detached_safely_where_the_loop_reaches_its_parameters_again(
    old: str, new: str, expected: Applicability | None
) -> None:
    """Rule 13: a rollout's log-probabilities, recorded with the graph of the policy the epochs
    train, are detached safely: every epoch runs the policy again, so the optimizer updates the same
    tensors. Unsafe where the policy reached again may be another module, where the cut loses a
    module an optimizer owns, where something else sees a gradient there, or where the value reads
    a parameter by an op of its own (a parameter transform, rule 8)."""
    source = ROLLOUT.replace(old, new)
    assert source != ROLLOUT or not old
    assert _detach_old_log_probs(source) == expected


def test_a_behaviour_policy_whose_optimizer_steps_after_the_epochs_is_not_cut() -> None:
    """Rule 10 beside rule 9: the behaviour policy's own optimizer steps after the epochs, so it
    would apply the gradient the loss sends there, which reaches it only through the values the
    fix would detach: detached, it would stop learning, and no detach is offered."""
    source = ROLLOUT.replace(
        "obs, actions, old_log_probs = rollout(policy)\n",
        "behaviour = nn.Linear(4, 2)\nbehaviour_opt = torch.optim.SGD(behaviour.parameters(), lr=0.1)\n"
        "obs, actions, old_log_probs = rollout(behaviour)\n",
    )
    assert source != ROLLOUT
    assert _detach_old_log_probs(source) == Applicability.SAFE
    assert _detach_old_log_probs(source + "behaviour_opt.step()\n") is None


GAN = (FIXES / "ek004_gan_detach.in.py").read_text(encoding="utf-8")
IN_ONE_DICT = GAN.replace("generator = nn.Sequential(", 'nets = nn.ModuleDict({"G": nn.Sequential(').replace(
    "discriminator = nn.Sequential(nn.Linear(2, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))\n",
    '"D": nn.Sequential(nn.Linear(2, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))})\n',
)
IN_ONE_DICT = IN_ONE_DICT.replace("nn.Linear(16, 2))\n", "nn.Linear(16, 2)),\n", 1)
IN_ONE_DICT = IN_ONE_DICT.replace("generator", 'nets["G"]').replace("discriminator", 'nets["D"]')


@pytest.mark.parametrize(
    ("changed", "safe"),
    [
        ("", True),
        # the discriminator's optimizer over both: it trains what made the fake batch
        ('opt_d = torch.optim.Adam(nets["D"].parameters()', False),
        # which module the dict holds under a key is no longer known
        ('nets.update({"G": nets["D"]})\nopt_d = torch.optim.Adam(nets["D"].parameters()', False),
    ],
)
def test_the_modules_of_a_module_dict_are_told_apart_by_key(changed: str, safe: bool) -> None:
    """Generator and discriminator kept in one ``nn.ModuleDict``: ``nets["D"]`` holds the
    discriminator's parameters only, so the discriminator's optimizer is shown not to train the
    generator (its fake batch is detached in the discriminator's loss, safely); handed the whole
    dict, or once the dict was changed, it may."""
    source = IN_ONE_DICT
    if changed == 'opt_d = torch.optim.Adam(nets["D"].parameters()':
        source = source.replace(changed, "opt_d = torch.optim.Adam(nets.parameters()")
    elif changed:
        source = source.replace('opt_d = torch.optim.Adam(nets["D"].parameters()', changed)
    assert source.count('nets["G"]') >= 2
    first_title, first_applicability = _fixes(source)[0]
    detached = first_title == "Detach `fake` in the first loss (`fake.detach()`)"
    assert (detached and first_applicability == Applicability.SAFE) is safe


TRAINER = """import torch
import torch.nn as nn
import torch.nn.functional as F


def mlp(width):
    return nn.Sequential(nn.Linear(8, width), nn.ReLU(), nn.Linear(width, 4))


class Distiller:
    def __init__(self):
        self.teacher = mlp(32)
        self.student = mlp(8)
        self.optimizer = torch.optim.Adam(self.student.parameters(), lr=1e-2)

    def fit(self, inputs, epochs=3):
        targets = self.soft_targets(inputs)
        for _ in range(epochs):
            loss = F.kl_div(F.log_softmax(self.student(inputs), -1), targets, reduction="batchmean")
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()

    def soft_targets(self, inputs):
        chunks = []
        for start in range(0, inputs.size(0), 16):
            chunks.append(F.softmax(self.teacher(inputs[start : start + 16]), -1))
        return torch.cat(chunks)
"""


@pytest.mark.parametrize(("driver", "safe"), [("", False), ("\nDistiller().fit(torch.randn(32, 8))\n", True)])
def test_modules_an_unknown_caller_holds_may_be_trained_by_it(driver: str, safe: bool) -> None:
    """A class checked on its own, with no code of the file that builds and drives it: whoever
    builds the object may build an optimizer over its teacher, so the detach stays unsafe; driven by
    the file's own code, every optimizer is seen."""
    assert _detach_built_once(TRAINER + driver) == (Applicability.SAFE if safe else Applicability.UNSAFE)


@pytest.mark.parametrize(
    ("second_loss", "safe"),
    [("code.abs().mean()", True), ("(returns - values).pow(2).mean()", False)],
)
def test_a_loss_without_a_part_of_its_own_sums_safely_only_on_what_the_other_part_reads(
    second_loss: str, safe: bool
) -> None:
    """A penalty on the code a decoder reads is part of one objective (a VAE's KL term); a loss on
    values the other loss only combines with its own output (a critic's, weighting log-probabilities)
    may be a baseline: that sum stays unsafe."""
    source = (
        "import torch\nfrom torch import nn\n"
        "encoder, decoder, critic = nn.Linear(4, 3), nn.Linear(3, 4), nn.Linear(4, 1)\n"
        "x, returns = torch.randn(5, 4), torch.randn(5)\n"
        "code = encoder(x)\n"
        "values = critic(x).squeeze(-1)\n"
        "first = (decoder(code) - x).pow(2).mean()\n"
        + ("" if safe else "first = first + (decoder(code).sum(-1) * (returns - values)).mean()\n")
        + f"second = {second_loss}\n"
        "first.backward()\n"
        "second.backward()\n"
    )
    (finding,) = check_source(source).findings
    (summed,) = [fix for fix in finding.fixes if fix.title.startswith("Sum the losses")]
    assert (summed.applicability == Applicability.SAFE) is safe


@pytest.mark.parametrize("owned", [False, True])
def test_a_cache_is_stored_detached_safely_only_where_no_optimizer_trains_what_made_it(owned: bool) -> None:
    """A factor cached in eval mode from hyperparameters no optimizer owns: stored detached, the
    values and what trains stay the same. Where the optimizer owns them, the cut would stop them
    learning: the fix is not offered."""
    source = (FIXES / "ek003_cache_of_frozen_hyperparameters.in.py").read_text(encoding="utf-8")
    if owned:
        old = "torch.optim.SGD([design], lr=0.1)"
        assert old in source
        source = source.replace(old, "torch.optim.SGD([design, *surrogate.parameters()], lr=0.1)")
    (finding,) = check_source(source).findings
    stored = [fix for fix in finding.fixes if fix.title.startswith("Store `self.weights_cache` detached")]
    assert [fix.applicability for fix in stored] == ([] if owned else [Applicability.SAFE])


@pytest.mark.parametrize(("update", "safe"), [("state", True), ("states.pop()", False)])
def test_a_state_on_self_computed_from_itself_through_a_name_is_detached_safely(
    update: str, safe: bool
) -> None:
    """``out, state = rnn(x, self.state)`` then ``self.state = state``: truncated BPTT between the
    calls of a training step. An item popped from a list it was put into is not shown to be it."""
    source = (FIXES / "ek003_stream_state_kept_on_trainer.in.py").read_text(encoding="utf-8")
    old = "        self.state = state\n"
    assert old in source
    source = source.replace(old, f"        states = [self.state, state]\n        self.state = {update}\n")
    (finding,) = check_source(source).findings
    (detach,) = [fix for fix in finding.fixes if fix.title.startswith("Detach `self.state`")]
    assert (detach.applicability == Applicability.SAFE) is safe


@pytest.mark.parametrize("every", [1, 2])
def test_the_gradient_a_backward_left_is_read_from_grad_safely_only_after_a_clear(every: int) -> None:
    """``.grad`` holds exactly the gradient asked for where the optimizer cleared it right before the
    backward; with gradients accumulated over two steps it also holds the previous step's."""
    source = (FIXES / "ek001_grad_after_backward.in.py").read_text(encoding="utf-8")
    old = "    optimizer.zero_grad()\n"
    assert old in source
    if every > 1:
        source = source.replace(old, f"    if step % {every} == 0:\n        optimizer.zero_grad()\n")
    (finding,) = check_source(source).findings
    (read,) = [fix for fix in finding.fixes if fix.title.startswith("Read the gradient")]
    assert (read.applicability == Applicability.SAFE) is (every == 1)


@pytest.mark.parametrize(
    ("actor_opt_owns", "retained"),
    [("actor.parameters()", True), ("[*encoder.parameters(), *actor.parameters()]", False)],
)
def test_a_step_between_two_backwards_allows_a_retain_only_where_it_spares_the_second_graph(
    actor_opt_owns: str, retained: bool
) -> None:
    """The actor's optimizer steps between the actor's backward and the critic's: keeping the graph
    for the critic's pass holds only while that optimizer owns nothing the critic's graph reads
    (here, the shared encoder); once it does, the step changes what the pass saved."""
    source = (FIXES / "ek004_other_optimizer_steps_between.in.py").read_text(encoding="utf-8")
    built = "actor_opt = torch.optim.Adam(actor.parameters(), lr=1e-2)"
    assert source.count(built) == 1
    (finding,) = check_source(
        source.replace(built, built.replace("actor.parameters()", actor_opt_owns))
    ).findings
    titles = [fix.title for fix in finding.fixes]
    assert any("retain_graph=True" in title for title in titles) is retained


@pytest.mark.parametrize(
    ("call", "expired"),
    [
        ("torch.cos(positions * self.reciprocal(box)).sum()", True),
        ("torch.cos(positions * self.reciprocal(box)).sum() + self._box_key", False),
    ],
)
def test_a_cache_is_emptied_by_its_key_only_where_every_read_of_the_key_is_guarded(
    call: str, expired: bool
) -> None:
    """Storing ``None`` into a cache's key makes the method compute the value again, where the key
    is read only after its ``is not None`` test; a read of it anywhere else would meet ``None``."""
    source = (FIXES / "ek003_cache_served_while_its_key_matches.in.py").read_text(encoding="utf-8")
    energy = "torch.cos(positions * self.reciprocal(box)).sum()"
    assert source.count(energy) == 1
    (finding,) = check_source(source.replace(energy, call)).findings
    assert any(fix.title.startswith("Empty the cache") for fix in finding.fixes) is expired


LOOPING_HELPER = (FIXES / "ek002_learned_rewards_through_a_looping_helper.in.py").read_text(encoding="utf-8")
FRESH_TENSOR = "    returns, running = torch.zeros_like(rewards), torch.tensor(0.0)\n"


@pytest.mark.parametrize(
    ("made", "recomputed"),
    [
        (FRESH_TENSOR, Applicability.SAFE),
        # written into what the caller handed it: re-run, it would change the caller's tensor
        ("    returns, running = rewards, torch.tensor(0.0)\n", None),
        # a view of the caller's tensor is the caller's tensor
        ("    returns, running = rewards.view(-1), torch.tensor(0.0)\n", None),
        # made new, then bound again to the caller's
        (FRESH_TENSOR + "    returns = rewards\n", None),
    ],
)
def test_a_helper_that_fills_a_tensor_it_made_is_a_forward_computation(
    made: str, recomputed: Applicability | None
) -> None:
    """A function of the checked code may loop and write items of a tensor it made itself with one of
    torch's functions that return a new tensor (GAE's advantages filled step by step): re-run, it
    computes the same and changes nothing of its caller's. Written into anything else, it is not
    re-run at all (rule 2)."""
    assert FRESH_TENSOR in LOOPING_HELPER
    (finding,) = check_source(LOOPING_HELPER.replace(FRESH_TENSOR, made)).findings
    inside = [fix.applicability for fix in finding.fixes if "inside the loop" in fix.title]
    assert (inside[0] if inside else None) == recomputed


STALE_FAKES = (
    "import torch\nfrom torch import nn\n"
    "gen, critic = nn.Linear(2, 4), nn.Linear(4, 1)\n"
    "opt_g = torch.optim.SGD(gen.parameters(), lr=0.1)\n"
    "opt_c = torch.optim.SGD(critic.parameters(), lr=0.1)\n"
    "for step in range(3):\n"
    "    opt_c.zero_grad()\n"
    "    fakes = gen(torch.randn(8, 2))\n"
    "    critic(fakes).mean().backward()\n"
    "    opt_c.step()\n"
    "    opt_g.zero_grad()\n"
    "    images = gen(torch.randn(8, 2))\n"
    "    loss = -critic(fakes).mean()\n"
    "    loss.backward()\n"
    "    opt_g.step()\n"
)


def test_a_value_the_program_recomputed_into_an_unread_name_is_read_by_the_second_loss() -> None:
    """WGAN-GP (issue 15, rule 12): ``images`` is made by the very expression that made the stale
    ``fakes``, after the critic's backward, and nothing reads it: the generator's loss reads it."""
    (title, applicability), *_ = _fixes(STALE_FAKES)
    assert title == "Use `images` in the second loss: it recomputes `fakes` and is read nowhere else"
    assert applicability == Applicability.SAFE


@pytest.mark.parametrize(
    "change",
    [
        ("    opt_g.step()\n", "    opt_g.step()\n    print(images.mean())\n"),  # read elsewhere
        ("gen(torch.randn(8, 2))\n    loss", "gen(torch.randn(8, 3)[:, :2])\n    loss"),  # another expression
        # another value
        ("    images = gen(torch.randn(8, 2))\n", "    images = critic(gen(torch.randn(8, 2)))\n"),
    ],
)
def test_a_name_that_is_read_or_holds_another_expression_is_not_used(change: tuple[str, str]) -> None:
    source = STALE_FAKES.replace(*change)
    assert source != STALE_FAKES
    assert not any(title.startswith("Use `images`") for title, _ in _fixes(source))


WRAPPED_BACKWARDS = """\
import torch
import torch.nn as nn


class Backwarder:
    def backward(self, loss):
        loss.backward(){effect}


trunk = nn.Linear(4, 8)
head_a = nn.Linear(8, 3)
head_b = nn.Linear(8, 1)
optimizer = torch.optim.SGD([*trunk.parameters(), *head_a.parameters(), *head_b.parameters()], lr=0.1)
runner = Backwarder()
x = torch.randn(16, 4)
for step in range(3):
    h = trunk(x)
    loss_a = head_a(h).pow(2).mean()
    loss_b = head_b(h).pow(2).mean()
    optimizer.zero_grad()
    runner.backward(loss_a){between}
    runner.backward(loss_b)
    optimizer.step()
"""


@pytest.mark.parametrize(
    ("effect", "between", "safe"),
    [
        ("", "", True),
        ("", "\n    x = x + 1", False),  # the recompute would read another `x`
        ("", "\n    optimizer.zero_grad()", False),  # the first loss's gradient is thrown away
        ("", "\n    scale = loss_a.detach() * 2", True),  # a forward computation into an unread name
        ("\n        self.calls = 1", "", False),  # the wrapper does more than the backward
    ],
    ids=["nothing-between", "input-rebound", "cleared-between", "computed-between", "wrapper-stores"],
)
def test_two_losses_backwarded_through_a_wrapper_are_recomputed_safely_where_nothing_changes(
    effect: str, between: str, safe: bool
) -> None:
    """Rule 15: with no step between the two backwards, recomputing the shared values before the
    second computes the tensors the program computed, and sends what the sum would, only where every
    statement between is the first backward, a ``zero_grad()`` before it, or a forward computation
    into a name the recompute does not read."""
    source = WRAPPED_BACKWARDS.format(effect=effect, between=between)
    (finding,) = check_source(source).findings
    assert finding.code == "EK004"
    recompute = next(f for f in finding.fixes if f.title.startswith("Recompute"))
    assert recompute.title == "Recompute `h, loss_b` before the second backward"
    assert (recompute.applicability is Applicability.SAFE) is safe
    if safe:
        assert finding.fixes[0] is recompute, "the safe fix comes first"


@pytest.mark.parametrize(
    ("wrapper", "safe"),
    [
        ("lambda loss: loss.backward()", True),
        ("lambda loss: [loss.backward(), calls.append(loss.item())]", False),  # more than the backward
    ],
    ids=["only-the-backward", "backward-and-more"],
)
def test_a_lambda_the_interpreter_ran_counts_as_the_first_backward_only_where_it_is_one(
    wrapper: str, safe: bool
) -> None:
    """Rule 15 through a lambda (``backward_fn = lambda loss: loss.backward()``): the call between
    the two backwards is the first backward where every lambda the interpreter ran for it is only
    that backward."""
    source = f"""\
import torch
import torch.nn as nn

trunk = nn.Linear(4, 8)
head_a = nn.Linear(8, 3)
head_b = nn.Linear(8, 1)
optimizer = torch.optim.SGD([*trunk.parameters(), *head_a.parameters(), *head_b.parameters()], lr=0.1)
calls = []
backward_fn = {wrapper}
x = torch.randn(16, 4)
for step in range(3):
    h = trunk(x)
    loss_a = head_a(h).pow(2).mean()
    loss_b = head_b(h).pow(2).mean()
    optimizer.zero_grad()
    backward_fn(loss_a)
    backward_fn(loss_b)
    optimizer.step()
"""
    (finding,) = check_source(source).findings
    recompute = next(f for f in finding.fixes if f.title.startswith("Recompute"))
    assert (recompute.applicability is Applicability.SAFE) is safe


@pytest.mark.parametrize(
    ("first", "offered"),
    [
        ("u = F.normalize(self.weight @ self.v, dim=0)", True),
        # A random draw: re-run under no_grad it is still a draw, but not a pure forward (rule 2).
        ("u = F.normalize(self.weight @ self.v + torch.randn(3), dim=0)", False),
        # `scale` is read after the run too: no_grad would also cut what the step computes from it.
        ("u, scale = F.normalize(self.weight @ self.v, dim=0), self.weight.norm()", False),
    ],
)
def test_a_state_updated_from_itself_runs_under_no_grad_only_unsafely(first: str, offered: bool) -> None:
    """A power iteration kept on the module: its run of statements goes under `torch.no_grad()`,
    never safely (what the step reads of it afterwards no longer carries a gradient), and only where
    every statement of the run is a pure forward computation into names only the run needs."""
    source = (FIXES / "ek003_power_iteration_vector_kept_with_history.in.py").read_text(encoding="utf-8")
    old = "        u = F.normalize(self.weight @ self.v, dim=0)\n"
    assert source.count(old) == 1
    source = source.replace(old, f"        {first}\n")
    (finding,) = check_source(source).findings
    titles = {fix.title: fix.applicability for fix in finding.fixes}
    title = "Compute `self.v` from its previous value under `torch.no_grad()`"
    assert (title in titles) is offered
    assert titles.get(title, Applicability.UNSAFE) == Applicability.UNSAFE


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ("", "", Applicability.SAFE),
        # The optimizer owns the last layer only: `.grad` of the first may hold earlier gradients.
        ("torch.optim.SGD(model.parameters()", "torch.optim.SGD(model[2].parameters()", Applicability.UNSAFE),
        # Cleared after the step: `.grad` holds nothing by the time the helper returns.
        ("        optimizer.step()\n", "        optimizer.step()\n        optimizer.zero_grad()\n", None),
        # Backwarded on some iterations only: the loss returned may not be the one `.grad` holds.
        ("        loss.backward()\n", "        if anchor is None:\n            loss.backward()\n", None),
        # Another backward between the helper's return and the second backward.
        ("weights = importance(", "F.mse_loss(model(x_b), y_b).backward()\nweights = importance(", None),
        # The same, inside a function of the caller's that then calls the reader.
        (
            "weights = importance(model, last)\n",
            "def measure(model, loss):\n    F.mse_loss(model(x_b), y_b).backward()\n"
            "    return importance(model, loss)\n\n\nweights = measure(model, last)\n",
            None,
        ),
    ],
)
def test_the_gradient_a_returned_loss_left_is_read_where_nothing_changed_grad_since(
    old: str, new: str, expected: Applicability | None
) -> None:
    source = (FIXES / "ek001_importance_from_the_returned_last_loss.in.py").read_text(encoding="utf-8")
    assert not old or source.count(old) == 1
    source = source.replace(old, new) if old else source
    findings = [f for f in check_source(source).findings if f.code == "EK001"]
    found = {
        fix.applicability
        for finding in findings
        for fix in finding.fixes
        if fix.title.startswith("Remove `model.zero_grad()` and the second backward")
    }
    assert found == ({expected} if expected else set())


SOFT_UPDATE = (
    "    for online, averaged in zip(value.parameters(), target.parameters()):\n"
    "        averaged.copy_(0.1 * online + 0.9 * averaged)\n"
)


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ("", "", Applicability.SAFE),
        # Updated before this step's loss reads the target: the cut falls inside the step.
        (
            SOFT_UPDATE,
            "",
            Applicability.UNSAFE,
        ),
        # An optimizer owns the target's parameters too: they are trained, not a carried state.
        (
            "torch.optim.SGD(value.parameters(), lr=0.05)",
            "torch.optim.SGD([*value.parameters(), *target.parameters()], lr=0.05)",
            Applicability.UNSAFE,
        ),
        # Another loss of the same step backwards after the update: it reads the updated target.
        (
            '    print(f"step {step}: loss {loss.item():.4f}")\n',
            "    (target(states) - value(states)).pow(2).mean().backward()\n",
            Applicability.UNSAFE,
        ),
        # Code the checker does not follow is handed the target: it may see its gradients.
        (
            "target.requires_grad_(False)\n",
            "target.requires_grad_(False)\nwatch(target)\n",
            Applicability.UNSAFE,
        ),
    ],
)
def test_a_soft_update_runs_under_no_grad_safely_only_between_training_steps(
    old: str, new: str, expected: Applicability
) -> None:
    """Rule 4 for a target network: its soft update carries a graph from one step into the next;
    under `torch.no_grad()` the cut falls between steps only where the update follows the step's
    backward, no optimizer owns the target, and nothing else sees its gradients."""
    source = (FIXES / "ek003_target_network_soft_update.in.py").read_text(encoding="utf-8")
    assert not old or source.count(old) == 1
    source = source.replace(old, new) if old else source
    if "watch(" in new:
        source = source.replace("import torch\n", "import torch\nfrom helpers import watch\n", 1)
    if old == SOFT_UPDATE:  # moved to the top of the loop body, before the loss
        source = source.replace("for step in range(6):\n", "for step in range(6):\n" + SOFT_UPDATE)
    findings = check_source(source).findings
    found = {
        fix.applicability
        for finding in findings
        for fix in finding.fixes
        if fix.title == "Update `target`'s parameters under `torch.no_grad()`"
    }
    assert found == {expected}


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ("", "", Applicability.SAFE),
        # The history enters the loop holding a graph: the first cut stops a gradient into it.
        (
            "history = []\n",
            'history = [{"step": -1, "loss": model(torch.randn(4, 3)).pow(2).mean()}]\n',
            Applicability.UNSAFE,
        ),
        # No optimizer steps in the loop: its iterations are not training steps.
        ("    optimizer.step()\n", "", Applicability.UNSAFE),
        # Another backward in the same step after the append: a later loss of that step could read
        # what the step appended, so the cut is not shown to fall between steps.
        (
            '    history.append({"step": step, "loss": loss})\n',
            '    history.append({"step": step, "loss": loss})\n'
            "    model(torch.randn(4, 3)).sum().backward()\n",
            Applicability.UNSAFE,
        ),
    ],
)
def test_a_history_keeps_detached_copies_safely_only_between_training_steps(
    old: str, new: str, expected: Applicability
) -> None:
    """Rule 4 for a history appended after each step's backward and read by later steps: detached
    copies hold the same values and cut only between steps, where each step is a training step and
    the history entered the loop without a graph."""
    source = (FIXES / "ek003_history_of_dicts.in.py").read_text(encoding="utf-8")
    assert not old or source.count(old) == 1
    source = source.replace(old, new) if old else source
    found = {
        fix.applicability
        for finding in check_source(source).findings
        for fix in finding.fixes
        if fix.title == "Keep detached copies in `history`"
    }
    assert found == {expected}


@pytest.mark.parametrize(
    ("store", "safe"),
    [
        # Each item written from this step's errors, after the backward: a cut between steps.
        ("self.priorities[i] = p + 1e-3", True),
        # Each item written from the state itself, over the items of one step: a recurrence the
        # inner loop steps within the step.
        ("self.priorities[i] = 0.5 * self.priorities[i] + p", False),
    ],
)
def test_a_memory_written_item_by_item_is_stored_detached_safely_unless_it_reads_itself(
    store: str, safe: bool
) -> None:
    source = (
        "import torch\nfrom torch import nn\n"
        "class Memory:\n"
        "    def __init__(self, n):\n"
        "        self.items, self.priorities = [torch.randn(3) for _ in range(n)], [torch.tensor(1.0)] * n\n"
        "    def sample(self, k):\n"
        "        p = torch.stack(self.priorities)\n"
        "        idx = torch.multinomial(p / p.sum(), k).tolist()\n"
        "        return idx, torch.stack([self.items[i] for i in idx]), p[idx] / p.max()\n"
        "    def update(self, idx, errors):\n"
        "        for i, p in zip(idx, errors):\n"
        f"            {store}\n"
        "q = nn.Linear(3, 1)\nopt = torch.optim.SGD(q.parameters(), lr=0.1)\nmemory = Memory(16)\n"
        "for step in range(3):\n"
        "    idx, x, w = memory.sample(4)\n"
        "    err = q(x).squeeze(1) - 1.0\n"
        "    loss = (w * err.pow(2)).mean()\n"
        "    opt.zero_grad()\n"
        "    loss.backward()\n"
        "    opt.step()\n"
        "    memory.update(idx, err.abs())\n"
    )
    (finding,) = check_source(source).findings
    stored = [fix for fix in finding.fixes if fix.title.startswith("Store `self.priorities` detached")]
    assert stored, [fix.title for fix in finding.fixes]
    assert (stored[0].applicability == Applicability.SAFE) is safe


@pytest.mark.parametrize(
    ("old", "new", "offered"),
    [
        ("", "", True),
        # The fresh name is stored again between its statement and the loss: which value it holds
        # there is another question.
        ("        perturbed = model(x)\n", "        perturbed = model(x)\n        perturbed = None\n", False),
        # Stored again by the loss's own assignment, after its value is computed: still the fresh one.
        ("        adv_loss = F.cross_entropy(", "        perturbed, adv_loss = None, F.cross_entropy(", True),
        # Not the very expression that made the stale value (another input): not a recompute of it.
        ("        perturbed = model(x)\n", "        perturbed = model(x * 2)\n", False),
    ],
)
def test_a_recompute_the_loop_makes_is_read_only_where_it_holds_the_very_value(
    old: str, new: str, offered: bool
) -> None:
    """Fix_safety rule 12 inside a loop: an attack step's forward into a name nothing reads is read
    by the loss in place of the clean output built before the loop, safely, only where the name
    holds that statement's value when the loss reads it."""
    source = (FIXES / "ek002_weight_attack_steps_score_the_clean_forward.in.py").read_text(encoding="utf-8")
    assert not old or source.count(old) == 1
    source = source.replace(old, new) if old else source
    found = {
        fix.applicability
        for finding in check_source(source).findings
        for fix in finding.fixes
        if fix.title.startswith("Use `perturbed` in the second loss")
    }
    assert found == ({Applicability.SAFE} if offered else set())


def _applicabilities(source: str, title: str) -> set[Applicability]:
    return {
        fix.applicability
        for finding in check_source(source).findings
        for fix in finding.fixes
        if fix.title.startswith(title)
    }


@pytest.mark.parametrize(
    ("old", "new", "safe"),
    [
        ("", "", True),
        # The second pass is a backward: it adds to `.grad` what the first left there (one gradient
        # or two?), so the recompute stays unsafe.
        (
            "    curvature = sharpness(loss, params, direction)\n",
            "    loss.backward()\n    curvature = 0.0\n",
            False,
        ),
        # Between the two passes the program changes what the loss reads: recomputed, it is
        # another loss.
        (
            "    curvature = sharpness(",
            "    labels = labels.flip(0)\n    curvature = sharpness(",
            False,
        ),
    ],
)
def test_a_gradient_asked_again_of_a_freed_loss_is_taken_from_it_recomputed(
    old: str, new: str, safe: bool
) -> None:
    """Fix_safety rule 15 for one loss: `autograd.grad` of a loss a `.backward()` freed, with
    nothing between that changes what the loss reads, adds nothing to `.grad`; the loss recomputed
    right before it gives what a kept graph would, safely."""
    source = (FIXES / "ek001_sharpness_probe_on_the_trained_loss.in.py").read_text(encoding="utf-8")
    assert not old or source.count(old) == 1
    source = source.replace(old, new) if old else source
    found = _applicabilities(source, "Recompute `loss` before the second backward")
    assert (Applicability.SAFE in found) is safe


@pytest.mark.parametrize(
    ("old", "new", "offered"),
    [
        ("", "", True),
        # `.grad` held a gradient before the first backward: removing the clear would step it too.
        (
            "\nloss = F.mse_loss(",
            "\nF.mse_loss(model(inputs), targets).backward()\nloss = F.mse_loss(",
            False,
        ),
        # Something between the two backwards clears the gradients too.
        (
            "optimizer.zero_grad()\nloss.backward()",
            "model.zero_grad()\noptimizer.zero_grad()\nloss.backward()",
            False,
        ),
        # The optimizer owns only part of what the loss reads: its clear leaves the rest behind.
        ("SGD(model.parameters()", "SGD(model[0].parameters()", False),
        # A loss module of its own holds no parameter: nothing of it is left behind.
        (
            "\nloss = F.mse_loss(model(inputs[:16]), targets[:16])",
            "\ncriterion = nn.MSELoss()\nloss = criterion(model(inputs[:16]), targets[:16])",
            True,
        ),
        # An activation of its own that has a parameter the optimizer does not own: left behind.
        (
            "\nloss = F.mse_loss(model(inputs[:16]), targets[:16])",
            "\nact = nn.PReLU()\nloss = F.mse_loss(act(model(inputs[:16])), targets[:16])",
            False,
        ),
    ],
)
def test_a_clear_and_a_second_backward_are_removed_only_where_grad_held_nothing_before(
    old: str, new: str, offered: bool
) -> None:
    """Fix_safety rule 1: `loss.backward()`, reads of `.grad`, `optimizer.zero_grad()` and
    `loss.backward()` again: the clear and the second backward are removed, safely, where `.grad`
    held nothing before the first backward and the optimizer owns every parameter the loss reads."""
    source = (FIXES / "ek001_gradients_printed_then_backwarded_again.in.py").read_text(encoding="utf-8")
    assert not old or source.count(old) == 1
    source = source.replace(old, new, 1) if old else source
    found = _applicabilities(source, "Remove `optimizer.zero_grad()` and the second backward")
    assert found == ({Applicability.SAFE} if offered else set())


@pytest.mark.parametrize(
    ("old", "new", "safe"),
    [
        ("", "", True),
        # The autoencoder's optimizer steps again after the second stage: the gradient the density
        # loss sends into the encoder would then be applied.
        (
            "fit_density(latents)\n",
            "fit_density(latents)\noptimizer.step()\n",
            False,
        ),
        # Something else sees the encoder's gradients after the second stage.
        (
            "fit_density(latents)\n",
            "fit_density(latents)\nprint(encoder[0].weight.grad)\n",
            False,
        ),
    ],
)
def test_latents_of_an_encoder_no_optimizer_steps_again_are_detached_safely(
    old: str, new: str, safe: bool
) -> None:
    """Fix_safety rule 9: a value built once before a loop, whose graph reads parameters an optimizer
    owns, is detached safely where no step at or after the loop's first backward changes them and
    nothing else sees a gradient there."""
    source = (FIXES / "ek002_latents_of_an_autoencoder_trained_before.in.py").read_text(encoding="utf-8")
    assert not old or source.count(old) == 1
    source = source.replace(old, new) if old else source
    found = _applicabilities(source, "Detach `latents`")
    assert found and (found == {Applicability.SAFE}) is safe


@pytest.mark.parametrize(
    ("old", "new", "safe"),
    [
        ("", "", True),
        # the fill draws other numbers when it runs again
        ("1.0 / box", "torch.rand(()) / box", False),
        # the fill has an effect of its own (torch's random state)
        (
            "        self._box_key, self._reciprocal",
            "        torch.manual_seed(1)\n        self._box_key, self._reciprocal",
            False,
        ),
    ],
)
def test_a_cache_is_emptied_by_its_key_safely_where_its_fill_only_computes(
    old: str, new: str, safe: bool
) -> None:
    """Rule 14 through a cache's key: the fill compares the key with `torch.equal` (a read, which
    the interpreter records as one) and computes the value again from its inputs; emptied by its key
    at the start of each iteration, the next read computes what the program would without the cache."""
    source = (FIXES / "ek003_cache_served_while_its_key_matches.in.py").read_text(encoding="utf-8")
    assert not old or source.count(old) == 1
    source = source.replace(old, new) if old else source
    found = _applicabilities(source, "Empty the cache `energy_of._reciprocal`")
    assert found == {Applicability.SAFE if safe else Applicability.UNSAFE}


@pytest.mark.parametrize(
    ("old", "new", "safe"),
    [
        ("", "", True),
        # the step reads the stored state again after the method stored it
        ("    loss = model(x, labels)\n", "    loss = model(x, labels) + model.centers.sum()\n", False),
        # ... through the method itself, run twice before one backward: the second run reads the first's
        ("    loss = model(x, labels)\n", "    loss = model(x, labels) + model(x, labels)\n", False),
        # something may reach the state by its name in a string
        (
            "    loss = model(x, labels)\n",
            "    loss = model(x, labels)\n    print(getattr(model, 'centers'))\n",
            False,
        ),
    ],
)
def test_a_state_stored_through_a_local_is_stored_detached_safely_where_nothing_reads_it_after(
    old: str, new: str, safe: bool
) -> None:
    """Rule 4 for a state an object's method updates through a local name (``centers = m *
    self.centers + ...`` then ``self.centers = centers``): stored detached, safely, where every read
    of the attribute precedes the store in that method and the method runs once per step; a read
    after the store would lose the gradient the step sends through it."""
    source = (FIXES / "ek003_state_updated_through_a_local.in.py").read_text(encoding="utf-8")
    assert not old or source.count(old) == 1
    source = source.replace(old, new) if old else source
    found = _applicabilities(source, "Store `self.centers` detached where it is updated")
    assert found == {Applicability.SAFE if safe else Applicability.UNSAFE}


@pytest.mark.parametrize(
    ("old", "new", "safe"),
    [
        ("", "", True),
        # two optimizers over one parameter: each turn of the loop stepped it
        (
            "dec_opt = torch.optim.SGD(decoder.parameters()",
            "dec_opt = torch.optim.SGD([*decoder.parameters(), encoder[0].bias]",
            False,
        ),
        # a parameter the graph reads that no optimizer of the loop owns: its gradient doubled there
        (
            "enc_opt = torch.optim.SGD(encoder.parameters()",
            "enc_opt = torch.optim.SGD(encoder[0].parameters()",
            False,
        ),
        # something else sees the gradients (the first one's, which its turn left doubled)
        (
            "data = torch.randn(32, 6)\n",
            "data = torch.randn(32, 6)\nencoder.register_full_backward_hook(print)\n",
            False,
        ),
        # the optimizers come from a name: which ones it holds is not shown here
        (
            "    for optimizer in (enc_opt, dec_opt):\n",
            "    opts = (enc_opt, dec_opt)\n    for optimizer in opts:\n",
            False,
        ),
    ],
)
def test_one_backward_then_each_step_is_safe_where_the_optimizers_own_apart_what_the_graph_reads(
    old: str, new: str, safe: bool
) -> None:
    """Fix_safety rule 11: `for opt in (enc_opt, dec_opt): opt.zero_grad(); loss.backward();
    opt.step()` over one loss becomes one backward and each step, safely where each optimizer
    steps on what its turn would hand it: the optimizers own apart parameters that together are
    every parameter the graph reads, and nothing else sees the gradients."""
    source = (FIXES / "ek002_one_loss_backwarded_per_optimizer.in.py").read_text(encoding="utf-8")
    assert not old or source.count(old) == 1
    source = source.replace(old, new) if old else source
    found = _applicabilities(source, "Backward `loss` once, then step each optimizer of the loop")
    assert found == {Applicability.SAFE if safe else Applicability.UNSAFE}
    # the gradient the first optimizer's turn left doubled, read after the loop: unsafe
    read_after = _applicabilities(source + "print(encoder[0].weight.grad)\n", "Backward `loss` once")
    assert read_after == {Applicability.UNSAFE}


@pytest.mark.parametrize(
    ("old", "new", "offered"),
    [
        ("", "", True),
        # the controller's optimizer owns the critic too: its step changed what would run again
        (
            "controller_opt = torch.optim.Adam(controller.parameters()",
            "controller_opt = torch.optim.Adam([*controller.parameters(), *critic.parameters()]",
            False,
        ),
        # the states change between the two backwards: the critic would run on other inputs
        (
            "    critic_loss = (values",
            "    states = states * 2\n    critic_loss = (values",
            False,
        ),
        # the values come from a call the analysis does not follow, not from a module's forward
        (
            "    values = critic(states).squeeze(-1)\n",
            "    values = make_values(critic, states)\n",
            False,
        ),
    ],
)
def test_a_value_model_is_fitted_again_on_detached_inputs_only_where_nothing_between_changed_it(
    old: str, new: str, offered: bool
) -> None:
    """EK004: the second loss reads the output of a module its own optimizer owns, from the graph the
    first backward freed; it runs that module again on its input detached and detaches the rest, an
    unsafe fix offered only where the statement is a pure forward computation (rule 2) and nothing
    between the two backwards changed the module or its input (a step of an optimizer that owns it,
    a store of the input)."""
    source = (FIXES / "ek004_value_model_fitted_on_rollout_states.in.py").read_text(encoding="utf-8")
    assert not old or source.count(old) == 1
    source = source.replace(old, new) if old else source
    if "make_values" in source:
        source = source.replace("import torch\n", "import torch\nfrom helpers import make_values\n", 1)
    found = _applicabilities(source, "Compute `values` again from detached inputs in the second loss")
    assert found == ({Applicability.UNSAFE} if offered else set())


@pytest.mark.parametrize(
    ("old", "new", "offered"),
    [
        ("", "", True),
        # the object entered the loop in another state than its constructor left it
        ("for batch in range(3):\n", "encoder_neuron.mem = 1.0\nfor batch in range(3):\n", False),
        # what the constructor stores is not a number: a None a cache may pair with another value
        ("        self.mem = 0.0\n", "        self.mem = None\n", False),
        # the constructor computes it: which value each object starts from is not shown
        ("        self.mem = 0.0\n", "        self.mem = decay * 0\n", False),
    ],
)
def test_every_neuron_is_reset_to_its_constructors_constant_only_where_the_loop_entered_with_it(
    old: str, new: str, offered: bool
) -> None:
    """EK003: state objects of one class keep in one attribute (a membrane potential), set to a
    number by their ``__init__`` and entering the loop with it, is stored back at the start of each
    iteration into every object of the class (those inside library containers too): unsafe, and
    not offered where the start the objects would get back is not the one the loop entered with."""
    source = (FIXES / "ek003_neuron_membranes_reset_in_every_block.in.py").read_text(encoding="utf-8")
    assert not old or source.count(old) == 1
    source = source.replace(old, new) if old else source
    found = _applicabilities(source, "Reset `.mem` of every `LeakyNeuron`")
    assert found == ({Applicability.UNSAFE} if offered else set())


@pytest.mark.parametrize(
    ("old", "new", "offered"),
    [
        ("", "", True),
        # what enters the inner loop already has a graph: the sum would reach it again
        ("    previous = None\n", "    previous = model(x)\n", False),
        # a loop of its own: one step for the whole run
        ("for episode in range(3):\n", "if True:\n", False),
        # another backward runs in the loop
        (
            "        previous = prediction\n",
            "        prediction.pow(2).mean().backward()\n        previous = prediction\n",
            False,
        ),
    ],
)
def test_the_losses_of_an_inner_loop_are_summed_only_where_it_starts_without_a_graph(
    old: str, new: str, offered: bool
) -> None:
    """EK003: a loop nested in another, stepping on every iteration over a loss that reaches the
    previous iteration's graph, sums its losses and backwards once after it (unsafe), where what it
    carries entered it without a graph, it runs inside another loop, and no other backward runs in
    it; the reset of the state to the None the backward's test rules out is never offered."""
    source = (FIXES / "ek003_transition_losses_summed_over_the_rollout.in.py").read_text(encoding="utf-8")
    assert not old or source.count(old) == 1
    source = source.replace(old, new) if old else source
    found = _applicabilities(source, "Sum `loss` over the loop's iterations and backward once after it")
    assert found == ({Applicability.UNSAFE} if offered else set())
    assert _applicabilities(source, "Reset `previous`") == set()


@pytest.mark.parametrize(
    ("old", "new", "offered"),
    [
        ("", "", True),
        # the observation is drawn inside the forward pass: computed again, it would be another one
        (
            "obs = torch.randn(3)\n        dist = torch.distributions.Categorical(logits=policy(obs))",
            "dist = torch.distributions.Categorical(logits=policy(torch.randn(3)))",
            False,
        ),
        # the action is drawn where the log-probability is stored
        (
            "        log_probs.append(dist.log_prob(action))\n",
            "        log_probs.append(dist.log_prob(dist.sample()))\n",
            False,
        ),
        # the update reads each stored value through a method of it: a read of another shape
        ("torch.stack(log_probs)", "torch.cat([p.view(1) for p in log_probs])", False),
        # the update also reads the list's items without a graph (no node shows that read)
        (
            "    optimizer.zero_grad()\n",
            "    print(log_probs[0].item())\n    optimizer.zero_grad()\n",
            False,
        ),
    ],
)
def test_a_replayed_value_is_computed_again_where_read_only_from_inputs_kept_as_they_were(
    old: str, new: str, offered: bool
) -> None:
    """EK003: a replay memory of values a forward pass made (each step's log-probability) keeps a
    function that computes each again from the inputs it was computed from, bound when it is stored,
    and every read the graph shows calls it: unsafe, and not offered where an input is drawn inside
    what would run again (rule 2: a random draw) or a read has a shape the fix does not rewrite."""
    name = "ek003_replayed_episodes_kept_with_their_observations"
    source = (FIXES / f"{name}.in.py").read_text(encoding="utf-8")
    assert not old or source.count(old) == 1
    source = source.replace(old, new) if old else source
    assert [f.code for f in check_source(source).findings] == ["EK003"]
    found = _applicabilities(source, "Keep what computes `dist.log_prob(")
    assert found == ({Applicability.UNSAFE} if offered else set())


@pytest.mark.parametrize(
    ("old", "new", "offered"),
    [
        ("", "", True),
        # the stored tuples' log-probabilities are also read for a print, which would get the function
        (
            "    values = critic(",
            "    print([item[0].item() for item in batch])\n    values = critic(",
            False,
        ),
    ],
)
def test_a_replayed_item_of_a_tuple_is_computed_again_only_where_every_read_of_it_is_rewritten(
    old: str, new: str, offered: bool
) -> None:
    """EK003: the replay memory's tuples keep, in place of a log-probability, a function that
    computes it again; every read of that item in the function that reads it is called, or the fix
    is not offered."""
    source = (FIXES / "ek003_replay_memory_of_log_probabilities.in.py").read_text(encoding="utf-8")
    assert not old or source.count(old) == 1
    source = source.replace(old, new) if old else source
    assert [f.code for f in check_source(source).findings] == ["EK003"]
    found = _applicabilities(source, "Keep what computes `dist.log_prob(action)` in the replay memory")
    assert found == ({Applicability.UNSAFE} if offered else set())


@pytest.mark.parametrize(
    ("old", "new", "safe"),
    [
        ("", "", True),
        # the critic's value weights the actor's output: the critic's loss learns only through what
        # the actor's loss may mean as a baseline, so a sum (and the kept graph) is not shown
        (
            "    actor_loss = -critic(torch.cat([features, torch.tanh(actor(features))], -1)).mean()\n"
            "    critic_loss = (critic(torch.cat([features, action], -1)) - reward).pow(2).mean()\n",
            "    value = critic(torch.cat([features, action], -1))\n"
            "    actor_loss = -(torch.tanh(actor(features.detach())).sum(-1, keepdim=True) * value).mean()\n"
            "    critic_loss = (value - reward).pow(2).mean()\n",
            False,
        ),
        # code the checker does not follow is handed the encoder between the two backwards
        (
            "    actor_opt.step()\n",
            "    actor_opt.step()\n    inspect_weights(encoder)\n",
            False,
        ),
        # the first pass is a gradient asked of the actor's loss: differentiated or kept as it is?
        (
            '    loss["actor"].backward()\n',
            '    torch.autograd.grad(loss["actor"], list(actor.parameters()))\n',
            False,
        ),
    ],
)
def test_two_losses_keep_their_graph_safely_where_their_sum_would_be_safe(
    old: str, new: str, safe: bool
) -> None:
    """Fix_safety rule 17: `retain_graph=True` on the actor's backward, before the critic's loss
    backwards through the same forward pass, is safe where the two are different losses each with a
    part of its own, the step between spares the critic's graph, and nothing the checker does not
    follow is handed what that graph reads: the kept graph sends what the program wrote."""
    source = (FIXES / "ek004_other_optimizer_steps_between.in.py").read_text(encoding="utf-8")
    source = source.replace("import torch\n", "import torch\nfrom rl_lib import inspect_weights\n", 1)
    assert not old or source.count(old) == 1
    source = source.replace(old, new) if old else source
    found = _applicabilities(source, "Keep the graph for the second pass")
    assert found == {Applicability.SAFE if safe else Applicability.UNSAFE}


@pytest.mark.parametrize(
    ("old", "new", "safe"),
    [
        ("", "", True),
        # a mean over the stacked items: each item weighs one over their count, which the earlier
        # items change (kept or emptied, the step's own activations would learn otherwise)
        (
            "sum(out.abs().mean() for out in self.outputs)",
            "torch.stack([out.abs().mean() for out in self.outputs]).mean()",
            False,
        ),
        # the sum scaled by a number computed from the list itself
        (
            "sum(out.abs().mean() for out in self.outputs)",
            "sum(out.abs().mean() for out in self.outputs) / len(self.outputs)",
            False,
        ),
        # each term reads another item too: the earlier items weigh the step's own
        (
            "sum(out.abs().mean() for out in self.outputs)",
            "sum((out - self.outputs[0]).abs().mean() for out in self.outputs)",
            False,
        ),
        # the penalty weighs the step's loss: a product of two terms, not a sum
        (
            "F.cross_entropy(logits, y) + 0.01 * log.penalty()",
            "F.cross_entropy(logits, y) * (1 + 0.01 * log.penalty())",
            False,
        ),
    ],
)
def test_the_items_of_a_growing_list_are_detached_safely_where_they_are_terms_of_a_sum(
    old: str, new: str, safe: bool
) -> None:
    """Fix_safety rule 18: activations a forward hook records into a list nobody empties enter the
    loss as terms of a sum (a fixed weight times the builtin ``sum`` of one term per item): detached
    at the start of each step, the earlier ones are constants, and the step sends the gradients it
    would send with the list emptied. Where the earlier items weigh the step's own (a mean, a
    number computed from the list, a term reading another item, a product), the fix is not offered."""
    source = (FIXES / "ek003_hook_activations_summed_into_a_penalty.in.py").read_text(encoding="utf-8")
    assert not old or source.count(old) == 1
    source = source.replace(old, new) if old else source
    (finding,) = check_source(source).findings
    found = {fix.applicability for fix in finding.fixes if fix.title.startswith("Detach the items of")}
    assert found == ({Applicability.SAFE} if safe else set())
    assert finding.fixes, "a fix is still offered"


@pytest.mark.parametrize(
    ("old", "new", "safe"),
    [
        ("", "", True),
        # the critic clears its gradient after its step: the next step applies what the policy's
        # loss sent through the advantages
        (
            "        critic_opt.zero_grad()\n        advantage.pow(2).backward()\n"
            "        critic_opt.step()\n",
            "        advantage.pow(2).backward()\n        critic_opt.step()\n"
            "        critic_opt.zero_grad()\n",
            False,
        ),
        # the critic clears on all but an episode's first step: that step applies what the
        # policy's loss sent
        (
            "        critic_opt.zero_grad()\n",
            "        if t > 0:\n            critic_opt.zero_grad()\n",
            False,
        ),
        # the policy's optimizer owns the critic too: its step right after applies it
        (
            "policy_opt = torch.optim.Adam(policy.parameters(), lr=1e-2)",
            "policy_opt = torch.optim.Adam([*policy.parameters(), *critic.parameters()], lr=1e-2)",
            False,
        ),
        # the critic's gradient is read after the policy's backward
        (
            "    policy_opt.step()\n",
            "    policy_opt.step()\n    print(critic[0].weight.grad.norm())\n",
            False,
        ),
    ],
)
def test_a_value_is_detached_in_the_second_loss_safely_where_what_it_stops_is_cleared_before_a_step(
    old: str, new: str, safe: bool
) -> None:
    """Fix_safety rule 19: the policy's surrogate weights log-probabilities by advantages the
    critic's own backward and step already used; detached there, the gradient the surrogate would
    send into the critic is gone, which changes nothing where, after every policy backward, the
    critic's optimizer clears that gradient before any step changes the critic, and nothing else
    reads it."""
    source = (FIXES / "ek004_advantage_read_after_critic_step.in.py").read_text(encoding="utf-8")
    assert not old or source.count(old) == 1
    source = source.replace(old, new) if old else source
    found = _applicabilities(source, "Detach `advantage` where the second loss uses it")
    assert found == {Applicability.SAFE if safe else Applicability.UNSAFE}


@pytest.mark.parametrize(
    ("old", "new", "safe"),
    [
        ("", "", True),
        # no clear between: one gradient or two?
        ("    model.zero_grad()\n", "", False),
        # the clear leaves the last layer's gradient: it would hold both passes' there
        ("    model.zero_grad()\n", "    model[0].zero_grad()\n", False),
        # the clear runs on the first step only
        ("    model.zero_grad()\n", "    if step == 0:\n        model.zero_grad()\n", False),
    ],
)
def test_one_loss_keeps_its_graph_safely_where_a_clear_of_every_gradient_runs_right_before_again(
    old: str, new: str, safe: bool
) -> None:
    """Fix_safety rule 20: a loss backwarded scaled, then, after `model.zero_grad()`, backwarded
    again as it is: the clear says the second pass is meant and replaces what the first left, so
    `retain_graph=True` on the first is what the program wrote; without a clear of every gradient
    the graph reaches, right before the second pass, it is one gradient or two (unsafe)."""
    source = (FIXES / "ek001_scaled_then_plain_gradients_compared.in.py").read_text(encoding="utf-8")
    assert not old or source.count(old) == 1
    source = source.replace(old, new) if old else source
    found = _applicabilities(source, "Keep the graph for the second pass")
    assert found == {Applicability.SAFE if safe else Applicability.UNSAFE}


@pytest.mark.parametrize(
    ("derived", "method", "offered"),
    [
        ("self.g * F.normalize(self.v, dim=1)", "", True),
        # a module the file imports once, whatever its name: every method reads that module
        ("self.g * self.v / math.sqrt(abs(4))", "", True),
        ("self.g * torch.stack([r / r.norm() for r in self.v])", "", True),
        # a parameter of __init__: no other method has it
        ("self.g * self.v / math.sqrt(n)", "", False),
        # the same, though a comprehension of the expression binds that name for its own reads
        ("self.g * self.v / (n + sum(n for n in (1, 2)))", "", False),
        # `F` is also another method's parameter: the spelling is not the module there
        (
            "self.g * F.normalize(self.v, dim=1)",
            "\n    def probe(self, F):\n        return F(self.weight)\n",
            False,
        ),
        # `math` is bound again: which object a method reads depends on when it runs
        ("self.g * self.v / math.sqrt(4)", "\nmath = None\n", False),
        # a builtin the module rebinds is not the builtin
        ("self.g * self.v / abs(2)", "\nabs = None\n", False),
    ],
)
def test_a_value_init_derives_is_computed_where_read_only_where_its_names_mean_the_same_there(
    derived: str, method: str, offered: bool
) -> None:
    """Moving ``self.weight = <expression>`` to where ``self.weight`` is read needs every name
    the expression reads to be the same object there: ``self``, a name one import of the module
    binds and nothing else rebinds, or an untouched builtin. Which names those are comes from
    the module's own imports, not from how they are spelled."""
    source = DERIVED_IN_INIT.format(derived=derived, extra="", method=method, after="")
    (finding,) = check_source(source).findings
    titles = [fix.title for fix in finding.fixes]
    assert ("Compute `self.weight` where it is used, on every call" in titles) is offered


@pytest.mark.parametrize(
    ("binding", "drawn", "replay"),
    [
        ("import random", "random.sample(buffer, 3)", True),
        ("import random as rnd", "rnd.sample(buffer, 3)", True),
        # the spelling is not the module: an object of the file's own that hands back its list
        (
            "class Drawer:\n    def sample(self, items, k):\n        return items[-k:]\nrandom = Drawer()",
            "random.sample(buffer, 3)",
            False,
        ),
    ],
)
def test_a_replay_buffer_is_known_by_the_module_that_draws_from_it(
    binding: str, drawn: str, replay: bool
) -> None:
    """A list the loop reads only through ``random.sample`` is a replay buffer (its items are
    stored detached); which ``random`` that is comes from the file's imports, not its spelling."""
    source = (FIXES / "ek003_replay_buffer_stores_actions.in.py").read_text(encoding="utf-8")
    source = source.replace("import random\n", f"{binding}\n").replace("random.seed(0)\n", "")
    source = source.replace("random.sample(buffer, 3)", drawn)
    titles = [title for title, _ in _fixes(source)]
    assert any(t.startswith("Store detached values in the replay buffer") for t in titles) is replay
