"""``vz.from_torch(fn, *args)``: a PyTorch function as a vizad graph.

The function is traced to ATen ops with ``make_fx`` (PyTorch's own tracer, on the example
arguments). An op with a vizad counterpart becomes that vizad op (``aten.mul`` → ``mul``,
``aten.addmm`` → ``add`` of a ``matmul``), so the adjoint graph is vizad's own; any other op
becomes a :class:`~vizad.bridges.framework_op.FrameworkOp` that runs the ATen op and takes its
vjp and jvp from ``torch.func``. The submodules of an ``nn.Module`` become scopes.
"""

from __future__ import annotations

import inspect
import operator
import functools
from contextlib import ExitStack, contextmanager
from typing import TYPE_CHECKING, Any
from collections.abc import Callable, Iterator, Sequence

import numpy as np

from vizad.engine import ops
from vizad.errors import ArgumentTypeError, BridgeError
from vizad.engine.node import Node, scope, source_line, static_shape
from vizad.engine.op import CONSTANT, constant
from vizad.engine.tree import TupleShape
from vizad.bridges.framework_op import Framework, FrameworkOp
from vizad.bridges.imported import Imported, argument_names, input_node
from vizad.bridges.tree_args import leaf_names, placed
from vizad.bridges.optional import require
from vizad.bridges.torch_capture import (
    CALL,
    MARK,
    Capture,
    OutsideWrite,
    WritesInPlace,
    is_user_file,
    module_line,
    traceback_line,
    user_line,
)
from vizad.bridges.torch_saved import refuse_unfaithful

if TYPE_CHECKING:  # pragma: no cover  (mypy reads PyTorch's own types)
    import torch
else:
    torch = require("torch", "torch")
proxy_tensor = require("torch.fx.experimental.proxy_tensor", "torch")
torch_module = require("torch.nn.modules.module", "torch")
core_aten_decompositions = require("torch._decomp", "torch").core_aten_decompositions
pytree = require("torch.utils._pytree", "torch")
guards = require("torch._guards", "torch")
fake_tensor = require("torch._subclasses.fake_tensor", "torch")

__all__ = ["from_torch", "TORCH"]


class _Torch(Framework):
    """PyTorch as a fallback op's framework: ATen ops on tensors, ``torch.func`` rules."""

    name = "PyTorch"

    def native(self, value: Any) -> Any:
        if isinstance(value, tuple):
            return tuple(self.native(v) for v in value)
        return torch.from_numpy(np.array(value))  # a copy: vizad's arrays are read-only

    def numpy(self, value: Any) -> Any:
        return _numpy(value)

    def floating(self, x: Any) -> bool:
        return isinstance(x, torch.Tensor) and (x.is_floating_point() or x.is_complex())

    def zeros(self, x: torch.Tensor) -> torch.Tensor:
        dtype = x.dtype if self.floating(x) else torch.get_default_dtype()
        return torch.zeros(x.shape, dtype=dtype)

    def pullback(self, f: Callable, primals: Sequence[Any]) -> Callable:
        return torch.func.vjp(f, *primals)[1]

    def pushforward(self, f: Callable, primals: Sequence[Any], tangents: Sequence[Any]) -> Any:
        return torch.func.jvp(f, tuple(primals), tuple(tangents))[1]


TORCH = _Torch()


class _TorchAutograd(_Torch):
    """PyTorch with vjps from its autograd engine (``torch.autograd.grad``), which calls a
    custom Function's own ``backward`` and a tensor hook (``torch.func`` refuses both)."""

    def pullback(self, f: Callable, primals: Sequence[torch.Tensor]) -> Callable:
        leaves = [p.detach().requires_grad_(True) for p in primals]
        with torch.enable_grad():
            outs = f(*leaves)
        kept = [k for k, o in enumerate(outs) if o.requires_grad]

        def pull(cotangents: Sequence[torch.Tensor]) -> tuple[torch.Tensor, ...]:
            grads: Sequence[torch.Tensor | None] = [None] * len(leaves)
            if kept:
                with torch.enable_grad():
                    grads = torch.autograd.grad(
                        [outs[k] for k in kept],
                        leaves,
                        [cotangents[k] for k in kept],
                        allow_unused=True,
                        create_graph=True,
                    )
            return tuple(torch.zeros_like(p) if g is None else g for p, g in zip(leaves, grads))

        return pull

    def pushforward(
        self, f: Callable, primals: Sequence[torch.Tensor], tangents: Sequence[torch.Tensor]
    ) -> tuple[torch.Tensor, ...]:
        """J v as the transpose of the vjp u ↦ Jᵀ u (the custom backward's, or the hook's):
        the derivative along u of ⟨Jᵀ u, v⟩. So forward mode agrees with the backward the
        user wrote, right or wrong."""
        leaves = [p.detach().requires_grad_(True) for p in primals]
        with torch.enable_grad():
            outs = f(*leaves)
            us = [torch.zeros_like(o, requires_grad=True) for o in outs]
            grads = torch.autograd.grad(outs, leaves, us, allow_unused=True, create_graph=True)
            terms = [(g * t).sum() for g, t in zip(grads, tangents) if g is not None]
            terms = [t for t in terms if t.requires_grad]
            if not terms:
                return tuple(torch.zeros_like(o) for o in outs)
            # (terms is not empty: the builtin sum of tensors is a tensor)
            jv = torch.autograd.grad(sum(terms), us, allow_unused=True)  # type: ignore[arg-type]
        return tuple(torch.zeros_like(o) if j is None else j for o, j in zip(outs, jv))


TORCH_AUTOGRAD = _TorchAutograd()


def _numpy(value: Any) -> Any:
    if isinstance(value, (tuple, list)):
        return tuple(_numpy(v) for v in value)
    if isinstance(value, torch.Tensor):
        return value.numpy(force=True)  # detached, on the CPU, a zero tensor made zeros
    return np.asarray(value)


