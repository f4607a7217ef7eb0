"""``vz.from_torch(fn, *args)``: a PyTorch function as a vizad graph.

The function is traced to ATen ops with ``make_fx`` (PyTorch's own tracer, on the example
arguments). An op with a vizad counterpart becomes that vizad op (``aten.mul`` → ``mul``,
``aten.addmm`` → ``add`` of a ``matmul``), so the adjoint graph is vizad's own; any other op
becomes a :class:`~vizad.bridges.framework_op.FrameworkOp` that runs the ATen op and takes its
vjp and jvp from ``torch.func``. The submodules of an ``nn.Module`` become scopes.
"""

from __future__ import annotations

import operator
from contextlib import ExitStack, contextmanager
from typing import Any
from collections.abc import Callable, Iterator

import numpy as np

from .. import ops
from ..errors import ArgumentTypeError, BridgeError
from ..node import Node, scope, static_shape
from ..op import constant
from ..tree import TupleShape
from .framework_op import Framework, FrameworkOp
from .imported import Imported, argument_names, input_node
from .optional import require

torch = require("torch", "torch")
proxy_tensor = require("torch.fx.experimental.proxy_tensor", "torch")
torch_module = require("torch.nn.modules.module", "torch")

__all__ = ["from_torch", "TORCH"]


class _Torch(Framework):
    """PyTorch as a fallback op's framework: ATen ops on tensors, ``torch.func`` rules."""

    name = "PyTorch"

    def native(self, value):
        if isinstance(value, tuple):
            return tuple(self.native(v) for v in value)
        return torch.from_numpy(np.array(value))  # a copy: vizad's arrays are read-only

    def numpy(self, value):
        return _numpy(value)

    def floating(self, x) -> bool:
        return isinstance(x, torch.Tensor) and (x.is_floating_point() or x.is_complex())

    def zeros(self, x):
        dtype = x.dtype if self.floating(x) else torch.get_default_dtype()
        return torch.zeros(x.shape, dtype=dtype)

    def pullback(self, f, primals):
        return torch.func.vjp(f, *primals)[1]

    def pushforward(self, f, primals, tangents):
        return torch.func.jvp(f, tuple(primals), tuple(tangents))[1]


TORCH = _Torch()


def _numpy(value) -> Any:
    if isinstance(value, (tuple, list)):
        return tuple(_numpy(v) for v in value)
    if isinstance(value, torch.Tensor):
        return value.numpy(force=True)  # detached, on the CPU, a zero tensor made zeros
    return np.asarray(value)


def from_torch(fn: Callable, *args: Any) -> Imported:
    """``fn`` (a function of tensors, or an ``nn.Module``) at the example ``args`` as a vizad
    graph: an :class:`~vizad.bridges.imported.Imported` with ``inputs`` (a Variable per
    floating-point argument, named after ``fn``'s parameters, and per parameter of a module,
    named as ``named_parameters`` names it), ``outputs`` and ``feed``.

    ATen ops that vizad has (add, mul, sin, exp, log, tanh, relu, mm/matmul, addmm, sum,
    mean, view, expand, permute, log_softmax, …) become vizad ops; any other becomes an op
    that runs PyTorch and differentiates with ``torch.func`` (so gradients of any order
    work). Integer arguments (class labels) are constants; a submodule's ops are in a
    ``vz.scope`` of its name."""
    if not callable(fn):
        raise ArgumentTypeError(f"from_torch: fn must be callable, got {type(fn).__name__}")
    arrays = [_example(a, k) for k, a in enumerate(args)]
    module = fn if isinstance(fn, torch.nn.Module) else None
    names = argument_names(module.forward if module is not None else fn, len(args))
    params = list(module.named_parameters()) if module is not None else []
    flat = _flat(fn, module, [name for name, _ in params])
    tensors = [torch.from_numpy(a.copy()) for a in arrays]
    with _scopes(module) as spans:
        try:
            traced = proxy_tensor.make_fx(flat)(*(p.detach() for _, p in params), *tensors)
        except Exception as exc:
            raise BridgeError(
                f"from_torch: PyTorch could not trace {getattr(fn, '__name__', fn)!r} with "
                f"make_fx ({type(exc).__name__}: {exc})"
            ) from exc
    examples = [_example(p.detach(), k) for k, (_, p) in enumerate(params)] + arrays
    return _graph(traced, [name for name, _ in params] + names, examples, spans)


def _example(value: Any, k: int) -> np.ndarray:
    if isinstance(value, torch.Tensor):
        return _numpy(value).copy()
    try:
        return np.array(value)
    except Exception:
        raise ArgumentTypeError(
            f"from_torch: argument {k + 1} is a {type(value).__name__}; give tensors, arrays "
            "or numbers"
        ) from None


