"""Reverse mode on values: the gradients of an eager graph without building its adjoint graph.

``y.backward()`` runs here, as PyTorch's does: no graph of the backward pass unless asked.
It walks the numeric tape: the nodes that require a gradient, in reverse creation order (no
ranking). For every node, its adjoint v̄ᵢ is the sum of the partial adjoints v̄ᵢ→ⱼ that its
consumers passed back, and each partial adjoint is computed by the op's own rule on values: an
elementwise op's local partials ∂vⱼ/∂vᵢ (recorded on values as the op computed, or worked out
from its ``partials``) times v̄ⱼ, summed back to the input's shape where broadcasting
happened; any other op's ``vjp`` applied to an eager seed, for the inputs that need a
gradient only. The products, sums and reductions are the ops' own ``compute``, the functions
that the adjoint graph's nodes run, and :func:`vizad.gradients` sums partial adjoints in the
same reverse creation order, so the numbers are the same bit for bit.

No adjoint node, record or name is made. A leaf's ``.grad`` is a :class:`LazyGrad`: its value
is there at once, and the adjoint node it stands for is built from the forward graph the moment
it is used as a node (in an op, ``backward()``, a trace or a drawing, ``.origin``), as long as
the output that was differentiated is alive; otherwise it is a constant, as in PyTorch.
``backward(create_graph=True)`` builds the adjoint graph at once.
"""

from __future__ import annotations

import warnings
import weakref
from functools import partial
from typing import Any

import numpy as np

from vizad.engine.eager import ATTACHED, SWAPPED, EagerNode, LazyGrad
from vizad.errors import GraphError
from vizad.engine.graph import ranked_order
from vizad.engine.node import Node
from vizad.engine.op import CONSTANT, VARIABLE, constant_value, registry
from vizad.engine.ops import add
from vizad.engine.ops.arithmetic import _ONES_2
from vizad.engine.ops.elementwise import MINUS_ONE, ONE, ElementwiseOp, Symbolic, local_partials
from vizad.engine.reverse import gradients, local_adjoints, seed_node
from vizad.engine.tree import add as tree_add

__all__ = ["adjoint_values", "backward"]

#: The ops' own functions, which the adjoint graph's nodes would run.
_ADD = add.compute
_SUM_TO_SHAPE = registry()["sum_to_shape"].compute


def _value(node: Node) -> Any:
    """The value of a node of an eager graph: an eager node's own, a constant's."""
    return constant_value(node) if node.__class__ is Node else node._value