def from_torch(fn: Callable, *args: Any) -> Imported:
    """``fn`` (a function of tensors, or an ``nn.Module``) at the example ``args`` as a vizad
    graph: an :class:`~vizad.bridges.imported.Imported` with ``inputs`` (a Variable per
    floating-point argument, named after ``fn``'s parameters, and per parameter of a module
    that requires gradients, named as ``named_parameters`` names it; then a Variable per
    tensor ``fn`` closes over that requires gradients, as PyTorch gives it a ``.grad``: a
    parameter of a module it closes over, named ``cell.weight_ih`` after the variable),
    ``outputs`` and ``feed``.

    Arguments may be pytrees of tensors, as ``torch.utils._pytree`` flattens them (dicts,
    lists, tuples, NamedTuples): each tensor is an input named by its path (``params['W1']``,
    ``layers[0].w``), a None is passed as it is, and ``imported.tree(values)`` lays one value
    per input (the gradients) back out as the arguments were given: a tuple with an entry
    per argument (None where a leaf is not an input), after a dict of the module's
    parameters that are inputs when ``fn`` is an ``nn.Module``.

    The program is traced as AOTAutograd does (``make_fx`` of the functionalized function,
    decomposed to core ATen ops), so in-place and view ops are gone and BatchNorm, LSTMs,
    ``relu_`` and index assignment differentiate as PyTorch does. ATen ops that vizad has
    become vizad ops; any other an op that runs PyTorch and differentiates with ``torch.func``
    (so gradients of any order work). Buffers, integer arguments and frozen parameters are
    constants; values made under ``no_grad``/``inference_mode``, ``detach()`` and
    ``requires_grad_(False)`` are stop-gradients; a custom ``autograd.Function`` is one op
    whose vjp is its own ``backward``; tensor hooks (set in the function, or on a parameter or
    argument before the call) change the gradients as in PyTorch, in the order PyTorch runs
    them, and a module's forward hooks run as the module is called (its backward hooks, and
    a hook after ``.grad`` is accumulated, are refused, naming them). Each
    node keeps the user's line (``node.source``); a submodule's ops are in a ``vz.scope`` of
    its name. The module's state (parameters, buffers, RNG) is as before. What cannot be
    imported faithfully is refused with a BridgeError naming the op and the line: a function
    that writes in place is run once more as PyTorch runs it, and refused where PyTorch's
    backward would fail (a value written after an op saved it) or read values changed
    behind autograd's back (a write through ``.data`` or ``.detach()``, or under ``no_grad``
    to a tensor that requires gradients); ``x.data`` read is ``x.detach()``, setting
    ``.data`` is refused, and ``x.requires_grad = False`` is ``x.requires_grad_(False)``;
    a value read out of PyTorch from a tensor computed from the inputs (``.numpy()``,
    ``np.median(h)``, ``.tolist()``, ``.item()``, ``float(h)``, ``if h.sum() > 0``) is
    refused, naming the line: the graph would keep the number read as a constant; so is one
    that PyTorch's own code reads (a PackedSequence's batch sizes), a torch.func transform
    that differentiates inside the function (``torch.func.grad``, ``jacrev``), and a value
    numpy has no type for (bfloat16 under ``torch.autocast``); a ``torch.compile``'d module
    is refused, saying to give ``compiled._orig_mod``. Random numbers drawn (dropout, a
    ``torch.Generator``'s) are the draws the user's call would make, constants of the graph;
    a reentrant ``checkpoint`` is the function it runs.

    Examples:
        >>> import torch
        >>> def f(x1, x2):
        ...     return torch.log(x1) + x1 * x2 - torch.sin(x2)
        ...
        >>> imported = vz.from_torch(f, torch.tensor(2.0), torch.tensor(5.0))
        >>> imported.inputs
        (<Node x1 shape=()>, <Node x2 shape=()>)
        >>> vz.evaluate(vz.gradients(imported.output, imported.inputs), imported.feed)
        [array(5.5, dtype=float32), array(1.7163378, dtype=float32)]
    """
    if not callable(fn):
        raise ArgumentTypeError(f"from_torch: fn must be callable, got {type(fn).__name__}")
    _refuse_compiled(fn)
    module = fn if isinstance(fn, torch.nn.Module) else None
    given = _Arguments(module.forward if module is not None else fn, args)
    params = list(module.named_parameters()) if module is not None else []
    buffers = list(module.named_buffers()) if module is not None else []
    _check_module(module)
    state = [name for name, _ in params + buffers]
    held = [p for _, p in params] + [None] * len(buffers)
    held += [leaf for leaf in given.leaves if leaf is not None]
    hooks = [_tensor_hooks(t, n) for t, n in zip(held, state + given.names)]
    examples = [_example(p.detach(), name) for name, p in params + buffers]
    call = _called(fn, module, state, given)

    def tensors() -> list:  # copies: the trace may write to them
        held = [p.detach() for _, p in params] + [b.detach().clone() for _, b in buffers]
        return held + [torch.from_numpy(a.copy()) for a in given.arrays]

    closed, reached = _closed_over(fn if module is None else module.forward)
    kept = _attributes([*([module] if module is not None else []), *reached])
    rng = torch.random.get_rng_state()
    name = getattr(fn, "__name__", type(fn).__name__)
    capture = Capture()
    try:
        try:  # without functionalization first: most programs write nothing in place
            with _scopes(module) as spans:
                traced = _trace(_flat(call, capture), tensors(), name)
        except WritesInPlace:
            capture.forget()
            capture.rewind()
            drawn, capture = capture.generators, Capture(functionalize=True)
            capture.generators.update(drawn)
            torch.random.set_rng_state(rng)
            with _scopes(module) as spans:
                traced = _trace(_flat(call, capture), tensors(), name)
            torch.random.set_rng_state(rng)
            capture.rewind()
            refuse_unfaithful(call, _eager(params, buffers, given.arrays), name)
        _draw(traced, tensors(), rng, capture)
        differentiated = [p.requires_grad for _, p in params] + [False] * len(buffers)
        differentiated += [True] * len(given.arrays)
        inputs, outputs, feed, nodes = _graph(
            traced,
            state + given.names,
            examples + given.arrays,
            differentiated,
            hooks,
            closed,
            spans,
            capture,
        )
        structure = given.structure(inputs, nodes, [name for name, _ in params])
        return Imported(inputs, outputs, feed, structure)
    finally:
        torch.random.set_rng_state(rng)
        capture.rewind()
        capture.forget()
        _restore(kept)


