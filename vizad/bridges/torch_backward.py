"""``vz.torch_backward(loss)``: what PyTorch's own ``loss.backward()`` did, step by step.

Hooks on the nodes of the ``grad_fn`` graph only observe: a node's pre-hook sees the gradient
the engine summed for it (v̄ᵢ, after the partial adjoints from all its consumers were added),
its hook the partial adjoint it passes back along each edge (v̄ᵢ→ⱼ), and the order in which
the pre-hooks run is the order in which the engine ran the nodes. Every hook returns None, so
the leaves' ``.grad`` are exactly what they would be without vizad. Forward values are read
from the tensors PyTorch saved for its backward pass (``_saved_self``, ``_saved_result``, …),
before the pass frees them; a value it did not save is shown as "not saved by PyTorch" —
unless the forward pass ran inside ``torch_backward`` (a function giving the loss): then a
dispatch mode kept every value as it was computed (``values="all"``), with the user's line of
code that computed it (``node.source``). Given ``inputs`` (a pytree of tensors, as
``loss.backward(inputs=...)`` and ``torch.autograd.grad`` take them), the pass runs for those
alone, as PyTorch runs it, and ``trace.grads`` is what it gave each, in their structure.
"""

from __future__ import annotations

import gc
import os
import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from vizad.errors import ArgumentError, BridgeError
from vizad.engine import ops
from vizad.trace.recorded import RecordedNode, RecordedReverseTrace, Recording, recorded_trace
from vizad.engine.tree import Unrecorded
from vizad.bridges.optional import require
from vizad.bridges.torch_capture import is_user_file, user_line
from vizad.bridges.torch_tree import TensorTree

if TYPE_CHECKING:  # pragma: no cover  (mypy reads PyTorch's own types)
    import torch
    import torch.utils._python_dispatch as dispatch
else:
    torch = require("torch", "torch")
    dispatch = require("torch.utils._python_dispatch", "torch")

__all__ = ["torch_backward"]

#: What a forward value is when PyTorch kept none.
NOT_SAVED = "not saved by PyTorch"

#: PyTorch's ops that a vizad op writes the same way (mul: v₁ × v₂, and its partials).
_LIKE = {
    name: getattr(ops, name)
    for name in ("add", "sub", "mul", "div", "neg", "exp", "log", "sin", "cos", "tanh")
    + ("sigmoid", "relu", "sqrt")
}


