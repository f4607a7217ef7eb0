"""Nodes of the computational graph.

A :class:`Node` is an immutable record: the op that computes it, its inputs (a tuple: ``a * a``
has two edges), the op's attributes, an optional name, an id from a counter (creation order,
never ``id()``), and its static shape when it is known at build time (``None`` otherwise).
Nodes hash by identity. Leaves are Variables (fed at run time) and constants, made by
:mod:`vizad.engine.op`; the operators (``x * y``, ``-x``, ``t[0]``) are declared here and call the
functions of :data:`OPERATORS`, which the modules defining their ops fill (:mod:`vizad.engine.ops`),
so this module needs none of them.
"""

from __future__ import annotations

import contextvars
import itertools
from contextlib import contextmanager
from operator import attrgetter
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, NoReturn
from collections.abc import Callable, Iterator, Mapping

import numpy as np

from vizad.errors import FeedError, NodeTypeError, ShapeError
from vizad.engine.extension import ACTIVE, entered
from vizad.engine.extension import current as _get_extension

if TYPE_CHECKING:  # pragma: no cover
    from vizad.engine.op import Op

__all__ = ["Node", "static_shape", "scope", "source_line"]

Shape = tuple  # a tuple of ints; None where unknown

_ids = itertools.count(1)

#: The functions behind Node's operators (``x + y`` is ``OPERATORS["add"](x, y)``), by name:
#: add, sub, mul, truediv, pow, matmul, neg, getitem. The modules that define the ops fill it
#: (:mod:`vizad.engine.ops`), so that this module imports none of them while tools see the
#: operators.
OPERATORS: dict[str, Callable[..., Node]] = {}
_EMPTY: Mapping[str, Any] = MappingProxyType({})

_NUMERIC_KINDS = frozenset("biufc")

_SCOPE: contextvars.ContextVar = contextvars.ContextVar("vizad_scope", default=())
_get_scope = _SCOPE.get

_SOURCE: contextvars.ContextVar = contextvars.ContextVar("vizad_source", default=None)
_get_source = _SOURCE.get


@contextmanager
def scope(name: str) -> Iterator[tuple[str, ...]]:
    """Group the nodes built inside: ``with vz.scope("layer1"): ...``. Scopes nest; each node
    keeps the path of scopes it was built in (``node.scope``), and drawings draw a scope as a
    cluster that ``collapse=`` can fold into one box, like TensorBoard's name scopes.

    Examples:
        >>> x = vz.Variable("x")
        >>> with vz.scope("layer1"):
        ...     h = vz.tanh(2.0 * x)
        ...
        >>> h.scope
        ('layer1',)
    """
    if not isinstance(name, str) or not name.strip():
        raise NodeTypeError(
            f"scope: the name must be a non-empty string, got {name!r:.40}; give a name"
        )
    token = _SCOPE.set((*_SCOPE.get(), name))
    try:
        with entered():
            yield _SCOPE.get()
    finally:
        _SCOPE.reset(token)


@contextmanager
def source_line(text: str | None) -> Iterator[None]:
    """The nodes built inside came from this line of the user's code (``"model.py:12  y =
    self.bn(x)"``): a bridge says where each imported or recorded value came from, and views
    show it (``node.source``). None: no line known."""
    token = _SOURCE.set(text)
    try:
        with entered():
            yield
    finally:
        _SOURCE.reset(token)


def _context() -> tuple:
    """(origin, scope, source) of a node built now: the extension's record being built, the
    path of ``vz.scope`` blocks and the user's line (read only while
    :data:`vizad.engine.extension.ACTIVE` is not 0)."""
    extension = _get_extension()
    origin = extension.record if extension is not None else None
    return origin, _get_scope(), _get_source()


#: numpy's ufuncs that are Python operators: (the method of the node as the first operand, as
#: the second). np.float64(2) * x reaches Node through them.
_UFUNC_OPERATORS = {
    "add": ("__add__", "__radd__"),
    "subtract": ("__sub__", "__rsub__"),
    "multiply": ("__mul__", "__rmul__"),
    "true_divide": ("__truediv__", "__rtruediv__"),
    "divide": ("__truediv__", "__rtruediv__"),  # numpy 2's name of true_divide
    "power": ("__pow__", "__rpow__"),
    "matmul": ("__matmul__", "__rmatmul__"),
    "less": ("__lt__", "__gt__"),
    "less_equal": ("__le__", "__ge__"),
    "greater": ("__gt__", "__lt__"),
    "greater_equal": ("__ge__", "__le__"),
}

#: numpy's ufuncs with a vz function of their own.
_UFUNC_INSTEAD = {"exp": "exp", "log": "log", "sin": "sin", "cos": "cos", "tanh": "tanh",
                  "sqrt": "sqrt"}  # fmt: skip


