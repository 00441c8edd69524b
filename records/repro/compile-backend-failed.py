"""pytorch/compile-backend-failed: torch.compile's backend raised while compiling a graph."""

import torch

FIXES = {
    "workarounds.0": "eager",
    "workarounds.1": "suppress_errors",
}


def _failing_backend(gm, example_inputs):
    raise RuntimeError("the backend cannot compile this graph")


def _run(fn, x, fix):
    import torch._dynamo

    torch._dynamo.reset()
    if fix == "eager":
        compiled = torch.compile(fn, backend="eager")
    else:
        compiled = torch.compile(fn, backend=_failing_backend)
    old = torch._dynamo.config.suppress_errors
    torch._dynamo.config.suppress_errors = fix == "suppress_errors"
    try:
        assert torch.allclose(compiled(x), fn(x))
    finally:
        torch._dynamo.config.suppress_errors = old


def variant_function(fix=None):
    _run(lambda x: torch.relu(x) + 1, torch.randn(4), fix)


def variant_module(fix=None):
    model = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.ReLU())
    with torch.no_grad():
        _run(model, torch.randn(2, 4), fix)


if __name__ == "__main__":
    variant_function()