class _Arguments:
    """The arguments as the user gave them, pytrees of tensors (dicts, lists, tuples,
    NamedTuples) flattened by PyTorch's pytree module: ``arrays``, one per tensor or number
    leaf, named by its path (``params['W1']``); a None leaf is passed as it is."""

    def __init__(self, fn: Callable, args: tuple) -> None:
        with_paths, self.treedef = pytree.tree_flatten_with_path(tuple(args))
        named = leaf_names(argument_names(fn, len(args)), [p for p, _ in with_paths], pytree.keystr)
        self.leaves = [leaf for _, leaf in with_paths]
        self.names = [n for n, leaf in zip(named, self.leaves) if leaf is not None]
        self.arrays = [_example(leaf, n) for n, leaf in zip(named, self.leaves) if leaf is not None]

    def args(self, tensors: Sequence[torch.Tensor]) -> tuple:
        """The arguments with ``tensors`` (one per array) at the leaves."""
        given = iter(tensors)
        leaves = [None if leaf is None else next(given) for leaf in self.leaves]
        return tuple(pytree.tree_unflatten(leaves, self.treedef))

    def structure(self, inputs: tuple, nodes: list, params: list[str]) -> Callable:
        """``Imported.tree``'s layout: a tuple with an entry per argument, in its structure
        (a dict of parameters as a dict), after a dict of a module's parameters that are
        inputs, by name."""
        state, nodes = nodes[: len(params)], nodes[len(params) :]
        at = iter(nodes[len(nodes) - len(self.arrays) :])
        leaves = [None if leaf is None else next(at) for leaf in self.leaves]
        arguments = placed(
            inputs, leaves, lambda values: pytree.tree_unflatten(values, self.treedef)
        )
        if not params:
            return arguments
        position = {node: k for k, node in enumerate(inputs)}
        named = [(name, position[x]) for name, x in zip(params, state) if x in position]

        def with_parameters(values: Sequence[Any]) -> tuple:
            values = list(values)
            return ({name: values[k] for name, k in named}, *arguments(values))

        return with_parameters


def _trace(flat: Callable, tensors: list, name: str) -> torch.fx.GraphModule:
    """The decomposed ATen program of ``flat`` at ``tensors``.

    ``make_fx`` keeps a fake copy of each op's value in the node's meta, and without a fake
    mode at hand makes a new FakeTensorMode for each (which extracts the Python stack: a
    third of the whole trace). One mode, offered as a tracing context's, serves every op."""
    context = guards.TracingContext(fake_tensor.FakeTensorMode(allow_fallback_kernels=True))
    try:
        with guards.tracing(context):
            return proxy_tensor.make_fx(flat, decomposition_table=_decompositions())(*tensors)
    except (BridgeError, WritesInPlace):
        raise
    except Exception as exc:
        if isinstance(exc, OutsideWrite) or "mutating a non-functional tensor" in str(exc):
            what = (
                f" ({exc.op} writes to {exc.tensor} that the function closes over)"
                if isinstance(exc, OutsideWrite)
                else ""
            )
            inside = module_line(exc.__traceback__)
            module = (
                "give the module itself to from_torch (vz.from_torch(model, x)), or call "
                "model.eval(); importing never changes a module's state"
            )
            if inside is not None:  # torch.nn's code writes: a buffer of a closed-over module
                hint = (
                    "a module's buffer (running statistics or a counter in train mode), "
                    f"written by PyTorch at {inside}, in a module the function closes "
                    f"over: {module}"
                )
            elif isinstance(exc, OutsideWrite):
                hint = (
                    "pass the tensor as an argument, or write to a copy of it (t.clone()); "
                    "importing never changes a tensor outside the function"
                )
            else:
                hint = f"a module's buffer, in a module the function closes over? {module}"
            raise BridgeError(
                f"from_torch: {name!r} writes in place to a tensor that is not one of its "
                f"arguments, at {traceback_line(exc.__traceback__)}{what}: {hint}"
            ) from None
        line = traceback_line(exc.__traceback__) or "an unknown line"
        if "dynamo-optimized" in str(exc):
            raise BridgeError(
                f"from_torch: {name!r} calls a torch.compile'd module or function, at {line}, "
                "which make_fx cannot trace: call the module as it was before compiling "
                "(model._orig_mod of compiled = torch.compile(model))"
            ) from exc
        if "_local_scalar_dense" in str(exc) or "data-dependent" in str(exc):
            raise BridgeError(
                f"from_torch: PyTorch's own code reads a number out of a tensor, at {line} "
                "(aten._local_scalar_dense, as .item() does: a PackedSequence's batch sizes, "
                "topk(k) with k a tensor, a size taken from tensor values). make_fx cannot "
                "trace it and vizad refuses it: the graph would depend on the example's "
                "values. Compute without it: pad the sequences and mask the padding instead "
                "of packing them; use a Python int for a size"
            ) from exc
        raise BridgeError(
            f"from_torch: PyTorch could not trace {name!r} with make_fx, at {line} "
            f"({type(exc).__name__}: {exc})"
        ) from exc


def _draw(traced: torch.fx.GraphModule, tensors: list, rng: torch.Tensor, capture: Capture) -> None:
    """The numbers each random op drew while tracing (a dropout mask), in its node's
    ``meta["vizad_drawn"]``: the program run again from the same RNG state (and the same
    states of the ``torch.Generator``s it draws from) draws them again (the traced nodes
    keep only fake values)."""
    random = [
        n
        for n in traced.graph.nodes
        if isinstance(n.target, torch._ops.OpOverload) and _random(n.target)
    ]
    if not random:
        return
    wanted = set(random)

    class Draws(torch.fx.Interpreter):
        def run_node(self, n: torch.fx.Node) -> Any:
            out = super().run_node(n)
            if n in wanted:
                n.meta["vizad_drawn"] = out.detach().clone()
            return out

    torch.random.set_rng_state(rng)
    capture.rewind()
    with torch.no_grad():
        Draws(traced).run(*tensors)


@functools.cache
def _decompositions() -> dict:
    """Core ATen's decompositions (as AOTAutograd uses them): BatchNorm, LayerNorm and the
    like as the arithmetic they are."""
    return core_aten_decompositions()


