"""Run programs under torch and record what they train, as JSON: proof that a fix trains, not only runs.

    python tests/groundtruth/train_check.py FILE... > training.json

Each file runs once as ``__main__`` (seeded as the ground-truth harness seeds it), watched by two
hooks on torch itself:

- every ``torch.autograd.backward`` (``loss.backward()`` goes through it) adds the value of what it
  backwards to the loss of the current optimizer step; it and every ``torch.autograd.grad`` are
  also recorded in order (a program without an optimizer trains by them);
- torch's global optimizer step pre-hook records, at every ``step()``, which parameters the
  optimizer owns and whether each holds a non-zero gradient.

A run records: whether it raised; the loss of each optimizer step (the sum of what was backwarded
since the previous step: ``(a + b).backward()`` and ``a.backward(retain_graph=True);
b.backward()`` give the same); every parameter an optimizer owns, by (optimizer, group, index)
in the order the optimizers first stepped, with whether it ever received a non-zero gradient; and
each such parameter's final sum and sum of squares. :func:`compare` tells whether a fixed program
trains as a hand-written reference does. Tests call :func:`run_in_subprocess`, so the test process
never imports torch.
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.groundtruth.run_fixtures import MODULE_RUN, HarnessError, _run_one

RELATIVE = 1e-4
ABSOLUTE = 1e-6


@dataclass(slots=True)
class Training:
    """What one program trained (see the module docstring)."""

    path: str
    raised: bool
    error: str = ""
    step_losses: list[float] = field(default_factory=list)
    backward_losses: list[float] = field(default_factory=list)
    """Every backward's value, in order: what a program without an optimizer trains by."""
    parameters: list[str] = field(default_factory=list)
    """``opt<i>.group<j>.<k>`` for every parameter an optimizer owns."""
    without_gradient: list[str] = field(default_factory=list)
    """Parameters an optimizer owns that never held a non-zero gradient at a step."""
    final: list[tuple[float, float]] = field(default_factory=list)
    """Each parameter's (sum, sum of squares) after the run, in ``parameters`` order."""

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Training:
        data["final"] = [tuple(pair) for pair in data["final"]]
        return cls(**data)


class _Watch:
    """The hooks of one run."""

    def __init__(self, torch: Any) -> None:
        self.torch = torch
        self.optimizers: dict[int, tuple[int, Any]] = {}
        self.pending = 0.0
        self.step_losses: list[float] = []
        self.backward_losses: list[float] = []
        self.got_gradient: set[str] = set()

    def backward_value(self, tensors: Any, *, steps: bool = True) -> None:
        items = tensors if isinstance(tensors, list | tuple) else [tensors]
        with self.torch.no_grad():
            value = sum(float(t.detach().double().sum()) for t in items if isinstance(t, self.torch.Tensor))
        if steps:
            self.pending += value
        self.backward_losses.append(value)

    def before_step(self, optimizer: Any, _args: object, _kwargs: object) -> None:
        serial, _ = self.optimizers.setdefault(id(optimizer), (len(self.optimizers), optimizer))
        self.step_losses.append(self.pending)
        self.pending = 0.0
        for key, param in self._owned(serial, optimizer):
            grad = param.grad
            if grad is not None and bool((grad != 0).any()):
                self.got_gradient.add(key)

    @staticmethod
    def _owned(serial: int, optimizer: Any) -> list[tuple[str, Any]]:
        return [
            (f"opt{serial}.group{g}.{k}", param)
            for g, group in enumerate(optimizer.param_groups)
            for k, param in enumerate(group["params"])
        ]

    def result(self, path: str, raised: bool, error: str) -> Training:
        owned = [pair for serial, opt in self.optimizers.values() for pair in self._owned(serial, opt)]
        final = []
        with self.torch.no_grad():
            for _, param in owned:
                data = param.detach().double()
                final.append((float(data.sum()), float((data * data).sum())))
        return Training(
            path,
            raised,
            error,
            self.step_losses,
            self.backward_losses,
            [key for key, _ in owned],
            [key for key, _ in owned if key not in self.got_gradient],
            final,
        )


