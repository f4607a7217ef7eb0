"""Nodes of the computational graph.

A :class:`Node` is an immutable record: the op that computes it, its inputs (a tuple: ``a * a``
has two edges), the op's attributes, an optional name, an id from a counter (creation order,
never ``id()``), and its static shape when it is known at build time (``None`` otherwise).
Nodes hash by identity. Leaves are Variables (fed at run time) and constants.
"""

from __future__ import annotations

import contextvars
import itertools
import numbers
from contextlib import contextmanager
from operator import attrgetter
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, NamedTuple
from collections.abc import Iterator, Mapping

import numpy as np

from ._gc import gc_paused
from .errors import FeedError, GraphError, NodeTypeError, ShapeError
from .text import printable
from .tree import TupleShape, shape_of, shapes_conflict

if TYPE_CHECKING:  # pragma: no cover
    from .op import Op

__all__ = [
    "Node",
    "Variable",
    "constant",
    "as_node",
    "static_shape",
    "shape_of",
    "TupleShape",
    "shapes_conflict",
    "extending",
    "scope",
]

Shape = tuple  # a tuple of ints; None where unknown

_ids = itertools.count(1)
_EMPTY: Mapping[str, Any] = MappingProxyType({})

_NUMERIC_KINDS = frozenset("biufc")
_PYTHON_NUMBERS = frozenset({float, int, bool})
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


class _Extension(NamedTuple):
    #: The record (an ``Adjoints`` or ``Tangents``) whose construction is creating nodes.
    record: Any
    #: Shapes known from an evaluation, read by :func:`static_shape` while building.
    hints: Mapping[Node, Any] | None


_EXTENSION: contextvars.ContextVar = contextvars.ContextVar("vizad_extension", default=None)
_get_extension = _EXTENSION.get


@contextmanager
def extending(record: Any, shapes: Mapping[Node, Any] | None = None) -> Iterator[None]:
    """The state of one graph extension: nodes built inside belong to ``record``
    (``node.origin``) and :func:`static_shape` sees ``shapes``; the cyclic GC is paused while
    the many new nodes are built."""
    token = _EXTENSION.set(_Extension(record, shapes))
    try:
        with gc_paused():
            yield
    finally:
        _EXTENSION.reset(token)


_SCOPE: contextvars.ContextVar = contextvars.ContextVar("vizad_scope", default=())
_get_scope = _SCOPE.get


@contextmanager
def scope(name: str) -> Iterator[tuple[str, ...]]:
    """Group the nodes built inside: ``with vz.scope("layer1"): ...``. Scopes nest; each node
    keeps the path of scopes it was built in (``node.scope``), and drawings draw a scope as a
    cluster that ``collapse=`` can fold into one box, like TensorBoard's name scopes."""
    if not isinstance(name, str) or not name.strip():
        raise NodeTypeError(f"scope: the name must be a non-empty string, got {name!r:.40}")
    token = _SCOPE.set((*_SCOPE.get(), name))
    try:
        yield _SCOPE.get()
    finally:
        _SCOPE.reset(token)