def _refuse_compiled(fn: Callable) -> None:
    """A BridgeError for a torch.compile'd module or function, saying what to give instead
    (make_fx cannot trace one; the module it compiled is the same maths)."""
    if isinstance(fn, torch.nn.Module) and getattr(fn, "_orig_mod", None) is not None:
        instead = "the module it compiled: vz.from_torch(compiled._orig_mod, ...), the same "
        instead += "parameters and the same maths"
    elif getattr(fn, "_torchdynamo_orig_callable", None) is not None:
        instead = "the function before compiling (compiled._torchdynamo_orig_callable)"
    else:
        return
    raise BridgeError(
        f"from_torch: fn is torch.compile'd, and make_fx cannot trace a compiled program: "
        f"give {instead}"
    )


def _check_module(module: torch.nn.Module | None) -> None:
    """Refuse a module whose backward hooks would be lost (a module the function closes
    over is refused when it is called: see :func:`_refuse_backward_hooks`)."""
    for name, m in module.named_modules() if module is not None else ():
        if m._backward_hooks or m._backward_pre_hooks:
            raise BridgeError(
                f"from_torch: the module {name or type(module).__name__!r} "
                f"({type(m).__name__}) has backward hooks ({_backward_hooks(m)}), "
                "which an imported graph cannot run: remove them, or record the backward "
                "pass with vz.torch_backward"
            )
    found = [
        f"{kind}: {_qualname(hook)}"
        for kind, hooks in (
            ("register_module_full_backward_hook", torch_module._global_backward_hooks),
            ("register_module_full_backward_pre_hook", torch_module._global_backward_pre_hooks),
        )
        for hook in hooks.values()
    ]
    if found:
        raise BridgeError(
            f"from_torch: global module backward hooks are registered ({', '.join(found)}), "
            "which an imported graph cannot run: remove them, or record the backward pass "
            "with vz.torch_backward"
        )


def _refuse_backward_hooks(m: torch.nn.Module) -> None:
    """Refuse a module called while tracing whose backward hooks would be lost (one the
    function closes over), naming the hooks and the user's line."""
    if m._backward_hooks or m._backward_pre_hooks:
        raise BridgeError(
            f"from_torch: the module {type(m).__name__} has backward hooks "
            f"({_backward_hooks(m)}), which an imported graph cannot run, at "
            f"{user_line() or 'an unknown line'}: remove them, or record the backward pass "
            "with vz.torch_backward"
        )


def _backward_hooks(m: torch.nn.Module) -> str:
    """``"register_full_backward_hook: keep"``: a module's backward hooks, by kind."""
    kind = "register_full_backward_hook" if m._is_full_backward_hook else "register_backward_hook"
    said = [f"{kind}: {_qualname(hook)}" for hook in m._backward_hooks.values()]
    said += [
        f"register_full_backward_pre_hook: {_qualname(h)}" for h in m._backward_pre_hooks.values()
    ]
    return ", ".join(said)


def _tensor_hooks(t: Any, name: str) -> list[Callable]:
    """The hooks set on a parameter or argument before the call (``register_hook``), in the
    order PyTorch runs them on its gradient; a BridgeError naming a hook that runs after
    ``.grad`` is accumulated, which a graph has no place for."""
    if not isinstance(t, torch.Tensor):
        return []
    after = list((getattr(t, "_post_accumulate_grad_hooks", None) or {}).values())
    if after:
        raise BridgeError(
            f"from_torch: the tensor {name!r} has a hook run after its .grad is accumulated "
            f"(register_post_accumulate_grad_hook: {', '.join(map(_qualname, after))}), "
            "which an imported graph cannot run: remove it, or record the backward pass with "
            "vz.torch_backward"
        )
    return list((t._backward_hooks or {}).values())


def _qualname(fn: Any) -> str:
    return getattr(fn, "__qualname__", None) or type(fn).__name__


#: PyTorch's floating types that numpy has no type for.
_NO_NUMPY = {torch.bfloat16} | {
    getattr(torch, name) for name in dir(torch) if name.startswith("float8")
}


def _example(value: Any, name: str) -> np.ndarray:
    """An argument (or parameter, buffer) as numpy; a BridgeError naming it and its dtype
    for a kind of value vizad cannot hold."""
    if isinstance(value, torch.Tensor):
        why = None
        if value.layout != torch.strided:
            why = f"a {value.layout} tensor of {value.dtype}: give it dense (.to_dense())"
        elif value.device.type == "meta":
            why = f"a meta tensor of {value.dtype}, which has no values: give a real tensor"
        elif value.is_floating_point() and value.dtype in _NO_NUMPY:
            why = f"{value.dtype}, which numpy has no type for: give .double() or .float()"
        elif value.is_complex():
            why = f"{value.dtype}: {_COMPLEX}"
        if why is not None:
            raise BridgeError(f"from_torch: the input {name!r} is {why}")
        return _numpy(value).copy()
    try:
        array = np.array(value)
    except Exception:
        array = None
    if array is not None and array.dtype.kind == "c":
        raise BridgeError(
            f"from_torch: the input {name!r} is a {type(value).__name__} of dtype "
            f"{array.dtype}: {_COMPLEX}"
        )
    if array is None or array.dtype.kind not in "biuf":
        raise BridgeError(
            f"from_torch: the input {name!r} is a {type(value).__name__}"
            + ("" if array is None else f" of dtype {array.dtype}")
            + "; give tensors, arrays or numbers"
        )
    return array


_COMPLEX = (
    "PyTorch's gradients of complex functions are conjugate Wirtinger derivatives, which "
    "vizad's ops do not compute"
)


def _called(
    fn: Callable, module: torch.nn.Module | None, state: list[str], given: _Arguments
) -> Callable:
    """``fn`` of the module's parameters and buffers, then the arguments' leaves."""

    def call(*xs: torch.Tensor) -> Any:
        args = given.args(xs[len(state) :])
        if module is None:
            return fn(*args)
        return torch.func.functional_call(module, dict(zip(state, xs[: len(state)])), args)

    return call


