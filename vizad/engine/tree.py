"""Values that may be tuples: the one place that walks them.

A node's value is a numpy array or a (possibly nested) tuple of values; its static shape is a
tuple of ints, a :class:`TupleShape` of shapes, or None where unknown. These helpers map,
combine and measure such values leaf by leaf, like autograd's VSpace or JAX's tree_util. (A
few readers of user input recurse on a tuple's nesting on their own, such as the feed's
conversion in ``node._numeric_array``: nesting is shallow, graphs are never walked that way.)
"""

from __future__ import annotations

from typing import Any
from collections.abc import Callable

import numpy as np

__all__ = [
    "TupleShape",
    "is_tuple",
    "tree_map",
    "leaves",
    "add",
    "zeros_like",
    "ones_like",
    "inner",
    "max_abs",
    "floating_dtype",
    "random_like",
    "shape_of",
    "shapes_conflict",
    "merge_shapes",
    "as_array",
    "Unrecorded",
    "read_only",
]


class TupleShape(tuple):
    """The static shape of a tuple-valued node: one shape (or None) per element.

    Examples:
        >>> from vizad import extend
        >>> a, b = vz.Variable("a", shape=(2,)), vz.Variable("b")
        >>> vz.make_tuple(a, b).shape
        TupleShape((2,), None)
    """

    def __repr__(self) -> str:
        return "TupleShape" + tuple.__repr__(self)


class Unrecorded:
    """A value that another engine did not keep (a forward value PyTorch did not save for
    its backward pass): every view shows its ``reason`` instead of a number, and its shape
    when known. It is never computed or filled in."""

    __slots__ = ("reason", "shape")

    def __init__(self, reason: str, shape: tuple | None = None):
        self.reason, self.shape = reason, shape

    def __str__(self) -> str:
        return self.reason

    def __repr__(self) -> str:
        return f"Unrecorded({self.reason!r}, shape={self.shape})"


def is_tuple(value: Any) -> bool:
    return isinstance(value, tuple)


def tree_map(fn: Callable[..., Any], value: Any, *others: Any) -> Any:
    """``fn`` applied leaf by leaf to ``value`` (and to ``others`` of the same layout)."""
    if isinstance(value, tuple):
        return tuple(tree_map(fn, v, *(o[k] for o in others)) for k, v in enumerate(value))
    return fn(value, *others)


def leaves(value: Any) -> list[Any]:
    """The arrays of a value, depth first (one for an array); a list of values (the result
    of ``Executor.run``) is walked like a tuple."""
    if not isinstance(value, (tuple, list)):
        return [value]
    out: list[Any] = []
    for v in value:
        out.extend(leaves(v))
    return out


def add(a: Any, b: Any) -> Any:
    """a + b leaf by leaf (never tuple concatenation)."""
    if isinstance(a, tuple):
        return tuple(add(x, y) for x, y in zip(a, b))
    return a + b


def zeros_like(value: Any) -> Any:
    return tree_map(np.zeros_like, value)


def ones_like(value: Any) -> Any:
    return tree_map(np.ones_like, value)


def inner(a: Any, b: Any) -> float:
    """⟨a, b⟩ summed over every entry of every leaf, as a float64."""
    return float(
        sum(
            np.sum(np.asarray(x, dtype=np.float64) * np.asarray(y, dtype=np.float64))
            for x, y in zip(leaves(a), leaves(b))
        )
    )


def inner_abs(a: Any, b: Any) -> float:
    """Σ|aᵢ bᵢ| over every entry of every leaf: the size of the terms ⟨a, b⟩ sums (their
    rounding error, when the sum cancels)."""
    return float(
        sum(
            np.sum(np.abs(np.asarray(x, dtype=np.float64) * np.asarray(y, dtype=np.float64)))
            for x, y in zip(leaves(a), leaves(b))
        )
    )


def max_abs(value: Any) -> float:
    """The largest absolute entry over every leaf (0 for empty values)."""
    return max((float(np.max(np.abs(x), initial=0.0)) for x in leaves(value)), default=0.0)


def floating_dtype(value: Any) -> np.dtype:
    """The dtype of an array if it is floating, else float64."""
    dtype = np.asarray(value).dtype
    return dtype if dtype.kind == "f" else np.dtype(np.float64)


def random_like(value: Any, rng: np.random.Generator) -> Any:
    """Standard normal values shaped like ``value`` leaf by leaf, in each leaf's float type."""
    return tree_map(lambda v: rng.standard_normal(np.shape(v)).astype(floating_dtype(v)), value)


def shape_of(value: Any) -> Any:
    """The shape of a value: a tuple of ints, or a TupleShape for a tuple value."""
    if isinstance(value, tuple):
        return TupleShape(shape_of(v) for v in value)
    if isinstance(value, Unrecorded):
        return value.shape
    return np.shape(value)


def shapes_conflict(a: Any, b: Any) -> bool:
    """Whether two static shapes are both known and differ (None is unknown, also inside a
    TupleShape)."""
    if a is None or b is None:
        return False
    if isinstance(a, TupleShape) or isinstance(b, TupleShape):
        return (
            not isinstance(a, TupleShape)
            or not isinstance(b, TupleShape)
            or len(a) != len(b)
            or any(shapes_conflict(x, y) for x, y in zip(a, b))
        )
    return tuple(a) != tuple(b)


def merge_shapes(a: Any, b: Any) -> Any:
    """What two static shapes of one value say together: the known parts of either (None only
    where both are unknown). Shapes must not conflict (see :func:`shapes_conflict`)."""
    if a is None:
        return b
    if b is None:
        return a
    if isinstance(a, TupleShape):
        return TupleShape(merge_shapes(x, y) for x, y in zip(a, b))
    return a


def as_array(value: Any) -> Any:
    """numpy arrays leaf by leaf (Python numbers and numpy scalars become 0-d arrays; an
    Unrecorded value stays as it is)."""
    return tree_map(lambda v: v if v.__class__ is Unrecorded else np.asarray(v), value)


def read_only(value: Any) -> Any:
    """``value`` with every array leaf read-only: a writable array as a read-only view of it
    (numpy's ``writeable`` flag; the array itself is not changed, and no data is copied),
    numbers as they are. Values that vizad stores or hands out are read-only, so that a
    write into one raises instead of changing a trace or a graph behind its back."""
    return tree_map(_read_only_leaf, value)


def _read_only_leaf(value: Any) -> Any:
    if value.__class__ is np.ndarray and value.flags.writeable:
        value = value.view()
        value.flags.writeable = False
    return value
