"""What a framework saves for its backward pass, against what vizad's reverse mode keeps.

JAX keeps *residuals* between a function's forward pass and its vjp (what
``jax.ad_checkpoint.print_saved_residuals`` prints); PyTorch's autograd *saves tensors* on
its graph's nodes (what ``torch.autograd.graph.saved_tensors_hooks`` sees). vizad's
:meth:`~vizad.trace.ReverseTrace.memory` says which forward values its walkthrough holds into
the backward pass (``memory.saved``). :func:`compare_saved` imports the function
(``vz.from_jax``/``vz.from_torch``), takes the walkthrough's memory, collects the framework's
saved values, and pairs them by value: each value both keep is a match; each difference is
named and, where the walkthrough shows why, explained — most often the framework saves a
local partial derivative computed in the forward pass (``cos x`` for ``sin x``, 1 − y² for
``tanh``) where vizad keeps the value it is computed from and computes it in the walkthrough's
step, or the framework saves an input whose value vizad's rules read through another node.

A ``jax.checkpoint`` block in the function is one op in vizad's import (its rule is JAX's
own, which reads the block's inputs): both then save the block's inputs, not its values.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any, NamedTuple

import numpy as np

from vizad.errors import ArgumentError
from vizad.engine.node import Node
from vizad.engine.op import CONSTANT
from vizad.trace import ReverseTrace, trace_reverse
from vizad.trace.memory import Memory
from vizad.trace.display import html_table
from vizad.trace.text import latex_to_text
from vizad.bridges.framework_op import FrameworkOp

__all__ = [
    "Residual",
    "Difference",
    "SavedComparison",
    "compare_saved",
    "saved_by_jax",
    "saved_by_torch",
]


class Residual(NamedTuple):
    """A value a framework saves for its backward pass: its value (numpy), what the
    framework says of it ("output of cos", "TanhBackward0 result"), and the values it was
    computed from, when the framework shows them (JAX: its equation's inputs).

    Examples:
        >>> import jax.numpy as jnp
        >>> from vizad.bridges.saved import saved_by_jax
        >>> (cos,) = saved_by_jax(lambda x: jnp.sin(x).sum(), jnp.zeros(2, jnp.float32))
        >>> cos.description, cos.value
        ('output of cos', array([1., 1.], dtype=float32))
    """

    value: np.ndarray
    description: str
    inputs: tuple[np.ndarray, ...] = ()


class Difference(NamedTuple):
    """A value one side saves and the other does not: ``node`` (vizad's, or the vizad value
    it equals), ``residual`` (the framework's, or None), ``text`` saying what and why, and
    whether the walkthrough explains it.

    Examples:
        >>> import jax.numpy as jnp
        >>> from vizad.bridges.saved import compare_saved
        >>> report = compare_saved(lambda x: jnp.sin(x).sum(), jnp.ones(3))
        >>> [(d.residual is None, d.explained) for d in report.differences]
        [(False, True), (True, True)]
    """

    node: Node | None
    residual: Residual | None
    text: str
    explained: bool


class SavedComparison:
    """The values vizad keeps for the backward pass (``memory.saved``) against those the
    framework saves: ``matches`` (vizad node, residual) and ``differences``, each named.

    Examples:
        >>> import jax.numpy as jnp
        >>> report = vz.bridges.saved.compare_saved(lambda x: jnp.sin(x).sum(), jnp.ones(3))
        >>> report.ok, len(report.matches)
        (True, 0)
        >>> for part in report.differences[0].text.split("; "):
        ...     print(part)
        JAX saves cos v₁ (∂v₂/∂v₁ = cos v₁), computed in the forward pass (JAX's output of cos)
        vizad computes it in the step of v̄₁ from v₁
    """

    def __init__(
        self,
        framework: str,
        trace: ReverseTrace,
        memory: Memory,
        residuals: list[Residual],
        matches: list[tuple[Node, Residual]],
        differences: list[Difference],
    ) -> None:
        self.framework = framework
        self.trace, self.memory = trace, memory
        self.residuals = residuals
        self.matches = matches
        self.differences = differences

    @property
    def ok(self) -> bool:
        """Whether every value matches or its difference is explained."""
        return all(d.explained for d in self.differences)

    def summary(self) -> str:
        """One line: how many each keeps, how many are the same, how many differ."""
        unexplained = sum(not d.explained for d in self.differences)
        differ = len(self.differences)
        return (
            f"{self.framework} saves {_count(len(self.residuals), 'value')}, vizad keeps "
            f"{len(self.memory.saved)}: {len(self.matches)} the same, "
            f"{_count(differ, 'difference')}"
            + (
                f", {unexplained} unexplained"
                if unexplained
                else ", each explained"
                if differ
                else ""
            )
        )

    def lines(self) -> list[str]:
        """One line per match and per difference."""
        label = self.trace.label
        out = [
            f"= {label(node)} ({node.op.name}): {self.framework}'s {r.description}"
            for node, r in self.matches
        ]
        out += [("≠ " if d.explained else "? ") + d.text for d in self.differences]
        return out

    def __repr__(self) -> str:
        return "\n".join([self.summary(), *("  " + line for line in self.lines())])

    def _repr_html_(self) -> str:
        rows = [[line[0], line[2:]] for line in self.lines()]
        return html_table(self.summary(), ["", "value"], rows, _LEGEND)


#: What the marks of a comparison's lines say.
_LEGEND = "= kept by both · ≠ a difference, explained · ? a difference not explained"


# -- what the frameworks save ---------------------------------------------------------------
def saved_by_jax(fn: Callable, *args: Any, **kwargs: Any) -> list[Residual]:
    """The residuals JAX's ``jax.vjp`` of ``fn`` at ``args`` keeps, with their values (the
    residuals of ``jax.ad_checkpoint.print_saved_residuals``, in the vjp's order).

    Examples:
        >>> import jax.numpy as jnp
        >>> from vizad.bridges.saved import saved_by_jax
        >>> [r.description for r in saved_by_jax(lambda x: jnp.tanh(x).sum(), jnp.ones(2))]
        ['output of tanh', 'output of sub']
    """
    import jax
    from jax.extend.core import jaxpr_as_fun

    leaves, tree = jax.tree_util.tree_flatten((args, kwargs))

    def flat(*xs: Any) -> Any:
        a, k = jax.tree_util.tree_unflatten(tree, xs)
        return fn(*a, **k)

    closed, shapes = jax.make_jaxpr(lambda *xs: jax.vjp(flat, *xs), return_shape=True)(*leaves)
    count = len(jax.tree_util.tree_leaves(shapes[1]))
    jaxpr = closed.jaxpr
    outvars = jaxpr.outvars[len(jaxpr.outvars) - count :]
    # every variable's value: the program run with all its variables as outputs
    every = [v for eqn in jaxpr.eqns for v in eqn.outvars]
    program = closed.replace(jaxpr=jaxpr.replace(outvars=[*jaxpr.invars, *every]))
    value_of = dict(zip([*jaxpr.invars, *every], jaxpr_as_fun(program)(*leaves)))
    made: dict[Any, tuple[str, tuple]] = {
        v: (f"the argument at position {k + 1}", ()) for k, v in enumerate(jaxpr.invars)
    }
    for eqn in jaxpr.eqns:
        inputs = tuple(
            np.asarray(a.val) if _literal(a) else np.asarray(value_of[a])
            for a in eqn.invars
            if _literal(a) or a in value_of
        )
        for v in eqn.outvars:
            made[v] = (f"output of {eqn.primitive.name}", inputs)
    out, seen = [], set()
    for var in outvars:
        if _literal(var):
            out.append(Residual(np.asarray(var.val), "a literal"))
            continue
        if var in seen:
            continue
        seen.add(var)
        if var in value_of:
            description, inputs = made[var]
            out.append(Residual(np.asarray(value_of[var]), description, inputs))
        else:  # a constant of the program
            index = jaxpr.constvars.index(var)
            out.append(Residual(np.asarray(closed.consts[index]), "a constant"))
    return out


def _literal(var: Any) -> bool:
    return type(var).__name__ == "Literal"


def saved_by_torch(fn: Callable, *args: Any) -> list[Residual]:
    """The tensors PyTorch's autograd saves when ``fn(*args)`` runs with every floating-point
    argument (and the module's parameters) requiring gradients, as
    ``torch.autograd.graph.saved_tensors_hooks`` sees them, each once; described by the
    graph nodes that save it (``TanhBackward0 result``; a tensor two nodes save, such as the
    input of ``sin(x) * x``, is listed once, with both).

    Examples:
        >>> import torch
        >>> from vizad.bridges.saved import saved_by_torch
        >>> for r in saved_by_torch(lambda x: (x.sin() * x).sum(), torch.ones(2)):
        ...     print(r.description)
        MulBackward0 other, SinBackward0 self
        MulBackward0 self
    """
    import torch

    given = [
        a.detach().clone().requires_grad_(True)
        if isinstance(a, torch.Tensor) and a.is_floating_point()
        else a
        for a in args
    ]
    packed: list = []

    def pack(t: Any) -> Any:
        packed.append(t)
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        result = fn(*given)
    described = _described(result)
    out, seen = [], set()
    for t in packed:
        key = _tensor_key(t)
        if key in seen:
            continue
        seen.add(key)
        description = described.get(key, "a tensor saved by autograd")
        out.append(Residual(t.detach().cpu().numpy().copy(), description))
    return out


def _tensor_key(t: Any) -> tuple:
    return (t.data_ptr(), tuple(t.shape), tuple(t.stride()), str(t.dtype))


def _described(result: Any) -> dict[tuple, str]:
    """Each saved tensor of ``result``'s autograd graph: "which node saves it, as what"."""
    import torch

    roots = [r.grad_fn for r in _tensors(result) if r.grad_fn is not None]
    out: dict[tuple, list[str]] = {}
    seen: set[int] = set()
    stack = list(roots)
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        for attr in dir(node):
            if attr.startswith("_saved_"):
                try:
                    value = getattr(node, attr)
                except RuntimeError:  # freed, or not a tensor PyTorch shows
                    continue
                if isinstance(value, torch.Tensor):
                    said = out.setdefault(_tensor_key(value), [])
                    said.append(f"{type(node).__name__} {attr[7:]}")
        stack.extend(f for f, _ in node.next_functions)
    return {key: ", ".join(said) for key, said in out.items()}


def _tensors(result: Any) -> list:
    import torch

    if isinstance(result, torch.Tensor):
        return [result]
    if isinstance(result, (tuple, list)):
        return [t for r in result for t in _tensors(r)]
    return []


# -- the comparison -------------------------------------------------------------------------
def compare_saved(
    fn: Callable, *args: Any, framework: str | None = None, keep: Any = None
) -> SavedComparison:
    """Import ``fn`` at ``args`` (``vz.from_jax`` or ``vz.from_torch``: ``framework`` "jax"
    or "torch", default from the arguments), walk its reverse mode, and pair the values its
    memory timeline holds into the walkthrough (``memory.saved``; ``keep``: a function of the
    :class:`~vizad.bridges.imported.Imported` giving checkpoints) with those the framework
    saves. See the module's docstring.

    Examples:
        >>> import torch
        >>> from vizad.bridges.saved import compare_saved
        >>> compare_saved(lambda x: torch.tanh(torch.tanh(x)).sum(), torch.ones(3))
        PyTorch saves 2 values, vizad keeps 2: 2 the same, 0 differences
          = v₂ (tanh): PyTorch's TanhBackward0 result
          = v₃ (tanh): PyTorch's TanhBackward0 result
    """
    framework = framework or _framework(fn, args)
    if framework == "jax":
        from vizad.bridges.jax_import import from_jax

        imported = from_jax(fn, *args)
        residuals = saved_by_jax(fn, *args)
        name = "JAX"
    elif framework == "torch":
        from vizad.bridges.torch_import import from_torch

        imported = from_torch(fn, *args)
        residuals = saved_by_torch(fn, *args)
        name = "PyTorch"
    else:
        raise ArgumentError(f"compare_saved: framework is 'jax' or 'torch', got {framework!r}")
    trace = trace_reverse(imported.output, imported.inputs, imported.feed)
    memory = trace.memory(keep(imported) if callable(keep) else keep)
    return _compared(name, trace, memory, residuals)


def _framework(fn: Callable, args: Iterable[Any]) -> str:
    kinds = {type(a).__module__.split(".")[0] for a in (fn, *args)}
    return "torch" if "torch" in kinds else "jax"


def _compared(
    name: str, trace: ReverseTrace, memory: Memory, residuals: list[Residual]
) -> SavedComparison:
    label = trace.label
    saved = list(memory.saved)
    forward = [n for n in trace.graph if n.op is not CONSTANT]
    locals_ = _local_partials(trace)
    matches: list[tuple[Node, Residual]] = []
    unmatched: list[Residual] = []
    for r in residuals:
        node = None if r.description in _PROGRAM else _same(r.value, saved, trace)
        if node is not None:
            saved.remove(node)
            matches.append((node, r))
        else:
            unmatched.append(r)
    matched = [n for n, _ in matches]
    differences: list[Difference] = []
    instead: dict[Node, list[str]] = {}  # a value vizad keeps → what the framework saves

    def differ(node: Node | None, r: Residual, text: str, explained: bool = True) -> None:
        differences.append(Difference(node, r, text, explained))

    for r in unmatched:
        said = f"{name}'s {r.description}"
        if r.description in _PROGRAM:
            differ(None, r, f"{name} saves {r.description} of its program ({_shown(r.value)})")
            continue
        node = _same(r.value, matched, trace)
        if node is not None:
            differ(node, r, f"{name} saves {label(node)} twice: two of its variables hold it")
            continue
        local = _same(r.value, list(locals_), trace)
        if local is not None:  # a local partial derivative, computed in the forward pass
            what, of, step, _ = locals_[local]
            again = [n for n in of if n in memory.recomputed]
            differ(
                local,
                r,
                f"{name} saves {what}, computed in the forward pass ({said}); vizad "
                f"computes it in the step of {step}"
                + (f" from {_labels(trace, of)}" if of else "")
                + (f" ({_labels(trace, again)} computed again)" if again else ""),
            )
            for n in of:
                instead.setdefault(n, []).append(what.split(" (")[0])
            continue
        found = _same_in(r.value, forward, trace)
        if found is not None:
            node, shown = found
            if isinstance(node.op, FrameworkOp):
                differ(
                    node,
                    r,
                    f"{name} saves {shown} ({node.op.name}; {said}); vizad imports "
                    f"{node.op.name} as one op whose rule is {name}'s own vjp run from the "
                    f"op's inputs ({_labels(trace, node.inputs)}), which vizad keeps instead",
                )
            elif node in memory.recomputed:
                differ(
                    node,
                    r,
                    f"{name} saves {shown} ({node.op.name}; {said}), which vizad drops after "
                    "the forward pass (not a checkpoint) and computes again",
                )
            else:
                differ(
                    node,
                    r,
                    f"{name} saves {shown} ({node.op.name}; {said}), which vizad's rules do "
                    "not read after the forward pass",
                )
            continue
        args = _arguments(r, forward, trace)
        op = r.description.removeprefix("output of ")
        if args:
            # computed in the forward pass from values vizad has: the rule's own arithmetic
            sources = [a for a in args if isinstance(a, Node)]
            shown = ", ".join(label(a) if isinstance(a, Node) else f"{a:g}" for a in args)
            if sources:
                differ(
                    None,
                    r,
                    f"{name} saves {op}({shown}), computed in the forward pass for its rule "
                    f"({said}); vizad's rules compute what they need from "
                    f"{_labels(trace, sources)} in the walkthrough",
                )
                for n in sources:
                    instead.setdefault(n, []).append(f"{op}({shown})")
            else:
                differ(None, r, f"{name} saves {op}({shown}), an array of constants its rule uses")
            continue
        inside = _wrapping(r, forward)
        if inside is not None:
            differ(
                inside,
                r,
                f"{name} saves {said} inside {label(inside)} ({inside.op.name}), which vizad "
                f"imports as one op whose rule is {name}'s own vjp run from the op's inputs "
                f"({_labels(trace, inside.inputs)}), which vizad keeps instead",
            )
            continue
        differ(
            None,
            r,
            f"{name} saves a value vizad never computes: {said}, shape {tuple(np.shape(r.value))}",
            False,
        )
    reads = _read_by_locals(locals_)
    saved_by_framework = set(matched) | {d.node for d in differences if d.node is not None}
    for node in saved:
        readers = _readers(memory, node)
        head = f"vizad keeps {label(node)} ({node.op.name})" + (
            f", read in the steps of {readers}" if readers else ""
        )
        wrapped = sorted(
            {c.op.name for c in _consumers(trace, node) if isinstance(c.op, FrameworkOp)}
        )
        if node in instead:
            text = f"{head}; {name} saves {' and '.join(dict.fromkeys(instead[node]))} instead"
        elif memory.keep is not None and (node in memory.keep or not node.inputs):
            starts = [s.label for s in memory if s.phase == "recompute" and node in s.node.inputs]
            text = f"{head}: a checkpoint, held until the walkthrough reaches it" + (
                f" (the recomputation of {', '.join(starts)} starts from it)" if starts else ""
            )
        elif wrapped:
            text = (
                f"{head}: an input of {', '.join(wrapped)}, imported as one op whose rule is "
                f"{name}'s own vjp run from the op's inputs (what {name} saves inside it is "
                "its own)"
            )
        elif node in reads:
            formulas = "; ".join(f for f, _ in reads[node])
            outputs = [c for _, c in reads[node] if c in saved_by_framework and c is not node]
            text = (
                f"{head}: vizad's rule reads it ({formulas}); {name}'s rule is written "
                "otherwise"
                + (f" and reads {_labels(trace, outputs)}, which it saves" if outputs else "")
            )
        else:
            text = f"{head}; {name} saves nothing equal to it"
            differences.append(Difference(node, None, text, False))
            continue
        differences.append(Difference(node, None, text, True))
    return SavedComparison(name, trace, memory, residuals, matches, differences)


#: What the residuals of a framework's program (not computed from the function's values) say.
_PROGRAM = ("a literal", "a constant")


def _shown(value: np.ndarray) -> str:
    value = np.asarray(value)
    return f"{value.item():g}" if value.size == 1 else f"shape {value.shape}"


def _same_in(value: np.ndarray, nodes: list[Node], trace: ReverseTrace) -> tuple[Node, str] | None:
    """The node of ``nodes`` whose value, or one element of whose tuple value, equals
    ``value``, with its name (``v₄``, ``v₄[1]``)."""
    node = _same(value, nodes, trace)
    if node is not None:
        return node, trace.label(node)
    for node in nodes:
        whole = trace.values[node] if node in trace.values else None
        if isinstance(whole, tuple):
            for k, leaf in enumerate(whole):
                if _equal(leaf, value):
                    return node, f"{trace.label(node)}[{k}]"
    return None


def _read_by_locals(locals_: dict) -> dict[Node, list[tuple[str, Node]]]:
    """Each forward value the walkthrough's local partials read: (the formula, the
    consumer whose partial it is)."""
    out: dict[Node, list[tuple[str, Node]]] = {}
    for what, of, _step, consumer in locals_.values():
        for n in of:
            out.setdefault(n, []).append((what.split(" (")[1].rstrip(")"), consumer))
    return out


def _arguments(r: Residual, forward: list[Node], trace: ReverseTrace) -> list | None:
    """The inputs ``r`` was computed from as vizad's forward values (and numbers, for the
    framework's scalar literals), when each is one; else None."""
    if not r.inputs:
        return None
    args: list = []
    for v in r.inputs:
        if np.ndim(v) == 0 and np.ndim(r.value) > 0:
            args.append(float(v))
            continue
        node = _same(v, forward, trace)
        if node is None:
            return None
        args.append(node)
    return args


def _wrapping(r: Residual, forward: list[Node]) -> Node | None:
    """The node of an op vizad imported whole (a FrameworkOp) whose backward saved ``r``,
    by the names PyTorch gives its graph's nodes (``NativeLayerNormBackward0`` of
    ``native_layer_norm``)."""
    savers = {
        re.sub(r"Backward\d*$", "", said.split(" ")[0]).lower()
        for said in r.description.split(", ")
    }
    for node in forward:
        if isinstance(node.op, FrameworkOp) and node.op.name.replace("_", "").lower() in savers:
            return node
    return None


def _count(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _labels(trace: ReverseTrace, nodes: Iterable[Node]) -> str:
    return ", ".join(trace.label(n) for n in dict.fromkeys(nodes))


def _same(value: np.ndarray, nodes: list[Node], trace: ReverseTrace) -> Node | None:
    """The first of ``nodes`` whose value in ``trace`` equals ``value``."""
    for node in nodes:
        if node in trace.values and _equal(trace.values[node], value):
            return node
    return None


def _equal(a: Any, b: Any) -> bool:
    """Same shape, and equal within float32 round-off (two libraries' tanh may differ in the
    last bit)."""
    if isinstance(a, tuple) or isinstance(b, tuple):
        return False
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape:
        return False
    if np.array_equal(a, b):
        return True
    floating = a.dtype.kind in "fc" and b.dtype.kind in "fc"
    return bool(floating and np.allclose(a, b, rtol=1e-5, atol=1e-6))


def _local_partials(trace: ReverseTrace) -> dict[Node, tuple[str, list[Node], str, Node]]:
    """Each local partial ∂vⱼ/∂vᵢ the walkthrough computes as a node of its own (not one
    that is a forward value, as mul's other factor): its text ("cos v₂ (∂v₅/∂v₂ = cos v₂)"),
    the forward values it is computed from, the step computing it, and vⱼ."""
    out: dict[Node, tuple[str, list[Node], str, Node]] = {}
    forward = set(trace.graph)
    for step in trace.steps:
        for c in step.contributions:
            node = c.local_node
            if node is None or node in out or node in forward:
                continue
            formula = latex_to_text(c.local_latex) if c.local_latex else node.op.name
            what = f"∂{trace.label(c.consumer)}/∂{step.label} = {formula}"
            reads = _forward_reads(node, forward)
            out[node] = (
                f"{formula} ({what})",
                reads,
                trace.names.bar(step.node).text,
                c.consumer,
            )
    return out


def _forward_reads(node: Node, forward: set[Node]) -> list[Node]:
    """The forward values an extension node is computed from."""
    out: dict[Node, None] = {}
    stack, seen = [node], set()
    while stack:
        n = stack.pop()
        if n in seen or n.op is CONSTANT:
            continue
        seen.add(n)
        if n in forward:
            out[n] = None
            continue
        if not n.op.shape_only:
            stack.extend(n.inputs)
    return sorted(out, key=lambda n: n.id)


def _readers(memory: Memory, node: Node) -> str:
    """The walkthrough's steps that read ``node``'s value (v̄₃, v̄₂), or "" for none."""
    steps = [
        s.label
        for s in memory
        if s.phase == "reverse" and any(h.node is node and h.role == "value" for h in s.reads)
    ]
    return ", ".join(steps)


def _consumers(trace: ReverseTrace, node: Node) -> list[Node]:
    """The forward nodes that take ``node`` as an input."""
    return [n for n in trace.graph if node in n.inputs]
