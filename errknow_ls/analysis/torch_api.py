"""What the checker knows of torch's API: what builds graph nodes, what saves tensors, what cuts."""

from __future__ import annotations

import math

NO_SAVE_OPS = frozenset(
    {
        "add",
        "sub",
        "neg",
        "negative",
        "sum",
        "mean",
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
        "triu",
        "tril",
        "flip",
        "fliplr",
        "flipud",
        "roll",
        "rot90",
        "repeat",
        "tile",
        "diagonal",
        "diag",
        "diag_embed",
        "broadcast_to",
        "tensor_split",
        "split_with_sizes",
        "unfold",
        "cumsum",
        "trace",
        "row_stack",
        "column_stack",
        "dstack",
        "atleast_1d",
        "atleast_2d",
        "atleast_3d",
    }
)
"""Ops whose backward needs no saved tensor: a graph of only these can be backwarded twice."""

CUT_METHODS = frozenset(
    {
        "detach",
        "detach_",
        "numpy",
        "sample",
        "argmax",
        "argmin",
        "argsort",
        "new_zeros",
        "new_ones",
        "new_empty",
        "new_full",
        "new_tensor",
    }
)
"""Methods whose result carries no graph (a tensor that does not require grad)."""

INTEGER_CASTS = frozenset({"long", "int", "short", "byte", "char", "bool"})
"""Casts to integer or boolean dtypes: the result cannot require grad, so it carries no graph."""
INTEGER_DTYPES = frozenset(
    f"torch.{name}"
    for name in (
        "long",
        "int",
        "int64",
        "int32",
        "int16",
        "int8",
        "uint8",
        "short",
        "bool",
        "LongTensor",
        "IntTensor",
        "ShortTensor",
        "ByteTensor",
        "CharTensor",
        "BoolTensor",
    )
)

NUMBER_METHODS = frozenset(
    {"item", "size", "dim", "numel", "nelement", "ndimension", "element_size", "__len__"}
)
"""Tensor methods that give back a Python number (``size()`` with an index)."""

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

REGISTER_PARAMETRIZATION = "torch.nn.utils.parametrize.register_parametrization"
"""Makes a module's tensor (its ``weight``) the output of a parametrization module, run on the
original parameter whenever the tensor is read."""
PARAMETRIZE_CACHED = "torch.nn.utils.parametrize.cached"

DISTRIBUTION_TRANSFORMS = frozenset(
    {"torch.distributions.Transform", "torch.distributions.transforms.Transform"}
)
"""``torch.distributions``' base class of transforms, whose ``cache_size=1`` keeps the last
``(x, y)`` pair and gives ``x`` back when inverting the very same ``y`` (``_inv_call``)."""

TRANSFORMED_DISTRIBUTIONS = frozenset(
    {
        "torch.distributions.TransformedDistribution",
        "torch.distributions.transformed_distribution.TransformedDistribution",
    }
)
"""Its ``log_prob(value)`` inverts ``value`` through the transforms, last first, and adds each
transform's ``log_abs_det_jacobian(x, y)`` and the base distribution's ``log_prob``."""
"""A context in which each parametrized tensor is computed once, at its first read, and that one
tensor (its graph included) is given to every later read until the context exits."""

OLD_WEIGHT_NORM = frozenset({"torch.nn.utils.weight_norm", "torch.nn.utils.weight_norm.weight_norm"})
"""``weight_norm(module, name="weight")`` (deprecated for ``parametrizations.weight_norm``): the
parameter ``name`` becomes ``name_g`` and ``name_v``, and the attribute ``name`` a tensor computed
from them, grad on, right away and again by a pre-hook before each forward pass of the module."""

BACKWARD_FUNCS = frozenset({"torch.autograd.backward"})
GRAD_FUNCS = frozenset({"torch.autograd.grad"})
WRAPPER_BACKWARD_METHODS = frozenset({"backward", "manual_backward"})
"""``accelerator.backward(loss)``, ``fabric.backward(loss)``, Lightning's ``self.manual_backward(loss)``."""

LIBRARY_CONSTANTS: dict[str, float] = {
    "math.inf": math.inf,
    "math.pi": math.pi,
    "math.e": math.e,
    "math.tau": math.tau,
    "numpy.inf": math.inf,
    "numpy.pi": math.pi,
    "numpy.e": math.e,
}
"""The documented float constants of ``math`` and ``numpy`` (numpy 1 and 2 alike: not ``np.Inf``
or ``np.infty``, which numpy 2 removed), read as the numbers they are, so that ``if ord ==
np.inf:`` (an attack's norm, set once) is decided instead of split."""