#: The longest list or dict of modules and tensors a closure is looked into for names (a
#: data set of tensors held in a global is not: its tensors are named ``closure[k]``).
_LOOKED_INTO = 256


def _closed_over(fn: Callable) -> tuple[dict[int, str], list[torch.nn.Module]]:
    """The names of the tensors ``fn`` reaches through its closure and the globals it names
    (a module's parameters as ``cell.weight_ih``, a tensor by its variable's name), looking
    into the user's functions it names in turn, by the tensor's id; a bound method's own
    module's parameters by the names ``named_parameters`` gives. And the modules reached."""
    names: dict[int, str] = {}
    modules: list[torch.nn.Module] = []
    seen: set[int] = set()  # the functions looked into
    looked: set[int] = set()  # the lists and dicts

    def add(name: str, value: Any) -> None:
        if isinstance(value, torch.nn.Module):
            modules.append(value)
            prefix = f"{name}." if name else ""
            for path, p in value.named_parameters():
                names.setdefault(id(p), prefix + path)
        elif isinstance(value, torch.Tensor):
            names.setdefault(id(value), name)
        elif id(value) in looked:  # (a list that holds itself)
            return
        elif isinstance(value, (list, tuple)) and len(value) <= _LOOKED_INTO:
            looked.add(id(value))
            for k, v in enumerate(value):
                add(f"{name}[{k}]", v)
        elif isinstance(value, dict) and len(value) <= _LOOKED_INTO:
            looked.add(id(value))
            for key, v in value.items():
                add(f"{name}[{key!r}]", v)
        elif inspect.ismethod(value) or inspect.isfunction(value):
            visit(value)

    def visit(f: Any) -> None:
        if id(f) in seen or len(seen) > 100:
            return
        seen.add(id(f))
        if inspect.ismethod(f):
            if isinstance(f.__self__, torch.nn.Module):
                add("", f.__self__)
            f = f.__func__
        code = getattr(f, "__code__", None)
        if code is None or not is_user_file(code.co_filename):
            return
        cells = dict(zip(code.co_freevars, f.__closure__ or ()))
        for name, cell in cells.items():
            try:
                add(name, cell.cell_contents)
            except ValueError:  # a cell not yet filled
                pass
        scope = getattr(f, "__globals__", {})
        for name in _names(code):
            if name in scope and name not in cells:
                add(name, scope[name])

    visit(fn)
    return names, modules


def _attributes(modules: Sequence[torch.nn.Module]) -> list[tuple[torch.nn.Module, dict]]:
    """The tensors the modules (and their submodules) hold as plain attributes: a forward
    pre-hook may set one at each call (``torch.nn.utils.prune`` sets ``weight``), which
    tracing would leave as a value of the trace."""
    return [
        (m, {k: v for k, v in vars(m).items() if isinstance(v, torch.Tensor)})
        for top in modules
        for m in top.modules()
    ]


def _restore(kept: list[tuple[torch.nn.Module, dict]]) -> None:
    """The modules' tensor attributes as :func:`_attributes` found them (one set while
    tracing, by a hook keeping an activation, removed)."""
    for m, tensors in kept:
        held = vars(m)
        for k in [k for k, v in held.items() if isinstance(v, torch.Tensor) and k not in tensors]:
            del held[k]
        held.update(tensors)


def _closure(
    traced: torch.fx.GraphModule, nodes: Sequence[torch.fx.Node], needed: set, closed: dict
) -> list[tuple[str, torch.Tensor]]:
    """The closed-over tensors the output is computed from that require gradients, each
    once, with its name: in the order ``closed`` names them (a module's parameters in its
    own order), then those it does not name, as ``closure[k]``."""
    found: dict[int, torch.Tensor] = {}
    for n in nodes:
        value = getattr(traced, str(n.target)) if n.op == "get_attr" and n in needed else None
        if isinstance(value, torch.Tensor) and TORCH.floating(value) and value.requires_grad:
            found.setdefault(id(value), value)
    rank = {key: k for k, key in enumerate(closed)}
    ordered = sorted(found, key=lambda key: rank.get(key, len(rank)))
    return [(closed.get(key) or f"closure[{k}]", found[key]) for k, key in enumerate(ordered)]


def _names(code: Any) -> set[str]:
    """The global names a code object and the code nested in it (comprehensions, lambdas)
    read."""
    found = set(code.co_names)
    for const in code.co_consts:
        if hasattr(const, "co_names"):
            found |= _names(const)
    return found


def _flat(call: Callable, capture: Capture) -> Callable:
    """``call`` watched by ``capture``."""

    def flat(*xs: torch.Tensor) -> Any:
        return capture.run(call, xs)

    return flat


def _eager(params: list, buffers: list, arrays: list) -> list:
    """Copies of the parameters, buffers and arguments as PyTorch would differentiate them
    (the parameters that require gradients and the floating arguments require them)."""
    given = [p.detach().clone().requires_grad_(p.requires_grad) for _, p in params]
    given += [b.detach().clone() for _, b in buffers]
    for a in arrays:
        t = torch.from_numpy(a.copy())
        given.append(t.requires_grad_(True) if t.is_floating_point() else t)
    return given


@contextmanager
def _scopes(module: torch.nn.Module | None) -> Iterator[list]:
    """While tracing, the modules entered and left: (graph size, path) at each change."""
    spans: list[tuple[int, tuple[str, ...]]] = []
    named = {id(m): name for name, m in module.named_modules()} if module is not None else {}
    path: list[str] = []

    def size() -> int:
        mode = proxy_tensor.get_proxy_mode()
        return len(mode.tracer.graph.nodes) if mode is not None else 0

    def enter(m: torch.nn.Module, inputs: Any) -> None:
        _refuse_backward_hooks(m)
        if m is module:
            return
        name = (named.get(id(m)) or "").rsplit(".", 1)[-1]
        kind = type(m).__name__
        # a Sequential's children are "0", "1": said with their class ("0: Linear")
        path.append(kind if not name else f"{name}: {kind}" if name.isdigit() else name)
        spans.append((size(), tuple(path)))

    def leave(m: torch.nn.Module, inputs: Any, output: Any) -> None:
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


