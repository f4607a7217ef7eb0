"""Element rules: which elements of its inputs make one element of an op's output.

``trace.element(node, index)`` follows one entry of an adjoint back through the nodes that
computed it (the sum-to-shape of a broadcast, the matmul of X̄ = Z̄Wᵀ, a reshape): each op
says, for one index of its output, what that element is made of. Four kinds of answer, as
data:

- :class:`Pick`: the element is one element of one input (reshape, transpose, broadcast_to,
  expand_dims, identity);
- :class:`Reduce`: the sum of elements of one input (sum, sum_to_shape), listed in index order;
- :class:`Dot`: the sum of products of an element of each input (matmul), in index order;
- :class:`Apply`: the op applied to one element of each input (the elementwise ops, their
  broadcasting resolved); ``signs`` when the op is itself a sum (add, sub, add_n).

One rule per op class, in a table (like JAX's rule tables), looked up along the class's MRO;
the course APIs register theirs for their own classes (:func:`register_rule`). An op without
a rule has no element walkthrough: ``trace.element`` says so, naming the node and the op.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np

from vizad.engine.node import Node
from vizad.engine.ops import arithmetic, tensor
from vizad.engine.ops.elementwise import ElementwiseOp

__all__ = [
    "Pick",
    "Reduce",
    "Dot",
    "Apply",
    "Rule",
    "register_rule",
    "element_rule",
    "picked_by_compute",
    "broadcast_index",
    "matmul_pairs",
    "reduced_indices",
]

Index = tuple[int, ...]


class Pick(NamedTuple):
    """The element is ``input``'s element at ``at``."""

    input: int
    at: Index


class Reduce(NamedTuple):
    """The element is the sum of ``input``'s elements at ``at`` (in index order)."""

    input: int
    at: tuple[Index, ...]
    #: The letters of the summed axes' running indices, for a label ("i", "k").
    axes: tuple[int, ...] = ()


class Dot(NamedTuple):
    """The element is Σ in₀[a] · in₁[b] over the pairs ``at`` (in index order)."""

    at: tuple[tuple[Index, Index], ...]


class Apply(NamedTuple):
    """The element is the op of one element of each input (``at``: an index per input, None
    for an input that only lends a shape); ``signs``: the op is the sum of its inputs with
    these signs (add (1, 1), sub (1, -1), add_n), else None."""

    at: tuple[Index | None, ...]
    signs: tuple[int, ...] | None = None


Rule = Pick | Reduce | Dot | Apply
#: A rule: (node, index of its output, the values of its inputs) → what the element is made of.
RuleFunction = Callable[[Node, Index, Sequence[Any]], Rule]

_RULES: dict[type, RuleFunction] = {}


def register_rule(*classes: type) -> Callable[[RuleFunction], RuleFunction]:
    """Register the element rule of the ops of ``classes`` (and their subclasses)."""

    def put(rule: RuleFunction) -> RuleFunction:
        for cls in classes:
            _RULES[cls] = rule
        return rule

    return put


def element_rule(node: Node, index: Index, inputs: Sequence[Any]) -> Rule | None:
    """What element ``index`` of ``node``'s value is made of, given its inputs' values
    (None when its op has no element rule)."""
    for cls in type(node.op).__mro__:
        rule = _RULES.get(cls)
        if rule is not None:
            return rule(node, index, inputs)
    return None


# -- helpers the rules share ---------------------------------------------------------------
def broadcast_index(index: Index, shape: tuple[int, ...]) -> Index:
    """The element of an input of ``shape`` that numpy's broadcasting reads for output
    element ``index``: leading axes dropped, axes of length 1 read at 0."""
    lead = len(index) - len(shape)
    return tuple(0 if d == 1 else i for i, d in zip(index[lead:], shape))


def picked_by_compute(compute: Callable[..., Any], shape: tuple[int, ...], index: Index) -> Index:
    """The input element that an op moving elements (reshape, transpose, broadcast) puts at
    ``index``: found by running the op's own ``compute`` on the input's positions (0, 1, 2…
    laid out in the input's shape), so that the rule is the op's own arithmetic of indices."""
    positions = np.arange(math.prod(shape), dtype=np.int64).reshape(shape)
    moved = np.asarray(compute(positions))
    return tuple(int(i) for i in np.unravel_index(int(moved[index]), shape))