class Node:
    """One value of the computational graph: ``op(*inputs, **attrs)``.

    Build nodes with ops (``vz.sin(x)``) or operators (``x * y + 2``), never directly.

    Examples:
        >>> from vizad import extend
        >>> x1, x2 = vz.Variable("x1"), vz.Variable("x2")
        >>> y = vz.log(x1) + x1 * x2 - vz.sin(x2)
        >>> isinstance(y, extend.Node), y.op.name, [str(n) for n in y.inputs]
        (True, 'sub', ['add(log(x1), mul(x1, x2))', 'sin(x2)'])
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
        "_source",
        "__weakref__",  # extension records refer to the nodes they made weakly
    )

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        """numpy's operators on a node are the node's own (``np.float64(2) * x`` and
        ``array + x`` build nodes, ``array < x`` compares as ``x > array`` does); any other
        ufunc (``np.exp(x)``) is refused, naming the vz function that builds the node."""
        name = getattr(ufunc, "__name__", str(ufunc))
        pair = _UFUNC_OPERATORS.get(name)
        if pair is not None and method == "__call__" and len(inputs) == 2 and not kwargs:
            first, second = inputs
            if isinstance(first, Node):
                return getattr(first, pair[0])(second)
            return getattr(second, pair[1])(first)
        if name == "negative" and method == "__call__" and len(inputs) == 1 and not kwargs:
            return -self
        if name in ("equal", "not_equal") and method == "__call__" and len(inputs) == 2:
            return (inputs[0] is inputs[1]) == (name == "equal")  # as Python's == of a node
        instead = _UFUNC_INSTEAD.get(name)
        use = (
            f"use vz.{instead}(x), which builds the node and its gradient"
            if instead
            else "vizad has no op of that name: build it from vz's ops (vz.exp, vz.log, "
            "vz.tanh …) or write one (vizad.extend)"
        )
        raise NodeTypeError(
            f"np.{name} on {self.describe()}: numpy computes on values, and a node is a place "
            f"in vizad's graph; {use}; for the number, evaluate first: "
            f"np.{name}(vz.evaluate(x, feed))"
        )

    def __init__(
        self,
        op: Op,
        inputs: tuple[Node, ...] = (),
        attrs: Mapping[str, Any] | None = None,
        name: str | None = None,
        shape: Shape | None = None,
    ) -> None:
        # ``attrs`` is owned by the node from here on (ops pass a fresh ``**attrs`` dict).
        self._operation = op
        self._inputs = inputs
        self._attrs = MappingProxyType(attrs) if attrs else _EMPTY
        self._name = name
        self._id = next(_ids)
        self._shape = shape
        if ACTIVE[0]:  # an extension, a scope or a source line is open: read the context
            self._origin, self._scope, self._source = _context()
        else:  # hot: eager code, no context variable to read
            self._origin = None
            self._scope = ()
            self._source = None

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
    source = property(
        attrgetter("_source"),
        doc="The line of the user's code it was imported from (``file:line  code``), or None.",
    )

    # -- display -------------------------------------------------------------------------
    def _small_constant(self) -> bool:
        return self._operation._folds and self._attrs["value"].size <= 4

    def short(self, depth: int = 1) -> str:
        """A short name: the node's name, a small constant's value, or its expression nested
        ``depth`` levels deep (deeper inputs are "…"): never an internal id. Error messages
        and warnings name inputs with it."""
        if self.name is not None:
            return self.name
        if self._small_constant() or depth > 0:
            return self._expression(depth)
        return "…"

    def _expression(self, depth: int = 3) -> str:
        """``sub(add(log(x1), mul(x1, x2)), sin(x2))``: the op and its inputs, nested ``depth``
        levels (bounded: never recursive on the graph's depth)."""
        if self._small_constant():
            return np.array2string(self._attrs["value"], separator=", ").replace("\n", "")
        if self._operation._folds:  # a constant
            return f"constant{self.shape}"
        return f"{self.op.name}({', '.join(i.short(depth - 1) for i in self.inputs)})"

    def describe(self) -> str:
        """``node #7 mul(x1, x2)``: how error messages (vizad's and a custom op's) name a
        node: its creation number, name and expression."""
        if not self.inputs and self.name is not None:
            return f"node #{self.id} {self.op.name} {self.name!r}"
        label = f" {self.name!r}" if self.name is not None else ""
        return f"node #{self.id}{label} {self._expression()}"

    def __str__(self) -> str:
        return self.name if self.name is not None else self._expression()

    def __repr__(self) -> str:
        shape = "" if self.shape is None else f" shape={self.shape}"
        return f"<Node {self}{shape}>"

    # -- operators: the functions of OPERATORS, filled by the modules defining the ops --------
    def __add__(self, other: Any) -> Node:
        return OPERATORS["add"](self, other)

    def __radd__(self, other: Any) -> Node:
        return OPERATORS["add"](other, self)

    def __sub__(self, other: Any) -> Node:
        return OPERATORS["sub"](self, other)

    def __rsub__(self, other: Any) -> Node:
        return OPERATORS["sub"](other, self)

    def __mul__(self, other: Any) -> Node:
        return OPERATORS["mul"](self, other)

    def __rmul__(self, other: Any) -> Node:
        return OPERATORS["mul"](other, self)

    def __truediv__(self, other: Any) -> Node:
        return OPERATORS["truediv"](self, other)

    def __rtruediv__(self, other: Any) -> Node:
        return OPERATORS["truediv"](other, self)

    def __pow__(self, other: Any) -> Node:
        return OPERATORS["pow"](self, other)

    def __matmul__(self, other: Any) -> Node:
        return OPERATORS["matmul"](self, other)

    def __rmatmul__(self, other: Any) -> Node:
        return OPERATORS["matmul"](other, self)

    def __neg__(self) -> Node:
        return OPERATORS["neg"](self)

    def __getitem__(self, index: int) -> Node:
        return OPERATORS["getitem"](self, index)

    def __pos__(self) -> Node:
        return self

    def __rpow__(self, other: Any) -> NoReturn:
        raise NodeTypeError(
            f"{other!r} ** node: only constant exponents are supported (node ** p); "
            f"write exp(log(base) * node) for a node exponent"
        )

    def __bool__(self) -> bool:
        return True

    # A symbolic node has no value until a feed gives its Variables theirs: Python's numbers
    # and comparisons of one say so (eager nodes, which carry values, define them).
    def _no_value(self, what: str) -> NoReturn:
        raise NodeTypeError(
            f"{what} of {self.describe()}: a symbolic node has no value until it is "
            f"evaluated; use the value, e.g. {what.replace('x', 'vz.evaluate(node, feed)')}"
        )

    def __float__(self) -> float:
        self._no_value("float(x)")

    def __int__(self) -> int:
        self._no_value("int(x)")

    def __lt__(self, other: Any) -> Any:
        self._no_value("x < …")

    def __le__(self, other: Any) -> Any:
        self._no_value("x <= …")

    def __gt__(self, other: Any) -> Any:
        self._no_value("x > …")

    def __ge__(self, other: Any) -> Any:
        self._no_value("x >= …")

    # A node never changes: a copy is the node itself (a copy with a new id would be a
    # different Variable that no feed dict names).
    def __copy__(self) -> Node:
        return self

    def __deepcopy__(self, memo: Any) -> Node:
        return self

    def __reduce_ex__(self, protocol: Any) -> NoReturn:
        raise NodeTypeError(
            f"vizad nodes cannot be pickled ({self.describe()}): a graph holds ops and "
            "closures of the running process; rebuild it in the other process from the code "
            "that built it, and send the values (numpy arrays pickle)"
        )

    def __iter__(self) -> NoReturn:
        raise NodeTypeError(
            f"{self.describe()} is not iterable; "
            "use vz.tuple_get(t, i) to read an element of a tuple value"
        )


def _numeric_array(value: Any, what: str, error: type[Exception] = FeedError) -> np.ndarray | tuple:
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
            f"{type(value).__name__} {value!r:.60} (dtype {array.dtype}); give a number "
            "or a numeric array"
        )
    return array