class Node:
    """One value of the computational graph: ``op(*inputs, **attrs)``.

    Build nodes with ops (``vz.sin(x)``) or operators (``x * y + 2``), never directly.
    """

    __slots__ = (
        "_operation",
        "_inputs",
        "_attrs",
        "_name",
        "_id",
        "_shape",
        "_origin",
        "_scope",
        "__weakref__",  # extension records refer to the nodes they made weakly
    )

    # numpy defers to Node's reflected operators (np.float64(2) * x builds a Node).
    __array_ufunc__ = None

    def __init__(
        self,
        op: Op,
        inputs: tuple[Node, ...] = (),
        attrs: Mapping[str, Any] | None = None,
        name: str | None = None,
        shape: Shape | None = None,
    ):
        # ``attrs`` is owned by the node from here on (ops pass a fresh ``**attrs`` dict).
        self._operation = op
        self._inputs = inputs
        self._attrs = MappingProxyType(attrs) if attrs else _EMPTY
        self._name = name
        self._id = next(_ids)
        self._shape = shape
        extension = _get_extension()
        self._origin = extension.record if extension is not None else None
        self._scope = _get_scope()

    # Read-only fields: a node never changes after it is built.
    op = property(attrgetter("_operation"), doc="The op that computes this node.")
    inputs = property(attrgetter("_inputs"), doc="The input nodes, in order (a tuple).")
    attrs = property(attrgetter("_attrs"), doc="The op's attributes (read-only mapping).")
    name = property(attrgetter("_name"), doc="The name given by the user, or None.")
    id = property(attrgetter("_id"), doc="Creation number: unique, increasing, deterministic.")
    shape = property(attrgetter("_shape"), doc="The static shape, or None when unknown.")
    origin = property(
        attrgetter("_origin"), doc="The Adjoints/Tangents record whose construction made this node."
    )
    scope = property(
        attrgetter("_scope"), doc="The path of vz.scope() blocks it was built in (a tuple)."
    )

    # -- display -------------------------------------------------------------------------
    def _small_constant(self) -> bool:
        return self.op is _ops.CONSTANT and self.attrs["value"].size <= 4

    def _short(self, depth: int = 1) -> str:
        """A short name: the node's name, a small constant's value, or its expression nested
        ``depth`` levels deep (deeper inputs are "…"): never an internal id."""
        if self.name is not None:
            return self.name
        if self._small_constant() or depth > 0:
            return self._expression(depth)
        return "…"

    def _expression(self, depth: int = 3) -> str:
        """``sub(add(log(x1), mul(x1, x2)), sin(x2))``: the op and its inputs, nested ``depth``
        levels (bounded: never recursive on the graph's depth)."""
        if self._small_constant():
            return np.array2string(self.attrs["value"], separator=", ").replace("\n", "")
        if self.op is _ops.CONSTANT:
            return f"constant{self.shape}"
        return f"{self.op.name}({', '.join(i._short(depth - 1) for i in self.inputs)})"

    def _describe(self) -> str:
        """``node #7 mul(x1, x2)``: used in error messages."""
        if not self.inputs and self.name is not None:
            return f"node #{self.id} {self.op.name} {self.name!r}"
        label = f" {self.name!r}" if self.name is not None else ""
        return f"node #{self.id}{label} {self._expression()}"

    def __str__(self) -> str:
        return self.name if self.name is not None else self._expression()

    def __repr__(self) -> str:
        shape = "" if self.shape is None else f" shape={self.shape}"
        return f"<Node {self}{shape}>"

    # -- operators -----------------------------------------------------------------------
    def __add__(self, other):
        return _ops.add(self, other)

    def __radd__(self, other):
        return _ops.add(other, self)

    def __sub__(self, other):
        return _ops.sub(self, other)

    def __rsub__(self, other):
        return _ops.sub(other, self)

    def __mul__(self, other):
        return _ops.mul(self, other)

    def __rmul__(self, other):
        return _ops.mul(other, self)

    def __truediv__(self, other):
        return _ops.div(self, other)

    def __rtruediv__(self, other):
        return _ops.div(other, self)

    def __pow__(self, other):
        return _ops.power(self, other)

    def __matmul__(self, other):
        return _ops.matmul(self, other)

    def __rmatmul__(self, other):
        return _ops.matmul(other, self)

    def __neg__(self):
        return _ops.neg(self)

    def __pos__(self):
        return self

    def __rpow__(self, other):
        raise NodeTypeError(
            f"{other!r} ** node: only constant exponents are supported (node ** p); "
            f"write exp(log(base) * node) for a node exponent"
        )

    def __bool__(self):
        return True

    # A node never changes: a copy is the node itself (a copy with a new id would be a
    # different Variable that no feed dict names).
    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def __reduce_ex__(self, protocol):
        raise TypeError(
            f"vizad nodes cannot be pickled ({self._describe()}): a graph holds ops and "
            "closures of the running process; rebuild it in the other process from the code "
            "that built it, and send the values (numpy arrays pickle)"
        )

    def __iter__(self):
        raise NodeTypeError(
            f"{self._describe()} is not iterable; "
            "use vz.tuple_get(t, i) to read an element of a tuple value"
        )

    def __getitem__(self, index):
        if isinstance(index, int):
            return _ops.tuple_get(self, index)
        raise NodeTypeError(
            f"{self._describe()}: only integer indexing of tuple values is supported"
        )


def _numeric_array(value: Any, what: str, error=FeedError) -> np.ndarray | tuple:
    """``value`` as a numpy array (or tuple of arrays), or a clear error naming ``what``."""
    if isinstance(value, tuple):
        return tuple(_numeric_array(v, what, error) for v in value)
    if isinstance(value, np.ma.MaskedArray):
        raise error(
            f"{what}: a masked array would lose its mask; pass value.filled(fill) or "
            "value.compressed() instead"
        )
    try:
        array = np.asarray(value)
    except Exception as exc:  # ragged lists and the like
        raise error(
            f"{what}: cannot make a numeric array of {type(value).__name__} "
            f"value {value!r:.60}: {exc}"
        ) from None
    if array.dtype.kind not in _NUMERIC_KINDS:
        raise error(
            f"{what}: expected a number or numeric array, got "
            f"{type(value).__name__} {value!r:.60} (dtype {array.dtype})"
        )
    return array


def Variable(name: str, shape: Shape | None = None) -> Node:
    """An input of the graph, fed at run time. ``shape=None`` means any shape."""
    if not isinstance(name, str):
        raise NodeTypeError(f"Variable name must be a str, got {type(name).__name__} {name!r}")
    if shape is not None:
        shape = _as_shape(shape, f"Variable {name!r}")
    name = printable(name)  # what XML, DOT and UTF-8 cannot carry, as visible escapes
    return Node(_ops.VARIABLE, (), {"shape": shape}, name=name, shape=shape)