GRAPH_FREE_MODULES = (
    "numpy.",
    "math.",
    "random.",
    "time.",
    "os.",
    "sys.",
    "json.",
    "pickle.",
    "logging.",
    "pathlib.",
    "itertools.",
    "collections.",
    "copy.copy",
    "functools.reduce",
    "tqdm.",
    "wandb.",
    "matplotlib.",
    "pandas.",
    "argparse.",
    "datetime.",
)
"""Libraries whose results never hold an autograd graph (modelled: they know nothing of torch)."""

STDLIB_CONTAINERS = frozenset(
    {"collections.deque", "collections.OrderedDict", "collections.defaultdict", "collections.UserList"}
)
"""Containers of the standard library: what they hold is what was put in."""

SAVED_TENSOR_ATTRIBUTES = frozenset({"saved_tensors", "saved_variables"})
"""What a node (a custom Function's ``ctx`` too) saved for its backward, besides ``_saved_*``."""

SAMPLING_FUNCS = frozenset({"random.sample", "random.choices"})
"""The standard library's draws of several items of a population (its first argument): a list
of some of its items."""
SAMPLE_ONE_FUNCS = frozenset({"random.choice"})
"""The standard library's draw of one item of a sequence."""

DIFFERENTIABLE_UTILS = frozenset(
    {"torch.nn.utils.parameters_to_vector", "torch.nn.utils.convert_parameters.parameters_to_vector"}
)
"""Functions outside torch's op namespaces that are differentiable (views and a cat)."""

DATA_LOADERS = frozenset({"torch.utils.data.DataLoader", "torch.utils.data.dataloader.DataLoader"})
"""A data loader yields its dataset's items, collated."""
TENSOR_DATASETS = frozenset({"torch.utils.data.TensorDataset", "torch.utils.data.dataset.TensorDataset"})

OP_NAMESPACES = frozenset(
    {"torch", "torch.nn.functional", "torch.linalg", "torch.fft", "torch.special", "torch.Tensor"}
)
"""Where torch's differentiable functions live; a function elsewhere in torch (``torch.nn.utils``,
``torch.nn.init``, ``torch.cuda``, ``torch.utils``) is not taken as an op on its arguments."""

NOT_OPS = frozenset(
    {
        "no_grad",
        "enable_grad",
        "inference_mode",
        "set_grad_enabled",
        "is_tensor",
        "is_grad_enabled",
        "is_floating_point",
        "is_complex",
        "numel",
        "save",
        "manual_seed",
        "seed",
        "set_printoptions",
        "set_default_dtype",
        "get_default_dtype",
        "set_num_threads",
        "get_num_threads",
        "use_deterministic_algorithms",
        "device",
        "dtype",
        "Size",
        "equal",
        "allclose",
        "isclose",
        "isnan",
        "isinf",
        "isfinite",
        "argmax",
        "argmin",
        "argsort",
        "nonzero",
        "count_nonzero",
        "bincount",
        "histc",
        "unique",
        "searchsorted",
        "bucketize",
        "eq",
        "ne",
        "lt",
        "le",
        "gt",
        "ge",
        "logical_and",
        "logical_or",
        "logical_not",
        "logical_xor",
    }
)
"""Names in those namespaces whose result carries no graph."""

PURE_READS = NOT_OPS - frozenset(
    {
        "no_grad",
        "enable_grad",
        "inference_mode",
        "set_grad_enabled",
        "save",
        "manual_seed",
        "seed",
        "set_printoptions",
        "set_default_dtype",
        "set_num_threads",
        "use_deterministic_algorithms",
    }
)
"""Those of ``NOT_OPS`` that only read their arguments (``torch.equal(a, b)``, ``torch.argmax(x)``):
no effect, no random draw, the same result every time; a fix may re-run them."""

PARAMETERLESS_MODULES = frozenset(
    {
        "MSELoss",
        "L1Loss",
        "SmoothL1Loss",
        "HuberLoss",
        "CrossEntropyLoss",
        "NLLLoss",
        "BCELoss",
        "BCEWithLogitsLoss",
        "KLDivLoss",
        "ReLU",
        "ReLU6",
        "LeakyReLU",
        "ELU",
        "GELU",
        "SiLU",
        "Tanh",
        "Sigmoid",
        "Softplus",
        "Softmax",
        "LogSoftmax",
        "Identity",
        "Flatten",
        "Unflatten",
        "Dropout",
        "Dropout1d",
        "Dropout2d",
        "Dropout3d",
        "AvgPool1d",
        "AvgPool2d",
        "AvgPool3d",
        "MaxPool1d",
        "MaxPool2d",
        "MaxPool3d",
        "AdaptiveAvgPool1d",
        "AdaptiveAvgPool2d",
        "AdaptiveAvgPool3d",
        "AdaptiveMaxPool1d",
        "AdaptiveMaxPool2d",
        "AdaptiveMaxPool3d",
        "Upsample",
        "UpsamplingNearest2d",
        "UpsamplingBilinear2d",
        "PixelShuffle",
        "PixelUnshuffle",
    }
)
"""``torch.nn`` classes whose objects hold no ``nn.Parameter`` (a loss's ``weight`` is a buffer)."""