def adjoint_values(y: EagerNode, cotangent: Any = None, every: bool = False) -> dict:
    """{node: v̄} for the nodes of the eager graph of ``y`` that require a gradient: the
    leaves only, or ``every`` node (micrograd's ``backward`` sets every node's grad).

    The numeric tape is creation order itself: a node's id is its place on the tape (every
    node is made after its inputs, so reading the places backwards is a reverse topological
    order, with nothing to find or sort). The walk reads the tape backwards from ``y``,
    stopping at the places where a node waits for its adjoint; each adds v̄ⱼ times its recorded
    local partials (or its vjp on values) to its inputs' running sums, in the order
    :func:`vizad.gradients`' add_n sums them."""
    seed = _value(seed_node(y, cotangent))
    if seed.__class__ is np.ndarray and not seed.shape and y._value.__class__ is not np.ndarray:
        seed = seed[()]  # a scalar output's: numpy scalars cost a fifth of 0-d arrays
    adjoints = {y: seed}  # the sums so far: add_n's left fold, one partial adjoint at a time
    result = {}
    place = y._id
    waiting = {place: y}  # {place on the tape: the node there, whose adjoint is being summed}
    pop, get, wait = adjoints.pop, adjoints.get, waiting.pop
    skipped = 0
    while waiting:
        node = wait(place, None)
        if node is None:  # a place of a node that is not waiting (a constant, another graph's)
            place -= 1
            skipped += 1
            if skipped > _SKIP:  # a long stretch of other nodes: go to the next waiting one
                place, skipped = _next_place(waiting, place), 0
            continue
        place -= 1
        skipped = 0
        adjoint = pop(node)
        inputs = node._inputs
        if not inputs:
            result[node] = adjoint
            continue
        if every:
            result[node] = adjoint
        partials = node._partials
        if partials is SWAPPED or partials is _ONES_2:  # hot: a product or a sum of two
            # v̄ᵢ→ⱼ = v̄ⱼ·b for a of a·b (v̄ⱼ·a for b), v̄ⱼ for a and b of a + b: no dispatch
            a, b = inputs
            shape = node._shape
            if a.__class__ is not Node and a._requires_grad:
                if partials is _ONES_2:
                    part = adjoint
                else:
                    part = adjoint * (b._value if b.__class__ is not Node else constant_value(b))
                if a._shape != shape:  # broadcast: sum_to_shape's function
                    part = _SUM_TO_SHAPE(part, shape=a._shape)
                total = get(a)
                if total is None:
                    adjoints[a] = part
                    waiting[a._id] = a
                else:
                    adjoints[a] = total + part  # add_n's compute on arrays
            if b.__class__ is not Node and b._requires_grad:
                if partials is _ONES_2:
                    part = adjoint
                else:
                    part = adjoint * (a._value if a.__class__ is not Node else constant_value(a))
                if b._shape != shape:
                    part = _SUM_TO_SHAPE(part, shape=b._shape)
                total = get(b)
                if total is None:
                    adjoints[b] = part
                    waiting[b._id] = b
                else:
                    adjoints[b] = total + part
            continue
        if partials is None:
            partials = _partials(node)
            if partials is None:  # an op that writes its own vjp
                _pass_back(node, adjoint, adjoints, waiting)
                continue
        shape = node._shape
        for x, p in zip(inputs, partials):
            if x.__class__ is Node or not x._requires_grad:  # a constant, or no gradient
                continue
            if p.__class__ is Symbolic:
                if p is ONE or (p is not MINUS_ONE and p == 1):
                    part = adjoint
                elif p is MINUS_ONE or p == -1:
                    part = -adjoint  # neg's compute
                else:  # zero: no contribution
                    continue
            else:
                part = adjoint * p  # mul's compute
            if x._shape != shape:  # broadcast: sum_to_shape's function
                part = _SUM_TO_SHAPE(part, shape=x._shape)
            total = get(x)
            if total is None:
                adjoints[x] = part
                waiting[x._id] = x
            elif total.__class__ is tuple:
                adjoints[x] = tree_add(total, part)
            else:
                adjoints[x] = total + part  # add_n's compute (tree.add) on arrays
    return result


#: How many places of other nodes the backward walk reads one by one before it looks up the
#: next waiting place (a graph built long after its leaves, or among other graphs' nodes).
_SKIP = 64


def _next_place(waiting: dict, place: int) -> int:
    """The next place the backward walk stops at: the latest of the ``waiting`` ones."""
    latest = max(waiting)
    if latest > place:  # an input made after its consumer: internals were tampered with
        raise GraphError(
            f"backward(): {waiting[latest].describe()} is an input of a node made before it "
            "(the graph's internals were changed); build the graph again"
        )
    return latest


def _partials(node: Node) -> Any:
    """The local partials on values of an elementwise ``node`` whose op did not record them
    as it computed (ZERO, ONE, MINUS_ONE as they are); None for an op with a vjp of its own."""
    op = node._operation
    if not isinstance(op, ElementwiseOp):
        return None
    late = op._partial_values
    if late is not None:  # vizad's own: on values, unless it fails (then as nodes, for the error)
        try:
            return late(node._value, [_value(x) for x in node._inputs], node._attrs)
        except Exception:
            pass
    partials = op.partials(node) if op._builtin else local_partials(op, node)
    return [p if p.__class__ is Symbolic else _value(p) for p in partials]