def torch_backward(
    loss: Any,
    names: Any = None,
    *,
    inputs: Any = None,
    cotangent: Any = None,
    values: str | None = None,
    decimals: int = 3,
) -> RecordedReverseTrace:
    """Run ``loss.backward(cotangent)`` and return what PyTorch did as a reverse trace: one
    step per node of the ``grad_fn`` graph in the order PyTorch's engine ran them, each with
    the gradient the engine summed for it and the partial adjoint it received along each
    edge, all PyTorch's own numbers. ``vz.step``, ``vz.draw``, ``vz.export_html`` and
    ``vz.export_frames`` take it like any trace.

    ``loss`` is the loss tensor, or a function of no arguments that computes it
    (``lambda: F.cross_entropy(model(x), y)``): then the forward pass runs here, and with
    ``values="all"`` (the default for a function) every forward value is kept as it is
    computed, with the line of code that computed it (``node.source``). With
    ``values="saved"`` (the only choice for a tensor) a node shows the values PyTorch saved
    for its backward pass, and "not saved by PyTorch" for the others.

    ``names`` names tensors: ``{"W1": W1, "h": h}`` (leaves or intermediate tensors), an
    ``nn.Module`` (its parameters' names), ``model.named_parameters()``, or nested dicts,
    lists and tuples of tensors, each named by its path (``{"layers": [(w, b)]}`` names
    ``layers[0][1]``). Other leaves are ``leaf1``, ``leaf2``, …; other nodes show PyTorch's
    op (``MulBackward0`` as ``mul``). The leaves' ``.grad`` accumulate as ``backward()``
    makes them, exactly as without vizad; a leaf's step shows what this pass added.

    ``inputs`` are the tensors to differentiate with respect to, as ``loss.backward(inputs=
    ...)`` and ``torch.autograd.grad(loss, inputs)`` take them, in any structure: a tensor, a
    dict of parameters, nested lists and tuples (NamedTuples) of tensors,
    ``model.named_parameters()`` (read as a dict), or an ``nn.Module`` (its parameters that
    require gradients). PyTorch's engine then runs only the nodes on the way to them, and
    only they accumulate ``.grad`` (exactly ``loss.backward(inputs=...)``); the trace has
    those nodes, the inputs named by their paths (``W1``, ``weight_ih_l0``, ``inputs[0][1]``;
    ``names`` may rename them), and ``trace.grads`` is the gradient this pass gave each
    input (what ``torch.autograd.grad`` returns, as numpy arrays) laid out as ``inputs`` was
    given: a dict for a dict, None for an input the loss does not depend on. An input that
    is not a tensor, or does not require gradients, is an error naming its path.

    ``cotangent`` is the seed v̄ of a loss that is not a scalar (``gradient`` in PyTorch's
    ``backward``).

    Examples:
        >>> import torch
        >>> x1 = torch.tensor(2.0, requires_grad=True)
        >>> x2 = torch.tensor(5.0, requires_grad=True)
        >>> y = torch.log(x1) + x1 * x2 - torch.sin(x2)
        >>> trace = vz.torch_backward(y, {"x1": x1, "x2": x2})
        >>> x1.grad, x2.grad
        (tensor(5.5000), tensor(1.7163))
        >>> trace
        PyTorch's backward pass of v₇: 7 steps, in the order PyTorch ran them
        step  vᵢ  definition  value                 partial adjoints v̄ᵢ→ⱼ     v̄ᵢ
        1     v₇  v₆ - v₅     11.652                seed                       1
        2     v₅  sin v₂      not saved by PyTorch  v̄₅→₇ = -1                 -1
        3     v₆  v₃ + v₄     not saved by PyTorch  v̄₆→₇ = 1                  1
        4     v₄  v₁ × v₂     not saved by PyTorch  v̄₄→₆ = 1                  1
        5     v₂  x₂          5                     v̄₂→₅ = -0.284, v̄₂→₄ = 2  1.716
        6     v₃  ln v₁       not saved by PyTorch  v̄₃→₆ = 1                  1
        7     v₁  x₁          2                     v̄₁→₄ = 5, v̄₁→₃ = 0.5     5.5
    """
    values = _values_mode(loss, values)
    # both checked before the forward pass runs
    named = None if names is None else TensorTree(names, "names")
    wrt = None if inputs is None else _inputs(inputs)
    seen: dict = {}
    if callable(loss) and not isinstance(loss, torch.Tensor):
        loss, seen = _forward(loss, values == "all")
    _check_loss(loss, cotangent)
    graph = _Graph(loss.grad_fn)
    given = _named(named, graph)
    if wrt is not None:
        for name, tensor in zip(wrt.names, wrt.tensors):
            k = graph.position(tensor)
            if k is not None:
                given.setdefault(k, (name, tensor))
    saved, reads = _saved_values(graph)
    sources: dict[int, str] = {}
    for fn, (value, line) in seen.items():
        k = graph.index.get(fn)
        if k is None:
            continue
        if value is not None and k not in saved:
            saved[k] = value
        if line is not None:
            sources[k] = line
    for k, (_name, tensor) in given.items():  # a tensor the user named: its value is known
        if k not in saved and _outputs(graph.order[k]) == 1:
            saved[k] = _array(tensor)
    if graph.index[loss.grad_fn] not in saved:
        saved[graph.index[loss.grad_fn]] = _array(loss)
    watch = _Watch(graph, [] if wrt is None else wrt.tensors)
    try:
        loss.backward(cotangent, inputs=None if wrt is None else _distinct(wrt.tensors))
    except RuntimeError as exc:
        if "second time" not in str(exc):
            raise
        raise BridgeError(
            "torch_backward: the graph of this loss was freed by an earlier backward() (it "
            "keeps no saved tensors to run again): compute the loss again, or give that "
            "earlier backward retain_graph=True"
        ) from exc
    finally:
        watch.remove()
    leaf_names = {k: f"leaf{j}" for j, k in enumerate(sorted(graph.leaves.values()), 1)}
    for k, (name, _tensor) in given.items():
        leaf_names[k] = name
    nodes = tuple(
        _recorded(k, fn, graph, watch, saved, reads, leaf_names, sources.get(k))
        for k, fn in enumerate(graph.order)
    )
    output = graph.index[loss.grad_fn]
    order = tuple(watch.ran)
    fns = list(graph.order)
    if wrt is not None:  # only the nodes PyTorch ran for the inputs
        fns = [fns[k] for k in sorted(set(order))]
        nodes, order, output = _ran(nodes, order, output)
    recording = Recording(
        engine="PyTorch",
        nodes=nodes,
        order=order,
        output=output,
        seed=nodes[output].adjoint,
        ones=cotangent is None,
        hooks=_tensor_hooks(fns),
    )
    trace = recorded_trace(recording, decimals)
    if wrt is not None:
        trace.grads = wrt.tree([watch.grads.get(id(t)) for t in wrt.tensors])
    return trace