def _as_shape(shape: Any, what: str, allow_unknown: bool = False) -> Shape:
    """``shape`` as a tuple of ints (one -1 allowed if ``allow_unknown``), or a ShapeError."""
    if isinstance(shape, (int, np.integer)):
        shape = (shape,)
    try:
        dims = tuple(shape)
        result = tuple(int(d) for d in dims)
    except (TypeError, ValueError):
        raise ShapeError(
            f"{what}: shape must be a tuple of ints, got {shape!r}; give one, as in (2, 3)"
        ) from None
    if any(isinstance(d, (bool, np.bool_)) or int(d) != d for d in dims):
        raise ShapeError(
            f"{what}: shape must be a tuple of ints, got {shape!r}; give one, as in (2, 3)"
        )
    if allow_unknown and result.count(-1) == 1:
        return result
    if allow_unknown and result.count(-1) > 1:
        raise ShapeError(f"{what}: shape {result} has more than one -1: one dimension at most "
                         "may be left for the others to fix")  # fmt: skip
    if any(d < 0 for d in result):
        raise ShapeError(
            f"{what}: shape {result} has a negative dimension; give dimensions of 0 or more"
        )
    return result


def static_shape(node: Node) -> Shape | None:
    """The shape of ``node`` known before running: its static shape, else a hint, else None.

    Examples:
        >>> from vizad import extend
        >>> x = vz.Variable("x", shape=(2, 3))
        >>> extend.static_shape(vz.transpose(x)), extend.static_shape(vz.Variable("z"))
        ((3, 2), None)
    """
    shape = node._shape
    if shape is not None:
        return shape
    extension = _get_extension()
    hints = extension.hints if extension is not None else None
    return hints.get(node) if hints else None