def _flat(fn: Callable, module, param_names: list[str]) -> Callable:
    """``fn`` of the module's parameters, then the arguments."""
    if module is None:
        return fn

    def flat(*xs):
        p = dict(zip(param_names, xs[: len(param_names)]))
        return torch.func.functional_call(module, p, tuple(xs[len(param_names) :]))

    return flat


@contextmanager
def _scopes(module) -> Iterator[list]:
    """While tracing, the modules entered and left: (graph size, path) at each change."""
    spans: list[tuple[int, tuple[str, ...]]] = []
    named = {id(m): name for name, m in module.named_modules()} if module is not None else {}
    path: list[str] = []

    def size() -> int:
        mode = proxy_tensor.get_proxy_mode()
        return len(mode.tracer.graph.nodes) if mode is not None else 0

    def enter(m, inputs):
        if m is module:
            return
        name = (named.get(id(m)) or "").rsplit(".", 1)[-1]
        kind = type(m).__name__
        # a Sequential's children are "0", "1": said with their class ("0: Linear")
        path.append(kind if not name else f"{name}: {kind}" if name.isdigit() else name)
        spans.append((size(), tuple(path)))

    def leave(m, inputs, output):
        if m is module or not path:
            return
        path.pop()
        spans.append((size(), tuple(path)))

    handles = [
        torch_module.register_module_forward_pre_hook(enter),
        torch_module.register_module_forward_hook(leave),
    ]
    try:
        yield spans
    finally:
        for h in handles:
            h.remove()


def _graph(traced, names: list[str], arrays: list[np.ndarray], spans) -> Imported:
    """The vizad graph of a traced GraphModule."""
    nodes = list(traced.graph.nodes)
    needed = _needed(nodes)
    env: dict = {}
    inputs: list[Node] = []
    feed: dict[Node, np.ndarray] = {}
    placeholders = iter(zip(names, arrays))
    changes = iter(spans)
    change = next(changes, None)
    path: tuple[str, ...] = ()
    outputs: tuple = ()
    for k, n in enumerate(nodes):
        while change is not None and change[0] <= k:
            path, change = change[1], next(changes, None)
        if n.op == "placeholder":
            name, value = next(placeholders)
            env[n] = input_node(name, value, inputs, feed)
        elif n.op == "get_attr":
            env[n] = constant(_numpy(getattr(traced, n.target)))
        elif n.op == "call_function" and n in needed:
            with ExitStack() as stack:
                for part in path:
                    stack.enter_context(scope(part))
                env[n] = _call(n, env)
        elif n.op == "output":
            outputs = tuple(_leaves(_read(n.args[0], env)))
    return Imported(tuple(inputs), outputs, feed)


def _needed(nodes) -> set:
    """The nodes the output is computed from (make_fx keeps some that are not: detach)."""
    needed: set = set()
    for n in reversed(nodes):
        if n.op == "output" or n in needed:
            needed.update(n.all_input_nodes)
    return needed


def _read(arg, env):
    """An fx argument with its nodes replaced by what ``env`` holds for them."""
    if isinstance(arg, torch.fx.Node):
        return env[arg]
    if isinstance(arg, (list, tuple)):
        return type(arg)(_read(a, env) for a in arg)
    return arg


def _leaves(value) -> list:
    if isinstance(value, (list, tuple)):
        return [x for v in value for x in _leaves(v)]
    return [value if isinstance(value, Node) else constant(np.asarray(value))]


def _call(n, env) -> Any:
    """The vizad node of one ATen call: the vizad op where there is one, else PyTorch's."""
    args, kwargs = _read(n.args, env), _read(n.kwargs, env)
    if n.target is operator.getitem:
        return ops.tuple_get(args[0], args[1])
    made = _ATEN.get(str(n.target))
    if made is not None:
        node = made(*args, **kwargs)
        if node is not None:
            return node
    return _fallback(n, args, kwargs)


def _fallback(n, args, kwargs) -> Node:
    """The op that runs ``n``'s ATen op with PyTorch: the vizad nodes among its arguments
    become the op's inputs, the rest is kept in the function."""
    inputs: list[Node] = []

    def holes(a):
        if isinstance(a, Node):
            inputs.append(a)
            return _Hole(len(inputs) - 1)
        if isinstance(a, (list, tuple)):
            return type(a)(holes(x) for x in a)
        return a

    template = holes((args, kwargs))
    target = n.target

    def run(*tensors):
        a, kw = _filled(template, tensors)
        return target(*a, **kw)

    name = str(target).removeprefix("aten.").removesuffix(".default")
    val = n.meta.get("val")
    op = FrameworkOp(name, run, TORCH, len(inputs), _shape(val), _floating(val))
    return op(*inputs)