def _pass_back(node: Node, adjoint: Any, adjoints: dict, waiting: dict) -> None:
    """Add the partial adjoints that ``node`` (of an op that writes its own ``vjp``) passes
    to each input needing one to the adjoints' running sums (in the order the adjoint
    graph's add_n would sum them)."""
    seed = EagerNode._leaf(CONSTANT, {"value": adjoint}, adjoint, None, False)
    inputs = node._inputs
    needed = [x.__class__ is not Node and x._requires_grad for x in inputs]
    for x, g in zip(inputs, local_adjoints(node, seed, needed)):
        if g is not None and x.__class__ is not Node and x._requires_grad:
            part = _value(g)
            total = adjoints.get(x)
            if total is None:
                adjoints[x] = part
                waiting[x._id] = x
            else:
                adjoints[x] = tree_add(total, part)


class _Pass:
    """One numeric backward pass, for the lazy gradients it gave: what to differentiate when
    one of them is used as a node (``y`` by weak reference: a gradient does not keep the
    graph alive, and no reference cycle runs through the leaves)."""

    __slots__ = ("_output", "cotangent", "leaves", "_nodes")

    def __init__(self, y: EagerNode, cotangent: Any, leaves: list):
        self._output = weakref.ref(y)
        self.cotangent = cotangent
        self.leaves = [weakref.ref(x) for x in leaves]
        self._nodes = None

    def node(self, k: int) -> Node | None:
        """The adjoint node of leaf ``k`` (the graph extension, built once for the pass), or
        None when the output or the leaf is gone."""
        if self._nodes is None:
            y = self._output()
            leaves = [ref() for ref in self.leaves]
            if y is None or any(x is None for x in leaves):
                return None
            self._nodes = gradients(y, leaves, self.cotangent)
        return self._nodes[k]


def backward(node: EagerNode, cotangent: Any = None, *, create_graph: bool = False) -> None:
    """Add d(node)/d(leaf) to ``.grad`` of every ``requires_grad`` leaf that the eager ``node``
    depends on: computed on values (see the module's docs), or, with ``create_graph``, as
    nodes of the extended graph at once (differentiable again).

    ``cotangent`` is v̄ of the node (default ones: the gradient of the sum of its entries).
    Called as ``node.backward()`` (:meth:`vizad.engine.eager.EagerNode.backward`)."""
    if not node._requires_grad:
        raise GraphError(
            f"backward() of {node.describe()}: it does not depend on any leaf that "
            "requires a gradient (vz.tensor(..., requires_grad=True))"
        )
    if create_graph:
        warnings.warn(
            f"backward(create_graph=True) of {node.describe()}: each leaf's .grad is now a "
            "node of a graph that holds the leaf, a reference cycle that only the garbage "
            "collector frees (as in PyTorch); use vz.gradients(y, leaves) to get gradient "
            "nodes without storing them in the leaves",
            UserWarning,
            stacklevel=3,  # the line calling EagerNode.backward
        )
        leaves = _leaves(ranked_order(node))
        for leaf, g in zip(leaves, gradients(node, leaves, cotangent)):
            leaf._grad = g if leaf._grad is None else leaf._grad + g
        return
    values = adjoint_values(node, cotangent)
    leaves = [x for x in values if x._operation is VARIABLE]
    done = _Pass(node, cotangent, leaves)
    for k, leaf in enumerate(leaves):
        grad = _lazy(values[leaf], partial(done.node, k))
        leaf._grad = grad if leaf._grad is None else _accumulated(leaf._grad, grad)


def _lazy(value: Any, resolve) -> LazyGrad:
    """A lazy gradient holding ``value``, standing for the node ``resolve()`` builds."""
    grad = LazyGrad._leaf(CONSTANT, {"value": value}, value, None, False)
    grad._resolve, grad._real = resolve, None
    return grad


def _accumulated(old: EagerNode, new: LazyGrad) -> LazyGrad:
    """``old + new`` as ``.grad`` accumulates over backward calls (the add op's own sum; its
    node is add(old, new) of the nodes they stand for, as with create_graph)."""
    return _lazy(_ADD(_value(old), new._value), lambda: add(old, new))


def _leaves(order: list) -> list:
    """The ``requires_grad`` leaves of an eager graph, in its display order ``order``."""
    return [
        n
        for n in order
        if n.__class__ is not Node and n._operation is VARIABLE and n._requires_grad
    ]


# An eager node's backward() is reverse mode on its values.
ATTACHED["backward"] = backward