def _inputs(inputs: Any) -> TensorTree:
    """``inputs`` flattened, each tensor one that requires gradients (a BridgeError naming
    the path of one that does not: PyTorch refuses to differentiate with respect to it)."""
    wrt = TensorTree(inputs, "inputs", trainable=True)
    if not wrt.tensors:
        raise BridgeError(
            "torch_backward: inputs holds no tensor (a module without parameters that require "
            "gradients?): give the tensors to differentiate with respect to, or leave inputs "
            "out to differentiate with respect to every leaf"
        )
    for path, tensor in zip(wrt.paths, wrt.tensors):
        if not tensor.requires_grad:
            raise BridgeError(
                f"torch_backward: {path} (shape {tuple(tensor.shape)}) does not "
                "require gradients, so PyTorch cannot differentiate with respect to it: make "
                "it with requires_grad=True (or .requires_grad_()), or leave it out of inputs"
            )
    return wrt


def _distinct(tensors: list[Any]) -> list[Any]:
    """``tensors`` without repeats (one tensor given twice is differentiated once)."""
    return list({id(t): t for t in tensors}.values())


def _ran(
    nodes: tuple[RecordedNode, ...], order: tuple[int, ...], output: int
) -> tuple[tuple[RecordedNode, ...], tuple[int, ...], int]:
    """The nodes PyTorch's engine ran (with ``inputs``, those on the way to them), their
    positions and edges renumbered. An edge to a node that did not run is None (no gradient
    went along it); a node left with no edge (a non-leaf input whose own inputs need no
    gradient) is a leaf of the trace, as ``torch.autograd.grad`` sees it."""
    kept = sorted({*order, output})  # (none ran when the loss uses none of the inputs)
    at = {k: j for j, k in enumerate(kept)}
    out = []
    for k in kept:
        r = nodes[k]
        if r.op is None:
            out.append(r)
            continue
        edges = tuple(None if e is None or e[0] not in at else (at[e[0]], e[1]) for e in r.inputs)
        if all(e is None for e in edges) and r.name is not None:
            out.append(
                RecordedNode(
                    op=None,
                    name=r.name,
                    value=r.value,
                    adjoint=r.adjoint,
                    backward=r.backward,
                    source=r.source,
                )
            )
            continue
        reads = tuple(at[j] for j in r.reads if j in at)
        out.append(r._replace(inputs=edges, reads=reads))
    return tuple(out), tuple(at[k] for k in order), at[output]


