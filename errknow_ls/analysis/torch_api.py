"""What the checker knows of torch's API: what builds graph nodes, what saves tensors, what cuts."""

from __future__ import annotations

import re

NO_SAVE_OPS = frozenset(
    {
        "add",
        "sub",
        "neg",
        "negative",
        "sum",
        "mean",
        "nansum",
        "view",
        "view_as",
        "reshape",
        "reshape_as",
        "flatten",
        "unflatten",
        "squeeze",
        "unsqueeze",
        "expand",
        "expand_as",
        "transpose",
        "swapaxes",
        "permute",
        "t",
        "T",
        "mT",
        "contiguous",
        "clone",
        "to",
        "cpu",
        "cuda",
        "float",
        "double",
        "half",
        "bfloat16",
        "type",
        "type_as",
        "narrow",
        "select",
        "chunk",
        "split",
        "unbind",
        "cat",
        "concat",
        "concatenate",
        "stack",
        "hstack",
        "vstack",
        "movedim",
        "__getitem__",
        "positive",
        "ravel",
        "squeeze_",
        "unsqueeze_",
        "alias",
    }
)
"""Ops whose backward needs no saved tensor: a graph of only these can be backwarded twice."""

CUT_METHODS = frozenset({"detach", "detach_", "numpy", "sample", "argmax", "argmin", "argsort"})
"""Methods whose result carries no graph (a tensor that does not require grad)."""

SCALAR_METHODS = frozenset(
    {
        "item",
        "tolist",
        "size",
        "dim",
        "numel",
        "nelement",
        "ndimension",
        "stride",
        "element_size",
        "is_contiguous",
        "get_device",
        "data_ptr",
        "__len__",
        "backward",
        "register_hook",
        "retain_grad",
        "storage",
        "untyped_storage",
        "is_floating_point",
        "is_complex",
        "zero_",
        "fill_",
    }
)
"""Methods whose result is not a tensor we follow."""

CUT_ATTRIBUTES = frozenset({"data", "grad"})
SCALAR_ATTRIBUTES = frozenset(
    {"shape", "dtype", "device", "requires_grad", "is_leaf", "ndim", "grad_fn", "is_cuda", "layout"}
)
VIEW_ATTRIBUTES = frozenset({"T", "mT", "H", "mH", "real", "imag"})

NO_GRAD_CONTEXTS = frozenset(
    {"torch.no_grad", "torch.inference_mode", "torch.autograd.no_grad", "torch.autograd.grad_mode.no_grad"}
)
GRAD_CONTEXTS = frozenset({"torch.enable_grad", "torch.autograd.enable_grad"})

BACKWARD_FUNCS = frozenset({"torch.autograd.backward"})
GRAD_FUNCS = frozenset({"torch.autograd.grad"})
WRAPPER_BACKWARD_METHODS = frozenset({"backward", "manual_backward"})
"""``accelerator.backward(loss)``, ``fabric.backward(loss)``, Lightning's ``self.manual_backward(loss)``."""

NON_TENSOR_MODULES = (
    "numpy",
    "math",
    "random",
    "os",
    "sys",
    "json",
    "time",
    "logging",
    "pathlib",
    "re",
    "pickle",
    "collections",
    "itertools",
    "functools",
    "typing",
    "wandb",
    "tqdm",
    "matplotlib",
    "pandas",
    "copy",
    "shutil",
    "argparse",
    "warnings",
    "datetime",
)
"""Calls into these never give back a tensor that carries a graph."""

CREATION_FUNCS = frozenset(
    {
        "tensor",
        "as_tensor",
        "from_numpy",
        "zeros",
        "ones",
        "empty",
        "full",
        "rand",
        "randn",
        "randint",
        "randperm",
        "arange",
        "linspace",
        "logspace",
        "eye",
        "zeros_like",
        "ones_like",
        "empty_like",
        "full_like",
        "rand_like",
        "randn_like",
        "randint_like",
        "normal",
        "bernoulli",
        "multinomial",
        "load",
        "manual_seed",
    }
)

NON_TENSOR_BUILTINS = frozenset(
    {
        "len",
        "print",
        "isinstance",
        "issubclass",
        "int",
        "float",
        "bool",
        "str",
        "repr",
        "range",
        "hasattr",
        "getattr",
        "setattr",
        "id",
        "hash",
        "type",
        "open",
        "format",
        "round",
        "vars",
        "dir",
        "callable",
        "iter",
        "next",
        "input",
        "any",
        "all",
        "ord",
        "chr",
        "sorted",
        "reversed",
        "map",
        "filter",
        "super",
        "object",
        "property",
        "staticmethod",
        "classmethod",
        "divmod",
    }
)