def _graph(
    traced: torch.fx.GraphModule,
    names: Sequence[str],
    arrays: Sequence[np.ndarray],
    differentiated: Sequence[bool],
    held_hooks: Sequence[list[Callable]],
    closed: dict[int, str],
    spans: Sequence[tuple[int, tuple[str, ...]]],
    capture: Capture,
) -> tuple:
    """The vizad graph of a traced GraphModule: ``names``, ``arrays``, ``differentiated``
    and ``held_hooks`` say each placeholder's name, example value, whether it is
    differentiated and the tensor hooks set on it before the call (put on the input, as
    PyTorch runs them on the gradient that reaches it). A tensor the function closes over
    (``make_fx`` makes it a ``get_attr`` node holding the tensor itself) that requires
    gradients, a parameter of a module it closes over, is an input too, as PyTorch gives
    it a ``.grad``: named by ``closed`` (by the tensor's id), after the arguments. Gives the
    inputs, the outputs, the feed and the node each placeholder became."""
    nodes = list(traced.graph.nodes)
    needed = _needed(nodes)
    hooks = _hooks(nodes, capture)
    build = _Build(capture)
    inputs: list[Node] = []
    feed: dict[Node, np.ndarray] = {}
    placeholders = iter(zip(names, arrays, differentiated, held_hooks))
    made: list = []
    leaves: dict[int, Node] = {}  # a closed-over tensor's input, by the tensor's id
    changes = iter(spans)
    change = next(changes, None)
    path: tuple[str, ...] = ()
    outputs: tuple = ()
    env = build.env
    for k, n in enumerate(nodes):
        while change is not None and change[0] <= k:
            path, change = change[1], next(changes, None)
        if n.op == "placeholder":
            name, value, wanted, held = next(placeholders)
            if wanted:
                env[n] = input_node(name, value, inputs, feed)
                build.live.add(env[n])
            else:
                env[n] = constant(value, name=name)
            made.append(env[n])
            # (the last hook made is the first the gradient meets)
            for hook in reversed(held) if wanted else ():
                env[n] = build.hooked(env[n], hook)
        elif n.op == "get_attr":
            value = getattr(traced, n.target)
            if id(value) in leaves:
                env[n] = leaves[id(value)]
            elif n in needed and TORCH.floating(value) and value.requires_grad:
                # (after the placeholders, which come first: all of them, in order)
                for name, t in _closure(traced, nodes, needed, closed):
                    x = input_node(name, _example(t.detach(), name), inputs, feed)
                    build.live.add(x)
                    for hook in reversed(_tensor_hooks(t, name)):
                        x = build.hooked(x, hook)
                    leaves[id(t)] = x
                env[n] = leaves[id(value)]
            elif isinstance(value, torch.Generator):
                env[n] = value  # (read by random ops only, whose draws are constants)
            else:
                env[n] = constant(_numpy(value))
        elif n.op == "call_function" and (n in needed or n.target is MARK):
            _refuse_dtype(n)
            with ExitStack() as stack:
                for part in path:
                    stack.enter_context(scope(part))
                stack.enter_context(source_line(n.meta.get("vizad_source")))
                build.node(n)
        elif n.op == "output":
            outputs = tuple(_leaves(_read(n.args[0], env)))
        if n in hooks and n in env:
            for hook, line in reversed(hooks[n]):  # the last made is the first run
                with source_line(line):
                    env[n] = build.hooked(env[n], hook)
    return tuple(inputs), outputs, feed, made


def _hooks(nodes: Sequence[torch.fx.Node], capture: Capture) -> dict:
    """{the FX node of a tensor: [(hook, line)]} for the tensor hooks the function set."""
    hooks: dict = {}
    for n in nodes:
        if n.op == "call_function" and n.target is MARK:
            # (a mark's first argument is its key, an int; FX types arguments as any Argument)
            what = capture.marks[n.args[0]]  # type: ignore[index]
            if what[0] == "hook":
                hooks.setdefault(n.args[1], []).append(what[1:])
    return hooks


def _needed(nodes: Sequence[torch.fx.Node]) -> set:
    """The nodes the output is computed from (make_fx keeps some that are not: the copies
    back into mutated inputs, a BatchNorm's new running statistics)."""
    needed: set = set()
    for n in reversed(nodes):
        if n.op == "output" or n in needed:
            needed.update(n.all_input_nodes)
    return needed


class _Build:
    """Turns FX nodes into vizad nodes (``env``), knowing which depend on a differentiated
    input (``live``): a value made with gradients disabled from one that does becomes a
    stop-gradient, and a hook is put only on a value that has a gradient."""

    def __init__(self, capture: Capture) -> None:
        self.capture = capture
        self.env: dict = {}
        self.live: set[Node] = set()

    def node(self, n: torch.fx.Node) -> None:
        env, target = self.env, n.target
        args, kwargs = _read(n.args, env), _read(n.kwargs, env)
        given = [a for a in _leaves_of((args, kwargs)) if isinstance(a, Node)]
        live = any(a in self.live for a in given)
        if target is MARK:
            self._mark(n, args[1], live)
            return
        if target is CALL:
            node = _custom(self.capture.calls[args[0]], args[1], n.meta.get("val"))
        elif isinstance(target, torch._ops.OpOverload) and _random(target):
            node, live = _drawn(n), False
        else:
            _refuse_mutation(n)
            # (getitem's first argument is a node; FX types arguments as any Argument)
            if target is operator.getitem and n.args[0].meta.get("vizad_kept") is not None:  # type: ignore[union-attr]
                args = (args[0], n.args[0].meta["vizad_kept"].index(args[1]))  # type: ignore[union-attr]
            node = _call(n, args, kwargs)
            kept = _used_outputs(n, n.meta.get("val"))
            if kept is not None and isinstance(node.op, FrameworkOp):
                n.meta["vizad_kept"] = kept
        if live and n.meta.get("vizad_grad") is False:
            node, live = ops.stop_gradient(node), False
        env[n] = node
        if live:
            self.live.add(node)

    def _mark(self, n: torch.fx.Node, x: Any, live: bool) -> None:
        """A mark of ``x``: detach (its value without gradient), requires_grad_(False) (from
        here on, ``x`` has none), or a hook (done where ``x`` is made)."""
        # (a mark's first argument is its key, its second the node marked)
        what = self.capture.marks[n.args[0]]  # type: ignore[index]
        if what[0] == "hook" or not isinstance(x, Node):
            self.env[n] = x
            if live:
                self.live.add(x)
            return
        if what[0] == "freeze" and live and n.args[1].op != "placeholder":  # type: ignore[union-attr]
            raise BridgeError(  # PyTorch refuses it too, when the function runs
                "from_torch: requires_grad_(False) (or .requires_grad = False) on a tensor "
                "computed from ones that require gradients (PyTorch allows it only on leaves: "
                f"use .detach()), at {n.meta.get('vizad_source') or 'an unknown line'}"
            )
        stopped = ops.stop_gradient(x) if live else x
        self.env[n] = stopped
        if what[0] == "freeze":
            self.env[n.args[1]] = stopped

    def hooked(self, x: Node, hook: Callable) -> Node:
        """``x`` through an op whose vjp is the tensor hook's."""
        if x not in self.live:
            return x
        node = FrameworkOp(
            f"hook {getattr(hook, '__name__', 'fn')}",
            _hook_function(hook),
            TORCH_AUTOGRAD,
            1,
            static_shape(x),
        )(x)
        self.live.add(node)
        return node