PASS_THROUGH_FUNCS = frozenset({"torch.compile", "torch.jit.script", "torch.jit.trace"})
FUNCTIONAL_CALLS = frozenset({"torch.func.functional_call", "torch.nn.utils.stateless.functional_call"})
CHECKPOINT_FUNCS = frozenset({"torch.utils.checkpoint.checkpoint"})

RANDOM_CREATION_FUNCS = frozenset(
    {"rand", "randn", "randint", "randperm", "rand_like", "randn_like", "randint_like", "normal"}
    | {"bernoulli", "multinomial", "poisson"}
)
"""Creation functions that draw from the random generator: re-running one draws other numbers."""
RANDOM_METHODS = frozenset({"sample", "rsample", "random_", "normal_", "uniform_", "bernoulli_"})
"""Methods that draw from the random generator (a distribution's ``sample``)."""
GRADIENT_HOOK_METHODS = frozenset({"register_hook", "register_post_accumulate_grad_hook"})
"""A tensor's methods that run code on its gradient."""
MODULE_GRADIENT_HOOK_METHODS = frozenset(
    {"register_full_backward_hook", "register_backward_hook", "register_full_backward_pre_hook"}
)
"""A module's methods that run code on the gradients of its backward."""
NODE_HOOK_METHODS = frozenset({"register_hook", "register_prehook"})
"""A graph node's (``t.grad_fn``'s) methods that run code on the gradients through it."""
GLOBAL_GRADIENT_HOOKS = frozenset(
    {
        "register_module_full_backward_hook",
        "register_module_backward_hook",
        "register_module_full_backward_pre_hook",
    }
)
"""``torch.nn.modules.module``'s hooks on the backward of every module."""

MODULE_BULK_METHODS = frozenset(
    {
        "parameters",
        "named_parameters",
        "buffers",
        "named_buffers",
        "state_dict",
        "load_state_dict",
        "modules",
        "named_modules",
        "children",
        "named_children",
        "apply",
    }
)
"""``nn.Module`` methods that reach every parameter (or submodule) at once, none by its attribute."""

EFFECT_METHODS = frozenset({"backward", "register_hook", "retain_grad"})
"""Tensor methods among SCALAR_METHODS that do something besides reading the tensor."""
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

FRESH_CREATION_FUNCS = frozenset(
    {"tensor", "zeros", "ones", "empty", "full", "arange", "linspace", "logspace", "eye"}
    | {"zeros_like", "ones_like", "empty_like", "full_like"}
)
"""torch's functions that return a new tensor, never one they were handed, with the same values on
every run: a function may write into what they gave it without changing anything of its caller's."""

PURE_BUILTINS = frozenset(
    {
        "range",
        "len",
        "reversed",
        "enumerate",
        "zip",
        "abs",
        "min",
        "max",
        "sum",
        "int",
        "float",
        "bool",
        "round",
    }
)
"""Builtins that only compute from what they are handed: re-run, they give the same."""

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

LIBRARY_BACKWARD_CLASSES = frozenset(
    {
        "accelerate.Accelerator",
        "accelerate.accelerator.Accelerator",
        "lightning.Fabric",
        "lightning.fabric.Fabric",
        "lightning_fabric.Fabric",
    }
)
"""Library classes whose ``backward(loss)`` method is ``loss.backward()`` (modelled on purpose)."""

LIBRARY_PREPARE_METHODS = frozenset(
    {"prepare", "prepare_model", "prepare_optimizer", "setup", "setup_module", "setup_optimizers"}
)
"""Their methods that give back what they were given, wrapped for devices and processes."""

GRAD_SCALER_CLASSES = frozenset(
    {"torch.cuda.amp.GradScaler", "torch.amp.GradScaler", "torch.cpu.amp.GradScaler", "torch.GradScaler"}
)
"""``scaler.scale(loss)`` multiplies the loss by the scale: the same graph, one more node."""

LIGHTNING_MODULES = frozenset(
    {
        "pytorch_lightning.LightningModule",
        "pytorch_lightning.core.LightningModule",
        "pytorch_lightning.core.module.LightningModule",
        "lightning.LightningModule",
        "lightning.pytorch.LightningModule",
        "lightning.pytorch.core.LightningModule",
    }
)
"""Bases whose ``training_step`` the framework calls once per batch, step after step, and whose
``manual_backward(loss)`` is ``loss.backward()``."""

LIGHTNING_STEP = "training_step"


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


SUBMODULE_METHODS = frozenset({"children", "modules", "named_children", "named_modules"})
"""``nn.Module`` methods that give its submodules (with their names for ``named_*``)."""