def _values_mode(loss: Any, values: str | None) -> str:
    function = callable(loss) and not isinstance(loss, torch.Tensor)
    if values is None:
        return "all" if function else "saved"
    if values not in ("all", "saved"):
        raise ArgumentError(
            f"torch_backward: values is 'all' (every forward value) or 'saved' (those "
            f"PyTorch saved for its backward pass), got {values!r:.40}"
        )
    if values == "all" and not function:
        raise ArgumentError(
            "torch_backward: values='all' needs the forward pass to run inside "
            "torch_backward: give a function that computes the loss "
            "(vz.torch_backward(lambda: model(x).sum(), model)), not the loss tensor"
        )
    return values


def _tensor_hooks(fns: list) -> Callable[[int], tuple[str, ...]]:
    """The names of the hooks (``register_hook``) on the tensor that ``fns[k]`` computed
    (on a leaf's ``AccumulateGrad``: the leaf's), for a check that finds PyTorch's sum
    changed. A ``grad_fn`` does not show its tensor's hooks: the tensors alive are searched
    once, when first asked (it holds ``fns``, not the tensors)."""
    found: dict[int, tuple[str, ...]] | None = None

    def hooks(k: int) -> tuple[str, ...]:
        nonlocal found
        if found is None:
            at = {id(fn): j for j, fn in enumerate(fns)}
            found = {}
            for j, fn in enumerate(fns):
                if _is_leaf(fn) and getattr(fn, "variable", None) is not None:
                    found[j] = _hook_names(fn.variable)
            for obj in gc.get_objects():
                if (
                    isinstance(obj, torch.Tensor)
                    and obj._backward_hooks
                    and obj.grad_fn is not None
                ):
                    place = at.get(id(obj.grad_fn))
                    if place is not None:
                        found[place] = found.get(place, ()) + _hook_names(obj)
        return found.get(k, ())

    return hooks


def _hook_names(tensor: Any) -> tuple[str, ...]:
    """Each hook of ``tensor`` as a person finds it: its name and the user's line."""
    names = []
    for hook in (tensor._backward_hooks or {}).values():
        name = getattr(hook, "__name__", None) or type(hook).__name__
        code = getattr(hook, "__code__", None)
        where = f" ({os.path.basename(code.co_filename)}:{code.co_firstlineno})" if code else ""
        names.append(f"{name}{where}")
    return tuple(names)


def _forward(fn: Callable[[], Any], keep: bool) -> tuple[Any, dict]:
    """``fn()``, and {grad_fn: (the value it computed, the user's line)} of every op that
    ran (only the lines unless ``keep``)."""
    mode = _Values(keep)
    with mode:
        loss = fn()
    return loss, mode.by_node()


class _Values(dispatch.TorchDispatchMode):
    """Below autograd: every op's results, with the user's line. A result's ``grad_fn`` is
    set by autograd once the op returns: it is read when the next op starts (before an
    in-place op gives the tensor another one) and when the forward pass is over."""

    def __init__(self, keep: bool):
        super().__init__()
        self.keep = keep
        self.pending: list[tuple] = []
        self.values: dict = {}  # grad_fn → [value per output], line

    def __torch_dispatch__(
        self,
        func: torch._ops.OpOverload,
        types: Sequence[type],
        args: Sequence[Any] = (),
        kwargs: dict[str, Any] | None = None,
    ) -> Any:
        self._resolve()
        out = func(*args, **(kwargs or {}))
        line = user_line()
        for t in out if isinstance(out, (tuple, list)) else [out]:
            if isinstance(t, torch.Tensor) and (t.is_floating_point() or t.is_complex()):
                self.pending.append((t, _array(t) if self.keep else None, line))
        return out

    def _resolve(self) -> None:
        for t, value, line in self.pending:
            fn = t.grad_fn
            if fn is None:
                continue
            outputs = _outputs(fn)
            held = self.values.setdefault(fn, ([None] * outputs, line))[0]
            if t.output_nr < outputs and held[t.output_nr] is None:
                held[t.output_nr] = value
        self.pending = []

    def by_node(self) -> dict:
        """{grad_fn: (value, line)}: a value is a tuple for a node with several outputs
        (None unless all are known)."""
        self._resolve()
        out = {}
        for fn, (held, line) in self.values.items():
            value = held[0] if len(held) == 1 else tuple(held)
            if len(held) > 1 and any(v is None for v in held):
                value = None
            out[fn] = (value, line)
        return out