def _leaves_of(value: Any) -> list:
    if isinstance(value, (list, tuple)):
        return [x for v in value for x in _leaves_of(v)]
    if isinstance(value, dict):
        return [x for v in value.values() for x in _leaves_of(v)]
    return [value]


def _random(target: torch._ops.OpOverload) -> bool:
    return torch.Tag.nondeterministic_seeded in target.tags


def _op_name(target: object) -> str:
    return str(target).removeprefix("aten.").removesuffix(".default")


def _drawn(n: torch.fx.Node) -> Node:
    """The random numbers an op drew while tracing (a dropout mask), as a constant: the
    imported graph computes with the draw PyTorch made, every time."""
    val = n.meta.get("vizad_drawn")
    if val is None:
        raise BridgeError(
            f"from_torch: the random op {_op_name(n.target)} kept no value to import, at "
            f"{n.meta.get('vizad_source') or 'an unknown line'}"
        )
    return constant(_numpy(val), name=_op_name(n.target))


def _refuse_dtype(n: torch.fx.Node) -> None:
    """A BridgeError for an op whose value numpy cannot hold (bfloat16: autocast)."""
    for val in _leaves_of(n.meta.get("val")):
        dtype = getattr(val, "dtype", None)
        if isinstance(dtype, torch.dtype) and not _numpy_has(dtype):
            raise BridgeError(
                f"from_torch: the op {_op_name(n.target)} makes a {dtype} tensor, at "
                f"{n.meta.get('vizad_source') or 'an unknown line'}, and numpy, which holds "
                f"vizad's values, has no {dtype} (under torch.autocast?): import the "
                "function without autocast, or with dtype=torch.float16"
            )


@functools.cache
def _numpy_has(dtype: torch.dtype) -> bool:
    try:
        torch.empty(0, dtype=dtype).numpy()
    except (TypeError, RuntimeError):
        return False
    return True


def _refuse_mutation(n: torch.fx.Node) -> None:
    """A BridgeError for an op that still writes to a tensor after functionalization."""
    schema = getattr(n.target, "_schema", None)
    if schema is not None and schema.is_mutable:
        raise BridgeError(
            f"from_torch: the op {_op_name(n.target)} writes to a tensor in place, which "
            f"cannot be imported, at {n.meta.get('vizad_source') or 'an unknown line'}"
        )


def _hook_function(hook: Callable) -> Callable:
    """Identity, with ``hook`` on the result: under autograd its gradient is the hook's."""

    def hooked(x: torch.Tensor) -> torch.Tensor:
        y = x.clone()
        if y.requires_grad:
            y.register_hook(hook)
        return y

    return hooked


def _custom(call: tuple, inputs: list, val: Any) -> Node:
    """A custom autograd.Function as one op: its forward, its own backward as vjp."""
    cls, run, _line = call
    op = FrameworkOp(cls.__name__, run, TORCH_AUTOGRAD, len(inputs), _shape(val))
    return op(*inputs)


def _read(arg: Any, env: dict) -> Any:
    """An fx argument with its nodes replaced by what ``env`` holds for them."""
    if isinstance(arg, torch.fx.Node):
        return env[arg]
    if isinstance(arg, (list, tuple)):
        return type(arg)(_read(a, env) for a in arg)
    return arg


def _leaves(value: Any) -> list:
    if isinstance(value, (list, tuple)):
        return [x for v in value for x in _leaves(v)]
    return [value if isinstance(value, Node) else constant(np.asarray(value))]


def _call(n: torch.fx.Node, args: Sequence[Any], kwargs: dict[str, Any]) -> Any:
    """The vizad node of one ATen call: the vizad op where there is one, else PyTorch's."""
    if n.target is operator.getitem:
        return ops.tuple_get(args[0], args[1])
    made = _ATEN.get(str(n.target))
    if made is not None:
        node = made(*args, **kwargs)
        if node is not None:
            return node
    return _fallback(n, args, kwargs)


def _fallback(n: torch.fx.Node, args: Sequence[Any], kwargs: dict[str, Any]) -> Node:
    """The op that runs ``n``'s ATen op with PyTorch: the vizad nodes among its arguments
    become the op's inputs, the rest is kept in the function — constants too (buffers such
    as a BatchNorm's running statistics, frozen parameters: PyTorch may have no derivative
    for them, and none is asked for)."""
    inputs: list[Node] = []

    def holes(a: Any, held: bool = False) -> Any:
        if isinstance(a, Node):
            if a.op is CONSTANT:
                return torch.from_numpy(np.array(a.attrs["value"]))
            inputs.append(a)
            return _Hole(len(inputs) - 1, held)
        if isinstance(a, (list, tuple)):
            return type(a)(holes(x) for x in a)
        return a

    # (an ATen op has a schema)
    names = [a.name for a in getattr(n.target, "_schema", None).arguments] if _aten(n) else []  # type: ignore[union-attr]
    given = tuple(holes(a, k < len(names) and names[k] in _STATISTICS) for k, a in enumerate(args))
    template = (given, holes(kwargs))
    target = _WITH_DERIVATIVE.get(n.target, n.target)
    val = n.meta.get("val")
    kept = _used_outputs(n, val)

    def run(*tensors: torch.Tensor) -> Any:
        a, kw = _filled(template, tensors)
        # (a call_function node's target is callable; FX types it Callable | str)
        out = target(*a, **kw)  # type: ignore[operator]
        return out if kept is None else tuple(out[k] for k in kept)

    if kept is not None:
        # (kept is None where there is no value)
        val = [val[k] for k in kept]  # type: ignore[index]
    op = FrameworkOp(_op_name(target), run, TORCH, len(inputs), _shape(val), _floating(val))
    return op(*inputs)


