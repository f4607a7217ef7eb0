"""Copies of the mutable nodes of other engines' APIs (micrograd's ``Value``, needle's
``Tensor``).

A vizad node never changes, so a copy of one is the node itself. A micrograd Value or a needle
Tensor does change (``data``, ``grad``, ``label``, ``cached_data`` are set by their users), so
``copy.deepcopy`` of one (or of a model holding them, such as micrograd's ``MLP``) must be a
copy, as in micrograd and PyTorch: here a copy of the whole graph it was computed from (values
and gradients copied, each shared node copied once), made without recursion on the graph's
depth. ``copy.copy`` makes one new node that shares the inputs of the original.
"""

from __future__ import annotations

import copy
from typing import Any

from vizad.engine.eager import EagerNode
from vizad.engine.graph import topo_sort
from vizad.engine.node import Node

__all__ = ["copy_node", "deepcopy_graph"]


def copy_node(node: EagerNode) -> EagerNode:
    """A new node of the same class with the fields of ``node`` (its inputs shared)."""
    return _made_like(node, node._inputs, dict(node._attrs), node._value, node._grad)


def deepcopy_graph(node: EagerNode, memo: dict[int, Any]) -> EagerNode:
    """A copy of ``node`` and of every mutable node it was computed from (what ``memo``, the
    memo of ``copy.deepcopy``, already holds is reused; immutable vizad nodes are shared)."""
    keep = memo.setdefault(id(memo), [])  # copy's convention: the originals stay alive
    order = topo_sort(node)
    for original in order:
        if id(original) in memo:
            continue
        if not isinstance(original, EagerNode):  # an immutable node: it is its own copy
            memo[id(original)] = original
            continue
        made = _made_like(
            original,
            tuple(memo[id(x)] for x in original._inputs),
            copy.deepcopy(dict(original._attrs), memo),
            copy.deepcopy(original._value, memo),
            None,
        )
        memo[id(original)] = made
        keep.append(original)
    for original in order:  # gradients last: they are graphs of their own
        made = memo[id(original)]
        if isinstance(original, EagerNode) and made is not original:
            made._grad = copy.deepcopy(original._grad, memo)
    return memo[id(node)]


def _made_like(original: EagerNode, inputs: tuple, attrs: dict, value: Any, grad: Any):
    made = object.__new__(type(original))
    Node.__init__(made, original._operation, inputs, attrs, original._name, original._shape)
    made._scope = original._scope
    made._value = value
    made._grad = grad
    made._requires_grad = original._requires_grad
    return made