def _check_loss(loss: Any, cotangent: Any) -> None:
    """A BridgeError saying what to do when ``loss`` has no backward pass to record."""
    if not isinstance(loss, torch.Tensor):
        raise BridgeError(
            f"torch_backward: expected a torch.Tensor computed from tensors that require "
            f"gradients, got {type(loss).__name__}"
        )
    if loss.grad_fn is None:
        what = (
            "it is a leaf (requires_grad=True, but nothing was computed from it)"
            if loss.requires_grad
            else "it does not require gradients"
        )
        raise BridgeError(
            f"torch_backward: the tensor of shape {tuple(loss.shape)} has no grad_fn: {what}; "
            "compute the loss from leaves made with requires_grad=True (or an nn.Module's "
            "parameters), outside torch.no_grad()"
        )
    if cotangent is None and loss.numel() != 1:
        raise BridgeError(
            f"torch_backward: the loss has shape {tuple(loss.shape)}, not a single number: "
            "give cotangent= (the seed v̄ of the loss, for instance torch.ones_like(loss)) "
            "or reduce it first (loss.sum())"
        )


class _Graph:
    """The ``grad_fn`` graph: its nodes with every input before its consumers (an iterative
    depth-first post-order), and each node's position."""

    def __init__(self, root: Any) -> None:
        self.order: list = []
        self.index: dict = {}
        stack = [(root, 0)]
        while stack:
            fn, k = stack.pop()
            inputs = [n for n, _ in fn.next_functions if n is not None]
            while k < len(inputs) and inputs[k] in self.index:
                k += 1
            if k < len(inputs):
                stack.append((fn, k + 1))
                stack.append((inputs[k], 0))
            elif fn not in self.index:
                self.index[fn] = len(self.order)
                self.order.append(fn)
        #: The leaf tensor of each AccumulateGrad node (by the tensor's identity, while the
        #: graph holds it) → the node's position.
        self.leaves = {id(fn.variable): k for k, fn in enumerate(self.order) if _is_leaf(fn)}

    def position(self, tensor: torch.Tensor) -> int | None:
        """The position of the node that computed ``tensor`` (its AccumulateGrad for a leaf),
        or None when it is not in this graph."""
        if tensor.grad_fn is not None:
            return self.index.get(tensor.grad_fn)
        return self.leaves.get(id(tensor)) if tensor.requires_grad else None


def _is_leaf(fn: torch.autograd.graph.Node) -> bool:
    return hasattr(fn, "variable")


def _named(tree: TensorTree | None, graph: _Graph) -> dict[int, tuple[str, Any]]:
    """{position: (name, the tensor named)} from ``names`` flattened (a pytree of tensors
    named by their paths, an nn.Module, or named pairs); names of tensors outside the graph
    are left out."""
    if tree is None:
        return {}
    out: dict[int, tuple[str, Any]] = {}
    for name, tensor in zip(tree.names, tree.tensors):
        k = graph.position(tensor)
        if k is not None:
            out.setdefault(k, (name, tensor))
    return out