#: Ops that make_fx records as a variant PyTorch has no derivative for (EmbeddingBag,
#: traced without gradients, as ``_embedding_bag_forward_only``), and the variant with one:
#: the same schema and results.
_WITH_DERIVATIVE: dict[object, Callable[..., Any]] = {
    torch.ops.aten._embedding_bag_forward_only.default: torch.ops.aten._embedding_bag.default,
}


def _used_outputs(n: torch.fx.Node, val: Any) -> list[int] | None:
    """The outputs of an op with several that the program reads (a BatchNorm's statistics
    for its backward pass and new running statistics are not), or None to keep them all:
    the op made gives only those, so that no derivative of an unread output is asked for."""
    if not isinstance(val, (tuple, list)) or not n.users:
        return None
    if any(u.target is not operator.getitem for u in n.users):
        return None
    # (getitem's second argument is an int; FX types arguments as any Argument)
    used = sorted({u.args[1] for u in n.users if u.users})  # type: ignore[type-var]
    return used if len(used) < len(val) else None  # type: ignore[return-value]


#: Arguments PyTorch never differentiates (derivatives.yaml: "not differentiable with
#: respect to"), by their name in the op's schema: a BatchNorm applied twice in train mode
#: reads the running statistics its first call updated, computed from differentiated
#: inputs; they are passed detached (a zero vjp), as PyTorch gives them no gradient.
_STATISTICS = frozenset({"running_mean", "running_var"})


def _aten(n: torch.fx.Node) -> bool:
    return isinstance(n.target, torch._ops.OpOverload)


class _Hole:
    """Where a fallback op's function takes input ``k`` (``held``: detached)."""

    __slots__ = ("k", "held")

    def __init__(self, k: int, held: bool = False) -> None:
        self.k, self.held = k, held


def _filled(template: Any, tensors: Sequence[torch.Tensor]) -> Any:
    if isinstance(template, _Hole):
        return tensors[template.k].detach() if template.held else tensors[template.k]
    if isinstance(template, (list, tuple)):
        return type(template)(_filled(t, tensors) for t in template)
    if isinstance(template, dict):
        return {k: _filled(v, tensors) for k, v in template.items()}
    return template


def _floating(val: Any) -> bool:
    """Whether a traced value (or one of several) is floating-point: a comparison's result
    has no derivative to take."""
    if isinstance(val, (tuple, list)):
        return any(_floating(v) for v in val)
    return not isinstance(val, torch.Tensor) or TORCH.floating(val)


def _shape(val: Any) -> Any:
    """The static shape of a traced value (a TupleShape for several)."""
    if isinstance(val, (tuple, list)):
        return TupleShape(_shape(v) for v in val)
    if isinstance(val, torch.Tensor):
        return tuple(val.shape)
    return None


# -- ATen ops that vizad has: each gives a vizad node, or None (then PyTorch's op is used) ---
def _alpha(op: Callable[[Any, Any], Node]) -> Callable[..., Node | None]:
    def made(a: Any, b: Any, alpha: float = 1) -> Node | None:
        return op(a, b) if alpha == 1 else None

    return made


def _sum_like(op: Callable[..., Node]) -> Callable[..., Node | None]:
    def made(
        a: Any, dim: Sequence[int] | None = None, keepdim: bool = False, dtype: Any = None
    ) -> Node | None:
        if dtype is not None:
            return None
        axis = None if dim is None or len(dim) == 0 else tuple(dim)
        return op(a, axis=axis, keepdims=keepdim)

    return made


def _addmm(bias: Any, m1: Any, m2: Any, beta: float = 1, alpha: float = 1) -> Node | None:
    return ops.add(bias, ops.matmul(m1, m2)) if beta == 1 and alpha == 1 else None


def _swap(a: Any, d0: int, d1: int) -> Node | None:
    shape = static_shape(a) if isinstance(a, Node) else None
    if shape is None:
        return None
    axes = list(range(len(shape)))
    axes[d0], axes[d1] = axes[d1], axes[d0]
    return ops.transpose(a, axes)


def _expand(a: Any, size: Sequence[int], implicit: bool = False) -> Node | None:
    shape = static_shape(a) if isinstance(a, Node) else None
    if shape is None:
        return None
    lead = len(size) - len(shape)
    target = tuple(shape[k - lead] if s == -1 else s for k, s in enumerate(size))
    return ops.broadcast_to(a, target)


def _copy(a: Any, b: Any, non_blocking: bool = False) -> Node | None:
    """Functionalization's ``copy(a, b)``: ``b`` written over ``a`` (broadcast to its shape);
    nothing of ``a`` but its shape is read."""
    shape = static_shape(a) if isinstance(a, Node) else None
    if shape is None or not isinstance(b, Node):
        return None
    return ops.identity(b) if static_shape(b) == shape else ops.broadcast_to(b, shape)


def _plain(op: Callable[[Any], Node]) -> Callable[[Any], Node]:
    def made(a: Any) -> Node:
        return op(a)

    return made


def _div(a: Any, b: Any, rounding_mode: str | None = None) -> Node | None:
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
    "aten.copy.default": _copy,
    "aten.alias.default": _plain(ops.identity),
    "aten.lift_fresh_copy.default": _plain(ops.identity),
    **{
        f"aten.{name}.default": _plain(getattr(ops, name))
        for name in ("neg", "exp", "log", "sin", "cos", "tanh", "sigmoid", "relu", "sqrt")
    },
}