class _Hole:
    """Where a fallback op's function takes input ``k``."""

    __slots__ = ("k",)

    def __init__(self, k: int):
        self.k = k


def _filled(template, tensors):
    if isinstance(template, _Hole):
        return tensors[template.k]
    if isinstance(template, (list, tuple)):
        return type(template)(_filled(t, tensors) for t in template)
    if isinstance(template, dict):
        return {k: _filled(v, tensors) for k, v in template.items()}
    return template


def _floating(val) -> bool:
    """Whether a traced value (or one of several) is floating-point: a comparison's result
    has no derivative to take."""
    if isinstance(val, (tuple, list)):
        return any(_floating(v) for v in val)
    return not isinstance(val, torch.Tensor) or TORCH.floating(val)


def _shape(val) -> Any:
    """The static shape of a traced value (a TupleShape for several)."""
    if isinstance(val, (tuple, list)):
        return TupleShape(_shape(v) for v in val)
    if isinstance(val, torch.Tensor):
        return tuple(val.shape)
    return None


# -- ATen ops that vizad has: each gives a vizad node, or None (then PyTorch's op is used) ---
def _alpha(op):
    def made(a, b, alpha=1):
        return op(a, b) if alpha == 1 else None

    return made


def _sum_like(op):
    def made(a, dim=None, keepdim=False, dtype=None):
        if dtype is not None:
            return None
        axis = None if dim is None or len(dim) == 0 else tuple(dim)
        return op(a, axis=axis, keepdims=keepdim)

    return made


def _addmm(bias, m1, m2, beta=1, alpha=1):
    return ops.add(bias, ops.matmul(m1, m2)) if beta == 1 and alpha == 1 else None


def _swap(a, d0, d1):
    shape = static_shape(a) if isinstance(a, Node) else None
    if shape is None:
        return None
    axes = list(range(len(shape)))
    axes[d0], axes[d1] = axes[d1], axes[d0]
    return ops.transpose(a, axes)


def _expand(a, size, implicit=False):
    shape = static_shape(a) if isinstance(a, Node) else None
    if shape is None:
        return None
    lead = len(size) - len(shape)
    target = tuple(shape[k - lead] if s == -1 else s for k, s in enumerate(size))
    return ops.broadcast_to(a, target)


def _plain(op):
    def made(a):
        return op(a)

    return made


def _div(a, b, rounding_mode=None):
    return ops.div(a, b) if rounding_mode is None else None


_ATEN: dict[str, Callable[..., Node | None]] = {
    "aten.add.Tensor": _alpha(ops.add),
    "aten.add.Scalar": _alpha(ops.add),
    "aten.sub.Tensor": _alpha(ops.sub),
    "aten.sub.Scalar": _alpha(ops.sub),
    "aten.rsub.Scalar": lambda a, b, alpha=1: ops.sub(b, a) if alpha == 1 else None,
    "aten.mul.Tensor": ops.mul,
    "aten.mul.Scalar": ops.mul,
    "aten.div.Tensor": _div,
    "aten.div.Scalar": _div,
    "aten.pow.Tensor_Scalar": lambda a, p: ops.power(a, p),
    "aten.mm.default": ops.matmul,
    "aten.bmm.default": ops.matmul,
    "aten.matmul.default": ops.matmul,
    "aten.mv.default": ops.matmul,
    "aten.addmm.default": _addmm,
    "aten.t.default": _plain(ops.transpose),
    "aten.permute.default": lambda a, dims: ops.transpose(a, tuple(dims)),
    "aten.transpose.int": _swap,
    "aten.view.default": lambda a, size: ops.reshape(a, tuple(size)),
    "aten.reshape.default": lambda a, size: ops.reshape(a, tuple(size)),
    "aten._unsafe_view.default": lambda a, size: ops.reshape(a, tuple(size)),
    "aten.expand.default": _expand,
    "aten.sum.default": lambda a, dtype=None: ops.sum(a) if dtype is None else None,
    "aten.sum.dim_IntList": _sum_like(ops.sum),
    "aten.mean.default": lambda a, dtype=None: ops.mean(a) if dtype is None else None,
    "aten.mean.dim": _sum_like(ops.mean),
    "aten._log_softmax.default": lambda a, dim, half_to_float=False: ops.log_softmax(a, dim),
    "aten.clone.default": lambda a, memory_format=None: ops.identity(a),
    "aten.alias.default": _plain(ops.identity),
    "aten.lift_fresh_copy.default": _plain(ops.identity),
    **{
        f"aten.{name}.default": _plain(getattr(ops, name))
        for name in ("neg", "exp", "log", "sin", "cos", "tanh", "sigmoid", "relu", "sqrt")
    },
}