def train_paths(paths: Iterable[Path]) -> list[Training]:
    """Run every file in this process (torch must be importable here)."""
    import torch  # noqa: PLC0415 (the harness runs in a child process; the parent never imports torch)
    from torch.optim.optimizer import register_optimizer_step_pre_hook  # noqa: PLC0415 (likewise)

    results = []
    original_backward, original_grad = torch.autograd.backward, torch.autograd.grad
    for path in paths:
        filename = str(Path(path).resolve())
        watch = _Watch(torch)

        def backward(tensors: Any, *args: Any, _watch: _Watch = watch, **kwargs: Any) -> Any:
            _watch.backward_value(tensors)
            return original_backward(tensors, *args, **kwargs)

        def grad(outputs: Any, *args: Any, _watch: _Watch = watch, **kwargs: Any) -> Any:
            _watch.backward_value(outputs, steps=False)  # manual SGD trains by grad, not backward
            return original_grad(outputs, *args, **kwargs)

        handle = register_optimizer_step_pre_hook(watch.before_step)
        torch.autograd.backward, torch.autograd.grad = backward, grad
        folder = str(Path(filename).parent)
        sys.path.insert(0, folder)  # as `python <file>` runs it: its own modules import
        before = set(sys.modules)
        try:
            run = _run_one(filename, MODULE_RUN, _module_body(filename), torch)
        finally:
            torch.autograd.backward, torch.autograd.grad = original_backward, original_grad
            handle.remove()
            sys.path.remove(folder)
            for name in set(sys.modules) - before:  # the next program's `utils` is its own
                if str(getattr(sys.modules[name], "__file__", None) or "").startswith(folder + "/"):
                    del sys.modules[name]
        error = f"{run.exc_type}: {(run.message or '').strip()[:200]}" if run.raised else ""
        results.append(watch.result(filename, run.raised, error))
    return results


def _module_body(filename: str) -> Any:
    import builtins  # noqa: PLC0415 (the namespace a program runs in, made here)

    namespace: dict[str, Any] = {"__name__": "__main__", "__file__": filename, "__builtins__": builtins}

    def body() -> None:
        exec(compile(Path(filename).read_text(encoding="utf-8"), filename, "exec"), namespace)

    return body


def run_in_subprocess(
    paths: Sequence[Path], python: str = sys.executable, timeout: float = 600.0
) -> dict[str, Training]:
    """Run every file in one fresh ``python`` process; the results by resolved path."""
    command = [python, str(Path(__file__).resolve()), *(str(Path(p).resolve()) for p in paths)]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise HarnessError(f"could not run {command[0]}: {exc}") from exc
    if done.returncode != 0:
        raise HarnessError(f"training harness exited with {done.returncode}:\n{done.stderr[-4000:]}")
    try:
        return {t.path: t for t in (Training.from_json(item) for item in json.loads(done.stdout))}
    except (ValueError, KeyError, TypeError) as exc:
        raise HarnessError(f"unreadable training harness output: {exc}\n{done.stdout[:2000]}") from exc


def _close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=RELATIVE, abs_tol=ABSOLUTE)


def problems(fixed: Training, reference: Training | None = None) -> list[str]:
    """Why ``fixed`` does not train (as ``reference`` does, when given); empty when it does."""
    if fixed.raised:
        return [f"raises {fixed.error}"]
    found = []
    if not fixed.parameters and not fixed.backward_losses:
        found.append("trains nothing: no optimizer stepped and no gradient was computed")
    expected_without = set(reference.without_gradient) if reference is not None else set()
    missing = [key for key in fixed.without_gradient if key not in expected_without]
    if missing:
        found.append(f"{len(missing)} of {len(fixed.parameters)} optimizer parameters get no gradient")
    if reference is None:
        return found
    if reference.raised:
        return [*found, f"the reference itself raises {reference.error}"]
    if fixed.parameters != reference.parameters:
        found.append(
            f"optimizers own {len(fixed.parameters)} parameters, the reference's {len(reference.parameters)}"
        )
    losses, expected = (
        (fixed.step_losses, reference.step_losses)
        if reference.step_losses
        else (fixed.backward_losses, reference.backward_losses)
    )
    if len(losses) != len(expected):
        found.append(f"{len(losses)} training steps, the reference {len(expected)}")
    # The loss after N steps is compared through what determines it, the trained parameters: the
    # value a fixed program backwards may hold detached constants (a running total whose earlier
    # terms were detached) that the reference leaves out, with the same gradients.
    pairs = list(zip(fixed.final, reference.final, strict=False))
    if len(fixed.final) == len(reference.final) and not all(
        _close(a, b) for mine, theirs in pairs for a, b in zip(mine, theirs, strict=True)
    ):
        found.append(f"after {len(losses)} steps the trained parameters differ from the reference's")
    return found


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("paths", nargs="+", type=Path, help="programs to run")
    args = parser.parse_args(argv)
    json.dump([asdict(t) for t in train_paths(args.paths)], sys.stdout, indent=1)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
