"""Elementwise ops: the protocol of an op that states only its local partial derivatives.

An elementwise op says how to compute its value and what its local partial derivatives
∂v/∂xᵢ are, as graph nodes (or the symbolic :data:`ZERO`, :data:`ONE`, :data:`MINUS_ONE`);
its vjp and jvp follow from them (:mod:`vizad.engine.ops.derivation`). Broadcasting follows numpy.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from vizad.errors import GraphError, RuleNotDefinedError, ShapeError
from vizad.engine.node import Node, static_shape
from vizad.engine.op import Op, tuples_refused
from vizad.engine.tree import TupleShape
from vizad.engine.ops.types import ArrayValue, StaticShape

__all__ = [
    "ElementwiseOp",
    "Symbolic",
    "ZERO",
    "ONE",
    "MINUS_ONE",
    "broadcast_shapes",
    "reduce_target",
    "local_partials",
]


class Symbolic(float):
    """A local partial derivative that is a known constant: :data:`ZERO`, :data:`ONE` or
    :data:`MINUS_ONE`. No node is built for it: a partial adjoint v̄ⱼ × 1 is an identity node,
    v̄ⱼ × (−1) a negation, and v̄ⱼ × 0 no contribution at all.

    Examples:
        >>> from vizad import extend
        >>> from vizad.engine.ops.elementwise import ONE
        >>> isinstance(ONE, extend.Symbolic), extend.times(vz.Variable("v"), ONE).op.name
        (True, 'identity')
    """

    def __repr__(self) -> str:
        return {0.0: "vz.extend.ZERO", 1.0: "vz.extend.ONE", -1.0: "vz.extend.MINUS_ONE"}[
            float(self)
        ]


#: ∂v/∂x = 0 (no contribution), 1 (the adjoint passes through) and −1 (it is negated).
ZERO, ONE, MINUS_ONE = Symbolic(0), Symbolic(1), Symbolic(-1)
_SYMBOLIC: dict[float, Symbolic] = {0: ZERO, 1: ONE, -1: MINUS_ONE}


def broadcast_shapes(*shapes: Any) -> Any:
    """numpy's broadcasting rule on static shapes; None if any is unknown.

    Examples:
        >>> from vizad import extend
        >>> extend.broadcast_shapes((3, 1), (2,)), extend.broadcast_shapes((3,), None)
        ((3, 2), None)
    """
    result: tuple = ()
    for shape in shapes:
        if shape is None:
            return None
        if shape == result or not shape:
            continue
        if not result:
            result = shape
            continue
        longer, shorter = (result, shape) if len(result) >= len(shape) else (shape, result)
        pad = (1,) * (len(longer) - len(shorter)) + tuple(shorter)
        dims = []
        for a, b in zip(longer, pad):
            if a != b and a != 1 and b != 1:
                raise ShapeError(f"shapes {tuple(result)} and {tuple(shape)} do not broadcast")
            dims.append(b if a == 1 else a)
        result = tuple(dims)
    return result


def reduce_target(node: Node) -> Any:
    """What ``sum_to_shape``/``broadcast_to``/``reshape`` should aim for to match ``node``:
    its static shape when known, else the node itself (its value's shape, read at run time).

    Examples:
        >>> from vizad import extend
        >>> x, z = vz.Variable("x", shape=(2,)), vz.Variable("z")
        >>> extend.reduce_target(x), extend.reduce_target(z)
        ((2,), <Node z>)
    """
    shape = static_shape(node)
    return node if shape is None or isinstance(shape, TupleShape) else shape


class ElementwiseOp(Op):
    """An op applied element by element, broadcasting its inputs like numpy.

    Subclasses define ``compute`` and ``partials`` (∂v/∂xᵢ as graph nodes, or the symbolic
    :data:`ZERO`, :data:`ONE`, :data:`MINUS_ONE`); ``vjp`` (v̄ᵢ→ⱼ = v̄ⱼ ∂vⱼ/∂vᵢ, summed back to
    each input's shape) and ``jvp`` (v̇ⱼ = Σᵢ v̇ᵢ ∂vⱼ/∂vᵢ) follow from them, so a subclass that
    defines ``vjp`` or ``jvp`` is refused: subclass :class:`Op` to write the rules yourself.
    (The two derived rules build mul, add_n and sum_to_shape nodes, ops that are themselves
    elementwise: they are defined, and set on this class, in :mod:`vizad.engine.ops.derivation`.)

    Examples:
        >>> from vizad import extend
        >>> class Cube(extend.ElementwiseOp):
        ...     def compute(self, x):
        ...         return x ** 3
        ...     def partials(self, node):
        ...         (x,) = node.inputs
        ...         return [3.0 * x * x]
        ...
        >>> x = vz.Variable("x", shape=(2,))
        >>> (g,) = vz.gradients(Cube()(x), [x])
        >>> vz.evaluate(g, {x: np.array([1.0, 2.0])})
        array([ 3., 12.])
    """

    #: False for ops whose inputs all have the output's shape (add_n): nothing to reduce.
    broadcasting: bool = True

    #: vizad's own ops: ``_partial_values(value, values, attrs)``, the local partials on
    #: values (or ZERO, ONE, MINUS_ONE), one per input, computed by the very functions that
    #: the nodes of ``partials`` run, so the numbers are the same bits. None: ``backward()``
    #: evaluates ``partials`` on the eager nodes instead.
    _partial_values: (
        Callable[[ArrayValue, Sequence[ArrayValue], Mapping[str, Any]], Sequence[ArrayValue]] | None
    ) = None
    #: Whether an eager op records its ``_partial_values`` as it computes (the numeric tape
    #: that ``backward()`` walks): for partials that cost nothing or cannot warn (1/x at 0
    #: would warn at the forward pass, where no gradient was asked for); the others are
    #: computed from the values at backward time.
    _partials_now = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # inputs of one array shape give that shape (ElementwiseOp's infer_shape and the
        # unary ops'), so an eager call on them needs no inference: vizad's own ops only
        cls._same_shape = cls._builtin
        for rule in ("vjp", "jvp"):
            if rule in cls.__dict__:
                raise GraphError(
                    f"{cls.__name__} defines {rule}, but an ElementwiseOp derives vjp and jvp "
                    "from its partials (which the walkthroughs show as ∂vⱼ/∂vᵢ): define "
                    f"partials(node) instead, or subclass vz.Op to write {rule} yourself"
                )

    def partials(self, node: Node) -> Sequence[Node | Symbolic]:
        """The local partial derivatives ∂node/∂input as graph nodes (or ZERO, ONE,
        MINUS_ONE), one per input."""
        raise RuleNotDefinedError(f"op {self.name!r} defines no partials")

    def infer_shape(self, shapes: Sequence[Any], attrs: Mapping[str, Any]) -> StaticShape:
        first = shapes[0] if shapes else ()
        kind = first.__class__
        if kind is tuple or first is None:  # hot: inputs of one array shape, or all unknown
            for s in shapes:
                if s.__class__ is not kind or s != first:
                    break
            else:
                return first
        if any(isinstance(s, TupleShape) for s in shapes):
            raise tuples_refused(self.name)
        return broadcast_shapes(*shapes)


def local_partials(op: ElementwiseOp, node: Node) -> list[Node | Symbolic]:
    """The partials of elementwise ``op`` at ``node``, checked: one per input, each a Node or
    a Symbolic (plain 0, 1 and −1 are read as ZERO, ONE and MINUS_ONE).

    Examples:
        >>> from vizad import extend
        >>> x = vz.Variable("x")
        >>> y = vz.sin(x)
        >>> (cos_x,) = extend.local_partials(y.op, y)
        >>> vz.evaluate(cos_x, {x: 0.0})
        array(1.)
    """
    if op._builtin:  # vizad's own ops state their partials right
        return list(op.partials(node))
    result = list(op.partials(node))
    if len(result) != len(node.inputs):
        raise GraphError(
            f"partials of op {op.name!r} at {node.describe()} gave {len(result)} "
            f"partial(s) for {len(node.inputs)} input(s)"
        )
    for k, p in enumerate(result):
        if p.__class__ is Symbolic or isinstance(p, Node):
            continue
        if isinstance(p, (int, float)) and p in _SYMBOLIC:
            result[k] = _SYMBOLIC[p]
        else:
            raise GraphError(
                f"partials of op {op.name!r} at {node.describe()} gave a "
                f"{type(p).__name__} for input {k}; expected a Node or "
                "vz.extend.ZERO / ONE / MINUS_ONE"
            )
    return result