MODEL_LIKE_WORDS = (
    "model",
    "net",
    "encoder",
    "decoder",
    "generator",
    "discriminator",
    "critic",
    "actor",
    "policy",
    "backbone",
    "classifier",
    "rnn",
    "lstm",
    "gru",
    "transformer",
    "mlp",
    "cnn",
    "embed",
    "conv",
    "agent",
    "q_func",
    "qnet",
    "value_fn",
    "trunk",
)
MODEL_LIKE_NAMES = frozenset({"g", "d", "netg", "netd", "head", "layer", "fc", "vf", "qf"})


FACTORY_PREFIXES = (
    "get",
    "build",
    "create",
    "make",
    "load",
    "unwrap",
    "init",
    "setup",
    "prepare",
    "wrap",
    "copy",
    "deepcopy",
    "save",
    "to_",
    "from",
    "instantiate",
    "construct",
    "new",
    "register",
    "configure",
    "freeze",
    "unfreeze",
    "compile",
    "convert",
    "replace",
    "apply",
    "set",
    "reset",
    "update",
    "sync",
    "zero",
    "print",
    "log",
    "count",
    "num",
    "is_",
    "has_",
    "named",
)


def is_factory(name: str) -> bool:
    """``build_model``, ``unwrap_model``, ``get_encoder``: a call that returns a network, not its output."""
    return name.lower().lstrip("_").startswith(FACTORY_PREFIXES)


_TOKEN = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")


def is_model_like(name: str) -> bool:
    """Whether a callable's name says it is a network (its output then carries a graph).

    Whole words only (``netG``, ``q_network``, ``ResNet``), so that ``kinetic_grad`` is not a net.
    """
    if name.lower().lstrip("_") in MODEL_LIKE_NAMES:
        return True
    return any(
        token in MODEL_LIKE_WORDS
        or token.endswith(("net", "model", "former", "coder"))
        or token.startswith("net")
        for token in (t.lower() for t in _TOKEN.findall(name))
    )


MODULE_SELF_METHODS = frozenset(
    {"to", "cuda", "cpu", "float", "double", "half", "bfloat16", "train", "eval", "requires_grad_", "type"}
)
"""Module methods that give back the module itself."""

MODULE_PLAIN_METHODS = frozenset(
    {
        "state_dict",
        "load_state_dict",
        "zero_grad",
        "step",
        "apply",
        "modules",
        "children",
        "named_modules",
        "named_children",
        "register_buffer",
        "register_parameter",
        "add_module",
        "register_forward_hook",
        "register_full_backward_hook",
        "extra_repr",
        "log",
        "log_dict",
        "save_hyperparameters",
        "print",
        "update",
        "unscale_",
    }
)
"""Methods of modules, optimizers, loggers and scalers that give back nothing we follow."""

TENSOR_METHODS = frozenset(
    {
        "pow",
        "exp",
        "log",
        "log1p",
        "sqrt",
        "rsqrt",
        "abs",
        "norm",
        "mul",
        "div",
        "matmul",
        "mm",
        "bmm",
        "sigmoid",
        "tanh",
        "relu",
        "softmax",
        "log_softmax",
        "clamp",
        "square",
        "sin",
        "cos",
        "max",
        "min",
        "prod",
        "std",
        "var",
        "logsumexp",
        "dot",
        "outer",
        "cumsum",
        "mv",
    }
)
"""Tensor methods, so that ``model.weight.pow(2)`` is read as an op on a parameter."""


_NOT_LAYERS = frozenset(
    {"Module", "ModuleList", "ModuleDict", "Sequential", "ParameterList", "ParameterDict"}
)


def is_layer(qualname: str) -> bool:
    """``torch.nn.Linear``, ``torch.nn.Conv2d``: a torch layer whose constructor makes parameters."""
    parts = qualname.split(".")
    return qualname.startswith("torch.nn.") and parts[-1][:1].isupper() and parts[-1] not in _NOT_LAYERS


def is_parameter_name(attr: str) -> bool:
    """The parameters torch layers make: ``weight``, ``bias``, ``in_proj_weight``, ``weight_ih_l0``."""
    return (
        attr in ("weight", "bias")
        or attr.startswith(("weight_", "bias_"))
        or attr.endswith(("_weight", "_bias"))
    )