def _saved_values(graph: _Graph) -> tuple[dict[int, np.ndarray], dict[int, tuple[int, ...]]]:
    """The forward values PyTorch saved for its backward pass, by the position of the node
    that computed them, and for each node the positions whose saved values its backward
    reads. A saved tensor is a leaf or the output of a node of the graph (its ``grad_fn``
    says which); others (constants, a mean kept by layer_norm) are not nodes of the graph."""
    values: dict[int, np.ndarray] = {}
    reads: dict[int, tuple[int, ...]] = {}
    for k, fn in enumerate(graph.order):
        if _is_leaf(fn):
            values[k] = _array(fn.variable)
            continue
        read = []
        for attribute in _saved_names(type(fn)):
            try:
                saved = getattr(fn, attribute)
            except RuntimeError:  # freed, or changed in place since: not readable
                continue
            for tensor in saved if isinstance(saved, (tuple, list)) else [saved]:
                if not isinstance(tensor, torch.Tensor):
                    continue
                j = graph.position(tensor)
                if j is None or _outputs(graph.order[j]) != 1:
                    continue
                values.setdefault(j, _array(tensor))
                if j not in read:
                    read.append(j)
        reads[k] = tuple(read)
    return values, reads


#: grad_fn class → its ``_saved_*`` attributes (:func:`_saved_names`)
_SAVED_NAMES: dict[type, tuple[str, ...]] = {}


def _saved_names(kind: type) -> tuple[str, ...]:
    """The attributes through which a ``grad_fn`` class shows what it saved (``_saved_self``,
    ``_saved_other`` …): PyTorch generates them per class (read once, not a ``dir()`` a
    node)."""
    names = _SAVED_NAMES.get(kind)
    if names is None:
        names = _SAVED_NAMES[kind] = tuple(a for a in dir(kind) if a.startswith("_saved_"))
    return names


def _outputs(fn: torch.autograd.graph.Node) -> int:
    """How many outputs the forward function of ``fn`` has (1 when PyTorch does not say)."""
    return len(getattr(fn, "_input_metadata", (None,)))


def _array(tensor: torch.Tensor) -> np.ndarray:
    """A numpy copy of ``tensor``'s value (bfloat16, which numpy lacks, as float32)."""
    t = tensor.detach()
    if t.dtype == torch.bfloat16:
        t = t.float()
    return t.numpy(force=True).copy()


class _Watch:
    """The hooks that watch one backward pass: each node's incoming gradient and outgoing
    partial adjoints, and the order the engine ran them. One hook a node: a node's hook is
    given both (its incoming gradient as its pre-hooks left it), and runs as soon as the node
    has, before the engine runs another; a leaf's AccumulateGrad has a pre-hook (it gives
    nothing out). They return None: they change nothing."""

    def __init__(self, graph: _Graph, inputs: list[Any]):
        self.ran: list[int] = []
        self.incoming: dict[int, tuple] = {}
        self.outgoing: dict[int, tuple] = {}
        #: The gradient each input tensor received (by its identity), from a tensor hook.
        self.grads: dict[int, np.ndarray] = {}
        self._handles = []
        for k, fn in enumerate(graph.order):
            if _is_leaf(fn):
                self._handles.append(fn.register_prehook(self._pre_hook(k)))
            else:
                self._handles.append(fn.register_hook(self._hook(k)))
        for tensor in _distinct(inputs):
            self._handles.append(tensor.register_hook(self._tensor_hook(id(tensor))))

    def _pre_hook(self, k: int) -> Callable[[tuple], None]:
        def seen(grad_outputs: tuple) -> None:
            self.ran.append(k)
            self.incoming[k] = _arrays(grad_outputs)

        return seen

    def _hook(self, k: int) -> Callable[[tuple, tuple], None]:
        def seen(grad_inputs: tuple, grad_outputs: tuple) -> None:
            self.ran.append(k)
            self.incoming[k] = _arrays(grad_outputs)
            self.outgoing[k] = _arrays(grad_inputs)

        return seen

    def _tensor_hook(self, key: int) -> Callable[[Any], None]:
        def seen(grad: Any) -> None:
            self.grads[key] = _array(grad)

        return seen

    def remove(self) -> None:
        for handle in self._handles:
            handle.remove()
        self._handles = []