def reduced_indices(shape: tuple[int, ...], fixed: dict[int, int]) -> tuple[Index, ...]:
    """Every index of ``shape`` whose axes in ``fixed`` have the values given, in index
    (C) order: the elements a sum over the other axes adds for one output element."""
    ranges = [
        range(fixed[k], fixed[k] + 1) if k in fixed else range(d) for k, d in enumerate(shape)
    ]
    return tuple(itertools.product(*ranges))


def matmul_pairs(
    index: Index, sa: tuple[int, ...], sb: tuple[int, ...], ta: bool = False, tb: bool = False
) -> tuple[tuple[Index, Index], ...]:
    """The pairs (element of A, element of B) whose products numpy's matmul of op(A) and
    op(B) adds for output element ``index`` (op: the last two axes swapped where the flag is
    set; 1-D operands as a row and a column; leading axes broadcast), k in order."""
    a1, b1 = len(sa) == 1, len(sb) == 1
    ea = sa if a1 else (sa[:-2] + (sa[-1], sa[-2]) if ta else sa)
    n = ea[-1]
    out = list(index)
    j = None if b1 else out.pop()
    i = None if a1 else out.pop()
    batch = tuple(out)
    pairs = []
    for k in range(n):
        if a1:
            ia: Index = (k,)
        else:
            ia = broadcast_index(batch, sa[:-2]) + ((k, i) if ta else (i, k))  # type: ignore[operator]
        if b1:
            ib: Index = (k,)
        else:
            ib = broadcast_index(batch, sb[:-2]) + ((j, k) if tb else (k, j))  # type: ignore[operator]
        pairs.append((ia, ib))
    return tuple(pairs)


def _shape(value: Any) -> tuple[int, ...]:
    return tuple(np.shape(value))


# -- vizad's own ops -----------------------------------------------------------------------
_SIGNS: dict[type, Callable[[int], tuple[int, ...]]] = {
    arithmetic.Add: lambda n: (1, 1),
    arithmetic.Sub: lambda n: (1, -1),
    arithmetic.AddN: lambda n: (1,) * n,
}


@register_rule(ElementwiseOp)
def _elementwise(node: Node, index: Index, inputs: Sequence[Any]) -> Rule:
    at = tuple(broadcast_index(index, _shape(v)) for v in inputs)
    signs = _SIGNS.get(type(node.op))
    return Apply(at, signs(len(inputs)) if signs is not None else None)


@register_rule(arithmetic.Identity)
def _identity(node: Node, index: Index, inputs: Sequence[Any]) -> Rule:
    return Pick(0, index)


@register_rule(tensor.BroadcastTo, tensor.Reshape, tensor.Transpose, tensor.ExpandDims)
def _moved(node: Node, index: Index, inputs: Sequence[Any]) -> Rule:
    compute, rest = node.op.bind(node), inputs[1:]
    return Pick(0, picked_by_compute(lambda a: compute(a, *rest), _shape(inputs[0]), index))


@register_rule(tensor.SumToShape)
def _sum_to_shape(node: Node, index: Index, inputs: Sequence[Any]) -> Rule:
    g = _shape(inputs[0])
    target = _shape(inputs[1]) if len(inputs) > 1 else tuple(node.attrs["shape"])
    lead = len(g) - len(target)
    fixed = {
        lead + k: i
        for k, (i, d) in enumerate(zip(index, target))
        if not (d == 1 and g[lead + k] != 1)
    }
    summed = tuple(k for k in range(len(g)) if k not in fixed)
    return Reduce(0, reduced_indices(g, fixed), summed)


@register_rule(tensor.Sum)
def _sum(node: Node, index: Index, inputs: Sequence[Any]) -> Rule:
    s = _shape(inputs[0])
    axes = tensor.normalize_axes(node.attrs.get("axis"), len(s), s, "sum")
    return Reduce(0, reduced_indices(s, _kept(index, s, axes, node.attrs.get("keepdims"))), axes)


def _kept(index: Index, shape: tuple[int, ...], axes: Sequence[int], keepdims: Any) -> dict:
    """The input axes a reduction over ``axes`` keeps, with their values in output element
    ``index``."""
    kept = [k for k in range(len(shape)) if k not in axes]
    values = [index[k] for k in kept] if keepdims else list(index)
    return dict(zip(kept, values))


@register_rule(tensor.MatMul)
def _matmul(node: Node, index: Index, inputs: Sequence[Any]) -> Rule:
    a, b = inputs
    attrs = node.attrs
    return Dot(matmul_pairs(index, _shape(a), _shape(b), attrs["trans_a"], attrs["trans_b"]))