def constant(value: Any, name: str | None = None) -> Node:
    """A constant node holding a (read-only copy of a) numeric value.

    A Python number is *weakly typed*, as in NumPy 2 and JAX: ``x * 2.0`` keeps the float type
    of ``x`` (float32 stays float32) and ``x + 1`` keeps an integer type. A numpy scalar or
    array keeps its own dtype and takes part in type promotion as numpy says.
    """
    if name is not None and not isinstance(name, str):
        raise NodeTypeError(f"constant: name must be a str, got {type(name).__name__}")
    if name is not None:
        name = printable(name)
    if type(value) in _PYTHON_NUMBERS:  # the common case: a literal in an expression
        if type(value) is int and not _INT64_MIN <= value <= _INT64_MAX:
            shown = f"{str(value)[:12]}…" if len(str(value)) > 16 else str(value)
            raise GraphError(
                f"constant {shown} ({len(str(abs(value)))} digits): integers beyond 64 bits "
                "are not supported; write it as a float if that is what you mean"
            )
        array = _weak_array(value)
        attrs = {"value": array, "weak": True}
    else:
        array = _numeric_array(value, f"constant {name!r}" if name else "constant", GraphError)
        if isinstance(array, tuple):
            raise GraphError("constant: tuple values are built with vz.make_tuple")
        array = array.copy()
        array.setflags(write=False)
        attrs = {"value": array}
    return Node(_ops.CONSTANT, (), attrs, name=name, shape=array.shape)


_WEAK_ARRAYS: dict[tuple[type, Any], np.ndarray] = {}


def _weak_array(value: int | float | bool) -> np.ndarray:
    """The read-only array of a Python number, shared by the constants of that number (a
    literal such as the 1 of tanh's partial 1 − v² is made again and again). Zeros and NaNs
    are not shared: 0.0 == -0.0 and nan != nan would mix up their keys."""
    shared = value and value == value
    key = (value.__class__, value)
    array = _WEAK_ARRAYS.get(key) if shared else None
    if array is None:
        array = np.array(value)
        array.setflags(write=False)
        if shared and len(_WEAK_ARRAYS) < 1024:  # literals of a program: a bounded few
            _WEAK_ARRAYS[key] = array
    return array


def constant_value(node: Node) -> Any:
    """The value a constant node gives: its array, or for a weakly typed Python number the
    number itself (so that numpy keeps the other operand's dtype)."""
    attrs = node.attrs
    value = attrs["value"]
    return value.item() if attrs.get("weak") else value


def as_node(value: Any, op_name: str = "op", position: int = 0) -> Node:
    """``value`` itself if it is a Node; a constant for a number or numeric array."""
    if isinstance(value, Node):
        return value
    if type(value) in _PYTHON_NUMBERS:
        return constant(value)
    if isinstance(value, (numbers.Number, np.ndarray, np.generic)) or (
        isinstance(value, (list, tuple)) and not isinstance(value, str)
    ):
        try:
            return constant(value)
        except GraphError:
            pass
    from .foreign import adopt, is_foreign  # noqa: PLC0415  (foreign imports node)

    if is_foreign(value):  # a node of a 599W-style engine
        return adopt(value)
    raise NodeTypeError(
        f"{op_name}: input {position} is a {type(value).__name__} ({value!r:.60}); "
        f"expected a Node, a number or a numeric numpy array"
    )


def _as_shape(shape: Any, what: str, allow_unknown: bool = False) -> Shape:
    """``shape`` as a tuple of ints (one -1 allowed if ``allow_unknown``), or a ShapeError."""
    if isinstance(shape, (int, np.integer)):
        shape = (shape,)
    try:
        dims = tuple(shape)
        result = tuple(int(d) for d in dims)
    except (TypeError, ValueError):
        raise ShapeError(f"{what}: shape must be a tuple of ints, got {shape!r}") from None
    if any(isinstance(d, (bool, np.bool_)) or int(d) != d for d in dims):
        raise ShapeError(f"{what}: shape must be a tuple of ints, got {shape!r}")
    if allow_unknown and result.count(-1) == 1:
        return result
    if any(d < 0 for d in result):
        raise ShapeError(f"{what}: shape {result} has a negative dimension")
    return result


def static_shape(node: Node):
    """The shape of ``node`` known before running: its static shape, else a hint, else None."""
    shape = node._shape
    if shape is not None:
        return shape
    extension = _get_extension()
    hints = extension.hints if extension is not None else None
    return hints.get(node) if hints else None


from . import ops as _ops  # noqa: E402  (ops need Node; Node's operators need ops)