def _arrays(grads: tuple) -> tuple:
    return tuple(None if g is None else _array(g) for g in grads)


def _recorded(
    k: int,
    fn: torch.autograd.graph.Node,
    graph: _Graph,
    watch: _Watch,
    saved: dict[int, Any],
    reads: dict[int, tuple[int, ...]],
    names: dict[int, str],
    source: str | None,
) -> RecordedNode:
    """Node ``k`` of the graph as the recording has it (``names``: what the user named, and
    the leaves' default names; ``source``: the user's line that made it)."""
    name = names.get(k)
    incoming = watch.incoming.get(k, ())
    value = saved.get(k)
    if value is None:
        value = Unrecorded(NOT_SAVED, _shape(fn, incoming))
    if _is_leaf(fn):
        return RecordedNode(
            op=None,
            name=name,
            value=value,
            adjoint=_adjoint(incoming),
            backward="AccumulateGrad",
            source=source,
        )
    op = _op_name(fn)
    inputs = tuple(
        None if n is None else (graph.index[n], output) for n, output in fn.next_functions
    )
    like = _LIKE.get(op)
    if like is not None and (getattr(fn, "_saved_alpha", 1) != 1 or len(inputs) != like.arity):
        like = None  # add(x, y, alpha=2) is not v₁ + v₂, mul(x, 0.9) (MulBackward1) not v₁ × v₂
    return RecordedNode(
        op=op,
        inputs=inputs,
        name=name,
        value=value,
        adjoint=_adjoint(incoming),
        partials=watch.outgoing.get(k, (None,) * len(inputs)),
        reads=reads.get(k, ()),
        backward=_backward_name(fn),
        like=like,
        outputs=_outputs(fn),
        source=source or _anomaly_line(fn),
    )


def _anomaly_line(fn: torch.autograd.graph.Node) -> str | None:
    """The user's line of a node made in anomaly mode (PyTorch keeps its traceback)."""
    trace = getattr(fn, "metadata", {}).get("traceback_")
    if not trace:
        return None
    for entry in reversed(trace):
        match = re.search(r'File "([^"]+)", line (\d+)', entry)
        if match and is_user_file(match.group(1)):
            code = entry.strip().splitlines()[-1].strip() if "\n" in entry.strip() else ""
            name = match.group(1).rsplit("/", 1)[-1]
            return f"{name}:{match.group(2)}  {code}".rstrip()
    return None


def _adjoint(incoming: tuple) -> Any:
    """The gradient a node received: one array, or a tuple when several of its outputs
    received one (an output that received none is Unrecorded)."""
    given = [g for g in incoming if g is not None]
    if len(given) <= 1:
        return given[0] if given else None
    return tuple(Unrecorded("no gradient", ()) if g is None else g for g in incoming)


def _shape(fn: torch.autograd.graph.Node, incoming: tuple) -> tuple | None:
    given = [g for g in incoming if g is not None]
    if len(given) == 1:
        return np.shape(given[0])
    metadata: tuple = getattr(fn, "_input_metadata", ())
    return tuple(metadata[0].shape) if len(metadata) == 1 else None


def _backward_name(fn: torch.autograd.graph.Node) -> str:
    """PyTorch's name of the backward function (``MulBackward0``)."""
    return fn.name().rsplit("::", 1)[-1]


def _op_name(fn: torch.autograd.graph.Node) -> str:
    """The forward op's name from its backward's: ``MulBackward0`` → ``mul``,
    ``NativeLayerNormBackward0`` → ``native_layer_norm``."""
    name = re.sub(r"Backward\d*$", "", _backward_name(fn)) or _backward_name(fn)
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()
