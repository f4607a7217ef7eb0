"""The op protocol, and the leaves every graph starts from.

An op is one object holding the whole definition of an operation: how to compute its value on
numpy arrays (``compute``), how to build the adjoint nodes of its inputs from graph ops
(``vjp``, reverse mode), how to build its tangent node (``jvp``, forward mode), its static
shape (``infer_shape``) and the LaTeX that the derivation text uses (``latex``,
``partial_latex``, ``vjp_latex``). Calling an op on nodes builds a node; on eager nodes it
computes the value at once (the result's class comes from its inputs).

An op call makes constants of the numbers it is given (``x * 2``), so the leaves live here
too: Variables (fed at run time), constants, and eager leaves (:func:`tensor`).
Elementwise ops, which state only their local partial derivatives, are in
:mod:`vizad.engine.ops.elementwise`.
"""

from __future__ import annotations

import numbers
import re
from functools import partial
from typing import Any, TypeGuard, TypeVar
from collections.abc import Callable, Mapping, Sequence

import numpy as np

from vizad.engine import adapters
from vizad.engine.eager import ATTACHED, EagerNode, LazyGrad
from vizad.errors import FeedError, GraphError, NodeTypeError, RuleNotDefinedError, ShapeError
from vizad.engine.extension import ACTIVE
from vizad.engine.node import Node, Shape, _as_shape, _context, _ids, _numeric_array
from vizad.engine.text import latex_operator, printable
from vizad.engine.tree import TupleShape, shape_of

__all__ = [
    "Op",
    "registry",
    "register",
    "latex_product",
    "Variable",
    "constant",
    "tensor",
    "leaf",
    "as_node",
    "constant_value",
    "VARIABLE",
    "CONSTANT",
    "binary",
    "eager_class",
]

_REGISTRY: dict[str, Op] = {}

_AnOp = TypeVar("_AnOp", bound="Op")


def register(op: _AnOp) -> _AnOp:
    """Add ``op`` to the registry that the test-suite loops over; returns ``op``."""
    if op.name in _REGISTRY and _REGISTRY[op.name] is not op:
        raise GraphError(f"an op named {op.name!r} is registered already")
    _REGISTRY[op.name] = op
    return op


def registry() -> dict[str, Op]:
    """The registered ops by name (a copy).

    Examples:
        >>> from vizad import extend
        >>> ops = extend.registry()
        >>> ops["sin"] is vz.sin, "matmul" in ops
        (True, True)
    """
    return dict(_REGISTRY)


class Op:
    """Base class of every op. Subclass it, define ``compute`` and ``vjp``, and call an
    instance on nodes (or numbers) to build a node::

        class Square(vz.Op):
            name = "square"
            def compute(self, x): return x * x
            def vjp(self, node, adjoint):
                (x,) = node.inputs
                return [adjoint * 2 * x]
        square = Square()

    Examples:
        >>> class Square(vz.Op):
        ...     def compute(self, x):
        ...         return x * x
        ...     def vjp(self, node, adjoint):
        ...         (x,) = node.inputs
        ...         return [adjoint * 2.0 * x]
        ...
        >>> square = Square()
        >>> x = vz.Variable("x")
        >>> (g,) = vz.gradients(square(x), [x])
        >>> vz.evaluate(g, {x: 3.0})
        array(6.)
    """

    #: Name shown in drawings, traces and error messages (default: the class name, lowered).
    name: str = ""
    #: Number of inputs, or None for any number.
    arity: int | None = None
    #: Short label for drawings (``"×"``); default: the name.
    symbol: str | None = None

    #: vizad's own ops (defined in vizad.engine.ops): their rules need no checking.
    _builtin: bool = False
    #: vizad's own ops that pass tuple values through (identity, add_n, make_tuple …); every
    #: other built-in op takes arrays only, and refuses a tuple value (numpy would stack it).
    _takes_tuples: bool = False
    _arrays_only: bool = False
    #: True for the constant op alone: an op on constants only is computed at once.
    _folds: bool = False
    #: Whether ``compute`` reads only its inputs' shapes, not their numbers (ones_like,
    #: zeros_like, size): a memory timeline (vizad.trace.memory) keeps no value alive for it.
    shape_only: bool = False
    #: vizad's own ops whose output has the shape of inputs of one shape (elementwise ops):
    #: such inputs need no shape inference (set by
    #:class:`vizad.engine.ops.elementwise.ElementwiseOp`).
    _same_shape: bool = False
    #: Elementwise ops of vizad's own that record their local partials on values as they
    #: compute eagerly (see :class:`vizad.engine.ops.elementwise.ElementwiseOp`).
    _partials_now: bool = False
    #: The record on the numeric tape of every node of the op, when it is one and the same
    #: (add: (ONE, ONE); mul: SWAPPED, its local partials are its inputs' values, swapped):
    #: recorded without calling ``_partial_values``.
    _recorded: Any = None
    #: vizad's own ops whose ``vjp`` takes ``needed`` (one flag per input) and builds only
    #: the adjoints of the inputs that need one (matmul: no dX for a data batch).
    _vjp_needed: bool = False
    #: The attributes that say how a node is wired to its inputs (ops recorded from another
    #: engine: the engine's input positions, which output of each is read, ``v₃[1]``). They
    #: belong to the inputs, not to the op: repeated blocks compare them with the inputs
    #: (vizad/view/render/folding.py), so time step t reading xs[t] repeats step t − 1.
    wiring_attrs: tuple[str, ...] = ()

    def places(self, attrs: Mapping[str, Any]) -> tuple | None:
        """For each input, (its position among all of the op's arguments, which of its
        outputs is read); None when the inputs are all the arguments, each read whole. An op
        recorded from another engine has arguments that are not nodes (a constant h₀)."""
        return None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if not cls.__dict__.get("name"):
            cls.name = cls.__name__.lower()
        cls._builtin = cls.__module__ == __name__ or cls.__module__.startswith("vizad.engine.ops.")
        cls._arrays_only = cls._builtin and not cls._takes_tuples

    # -- building nodes ------------------------------------------------------------------
    def __call__(self, *inputs: Any, name: str | None = None, **attrs: Any) -> Node:
        # hot: eager inputs of one class and one array shape (a trusted op of vizad's own
        # whose output then has that shape): computed at once, with no checks to make
        if self._same_shape and name is None and inputs:
            cls = inputs[0].__class__
            if cls is not Node and (_EAGER_CLASSES.get(cls) or _eager_class(cls)):
                shape = inputs[0]._shape
                for x in inputs:
                    if x.__class__ is not cls or x._shape != shape:
                        break
                else:
                    if shape.__class__ is tuple and (
                        self.arity is None or len(inputs) == self.arity
                    ):
                        return cls._computed(self, inputs, attrs, None, shape)
        eager = None
        for x in inputs:
            if x.__class__ is not Node:  # numbers to constants; eager nodes compute at once
                inputs, eager = prepared(inputs, self.name)
                break
        else:
            if inputs and inputs[0]._operation is CONSTANT and constants_only(inputs):
                eager = EagerNode
        if name is not None:
            if name.__class__ is not str:
                raise NodeTypeError(
                    f"{self.name}: name must be a str, got {type(name).__name__} {name!r:.40}; "
                    "give a str"
                )
            name = printable(name)
        if self.arity is not None and len(inputs) != self.arity:
            raise GraphError(f"op {self.name!r} takes {self.arity} input(s), got {len(inputs)}")
        shapes = [n._shape for n in inputs]  # hot: slot read
        try:
            if self._arrays_only:
                for s in shapes:
                    if s.__class__ is TupleShape:
                        raise tuples_refused(self.name)
            shape = self.infer_shape(shapes, attrs)
        except ShapeError as exc:
            args = ", ".join(n.short() for n in inputs)
            raise ShapeError(f"{self.name}({args}): {exc}") from None
        if eager is None:
            return Node(self, inputs, attrs, name, shape)
        return eager._computed(self, inputs, attrs, name, shape)

    # -- the definition ------------------------------------------------------------------
    def compute(self, *values: Any, **attrs: Any) -> Any:
        """The value of the node from its input values: numpy arrays, or numpy scalars where
        the ops before it gave scalars (``np.asarray`` one where an array is needed)."""
        raise RuleNotDefinedError(f"op {self.name!r} defines no compute")

    def vjp(self, node: Node, adjoint: Node) -> Sequence[Node | None]:
        """Reverse mode: one adjoint node per input (None for a zero or unneeded adjoint)."""
        raise RuleNotDefinedError(
            f"op {self.name!r} defines no vjp, so reverse mode cannot differentiate through it"
        )

    def jvp(self, node: Node, tangents: Sequence[Node | None]) -> Node | None:
        """Forward mode: the tangent node of ``node`` from its inputs' tangents (None = zero)."""
        raise RuleNotDefinedError(
            f"op {self.name!r} defines no jvp, so forward mode cannot differentiate through it"
        )

    def infer_shape(self, shapes: Sequence[Any], attrs: Mapping[str, Any]) -> Any:
        """The static shape of the output from the inputs' static shapes (None if unknown).
        Raise ShapeError for shapes that cannot fit."""
        return None

    # -- LaTeX for the derivation text ---------------------------------------------------
    def latex(self, args: Sequence[str], attrs: Mapping[str, Any]) -> str:
        """The op applied to LaTeX arguments, e.g. ``\\ln v_1``."""
        return latex_operator(self.name) + rf"\left({', '.join(args)}\right)"

    def partial_latex(
        self, args: Sequence[str], attrs: Mapping[str, Any], index: int
    ) -> str | None:
        """The local partial derivative ∂v/∂(input ``index``) in LaTeX, when it is a formula."""
        return None

    def vjp_latex(
        self, args: Sequence[str], adjoint: str, attrs: Mapping[str, Any], index: int
    ) -> str | None:
        """The partial adjoint v̄ᵢ→ⱼ as LaTeX, e.g. ``\\bar v_5 \\cos v_2``."""
        local = self.partial_latex(args, attrs, index)
        return None if local is None else latex_product(adjoint, local)

    # -- for the executor ----------------------------------------------------------------
    def bind(self, node: Node) -> Callable[..., Any]:
        """The function of the input values that computes ``node``, made once when a plan is
        made. The default binds the node's attributes to ``compute``; an adapter for another
        calling convention (the CSE 599W ``compute(node, input_vals)``) overrides it."""
        attrs = node.attrs
        if attrs:
            return partial(self.compute, **attrs)
        return self.compute

    def __repr__(self) -> str:
        return f"<op {self.name}>"


_NO_ATTRS: dict = {}


def binary(op: Op) -> Callable[[Any, Any], Node]:
    """``op(a, b)`` for an elementwise op of vizad's own, as Node's operators call it: two
    eager nodes of one class and one array shape go straight to the eager node (``x * y`` in
    a training loop), anything else through the op's call."""

    def apply(a: Any, b: Any) -> Node:
        cls = a.__class__
        if cls is not Node and (_EAGER_CLASSES.get(cls) or _eager_class(cls)):
            shape = a._shape
            if shape.__class__ is tuple:
                if b.__class__ is cls and shape == b._shape:
                    return cls._computed(op, (a, b), _NO_ATTRS, None, shape)
                if b.__class__ in _PYTHON_NUMBERS:  # x * 2: a weak constant keeps x's shape
                    return cls._computed(op, (a, constant(b)), _NO_ATTRS, None, shape)
        elif cls in _PYTHON_NUMBERS:  # 2 * x
            kind = b.__class__
            if kind is not Node and (_EAGER_CLASSES.get(kind) or _eager_class(kind)):
                shape = b._shape
                if shape.__class__ is tuple:
                    return kind._computed(op, (constant(a), b), _NO_ATTRS, None, shape)
        return op(a, b)

    apply.__name__ = apply.__qualname__ = op.name
    apply.__doc__ = f"``{op.name}(a, b)``, fast for eager nodes of one shape."
    return apply


def tuples_refused(name: str) -> ShapeError:
    """The error for a tuple value given to built-in op ``name``, which takes arrays."""
    return ShapeError(
        f"{name} takes arrays, not tuple values (read an element with vz.tuple_get; add "
        "tuple values with vz.ops.add_n)"
    )


def latex_product(left: str, right: str) -> str:
    """``left`` times the local derivative ``right`` in LaTeX, as a person writes it:
    ``v̄`` for 1, ``-v̄`` for −1, ``\\frac{v̄}{x}`` for ``\\frac{1}{x}``.

    Examples:
        >>> from vizad import extend
        >>> extend.latex_product("v̄", "v_{1}"), extend.latex_product("v̄", "1")
        ('v̄ v_{1}', 'v̄')
    """
    reciprocal = re.fullmatch(r"\\frac\{1\}\{(.*)\}", right)
    if reciprocal:
        return rf"\frac{{{left}}}{{{reciprocal.group(1)}}}"
    if right == "1":
        return left
    if right == "-1":
        return "-" + left
    return f"{left} {right}"


# -- an op's inputs ---------------------------------------------------------------------------
#: {class: whether an op on inputs of only that class computes at once, a node of it}
_EAGER_CLASSES: dict[type, bool] = {}


def eager_class(cls: type) -> TypeGuard[type[EagerNode]]:
    """Whether an op on inputs of only class ``cls`` computes at once, a node of it (an eager
    node class; a lazy gradient is not one: it stands for a node)."""
    return _EAGER_CLASSES.get(cls) or _eager_class(cls)


def _eager_class(cls: type) -> bool:
    """Whether ``cls`` is an eager node class (a lazy gradient is not: it stands for a node)."""
    result = _EAGER_CLASSES[cls] = issubclass(cls, EagerNode) and cls is not LazyGrad
    return result


def prepared(inputs: tuple, op_name: str) -> tuple[tuple, type[EagerNode] | None]:
    """``inputs`` as Nodes (numbers become constants), and the class of the node an op
    builds from them: the class of the first eager input when every other input is eager or
    a constant (EagerNode for constants only); None (a symbolic node) when any input is
    symbolic."""
    found = None
    symbolic = False
    converted = None
    for k, x in enumerate(inputs):
        if x.__class__ is LazyGrad:  # a gradient used as a node: the adjoint node it stands for
            if converted is None:
                converted = list(inputs)
            x = converted[k] = x.node()
        elif x.__class__ is not Node and not isinstance(x, EagerNode):  # 2 in 2 * x
            if converted is None:
                converted = list(inputs)
            x = converted[k] = as_node(x, op_name, k)
        if x.__class__ is Node:
            if x._operation is not CONSTANT:
                symbolic = True
        elif found is None and x.__class__ is not LazyGrad:  # (one left a constant: no class)
            found = x.__class__
    if converted is not None:
        inputs = tuple(converted)
    if symbolic:
        return inputs, None
    return inputs, found or EagerNode  # constants only: folded at once


def constants_only(inputs: tuple) -> bool:
    """Whether every input is a constant (the op's node is then computed at once, so that
    constant parts of a rule, such as 1/3 in the partial of x / 3, never make an eager
    computation symbolic)."""
    for x in inputs:
        if x._operation is not CONSTANT:
            return False
    return bool(inputs)


# -- the leaves ------------------------------------------------------------------------------
class VariableOp(Op):
    """A placeholder whose value comes from the feed dict.

    Examples:
        >>> from vizad import extend
        >>> vz.Variable("x").op is extend.VARIABLE
        True
    """

    name = "variable"
    arity = 0

    def compute(self, *values: Any, **attrs: Any) -> Any:  # the executor feeds them: never called
        raise GraphError("a Variable's value comes from the feed dict")

    def vjp(self, node: Node, adjoint: Node) -> Sequence[Node | None]:
        return []

    def jvp(self, node: Node, tangents: Sequence[Node | None]) -> Node | None:
        return None

    def latex(self, args: Sequence[str], attrs: Mapping[str, Any]) -> str:
        return "x"


class ConstantOp(Op):
    """A fixed numeric value, held (read-only) in the node's attributes.

    Examples:
        >>> from vizad import extend
        >>> c = vz.constant(2.0)
        >>> c.op is extend.CONSTANT, vz.evaluate(c)
        (True, array(2.))
    """

    name = "constant"
    arity = 0
    _folds = True

    def compute(self, value: Any, weak: bool = False) -> Any:
        return value.item() if weak else value

    def vjp(self, node: Node, adjoint: Node) -> Sequence[Node | None]:
        return []

    def jvp(self, node: Node, tangents: Sequence[Node | None]) -> Node | None:
        return None


VARIABLE = VariableOp()
CONSTANT = ConstantOp()

_PYTHON_NUMBERS = frozenset({float, int, bool})
_FLOAT_SCALARS = frozenset({np.float64, np.float32})
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


def Variable(name: str, shape: Shape | None = None) -> Node:
    """An input of the graph, fed at run time. ``shape=None`` means any shape.

    Examples:
        >>> x = vz.Variable("x", shape=(3,))
        >>> x, x.shape
        (<Node x shape=(3,)>, (3,))
        >>> vz.evaluate(2.0 * x, {x: np.arange(3.0)})
        array([0., 2., 4.])
    """
    if not isinstance(name, str):
        raise NodeTypeError(
            f"Variable name must be a str, got {type(name).__name__} {name!r}; give a str"
        )
    if shape is not None:
        shape = _as_shape(shape, f"Variable {name!r}")
    name = printable(name)  # what XML, DOT and UTF-8 cannot carry, as visible escapes
    return Node(VARIABLE, (), {"shape": shape}, name=name, shape=shape)


def constant(value: Any, name: str | None = None) -> Node:
    """A constant node holding a (read-only copy of a) numeric value.

    A Python number is *weakly typed*, as in NumPy 2 and JAX: ``x * 2.0`` keeps the float type
    of ``x`` (float32 stays float32) and ``x + 1`` keeps an integer type. A numpy scalar or
    array keeps its own dtype and takes part in type promotion as numpy says.

    Examples:
        >>> c = vz.constant(3.0, name="c")
        >>> x = vz.Variable("x")
        >>> vz.evaluate(c * x, {x: 2.0})
        array(6.)
    """
    if name is None and value.__class__ in _PYTHON_NUMBERS:
        attrs = _WEAK_ATTRS.get((value.__class__, value))
        if attrs is not None:  # hot: a literal seen before (x * 2.0 in a loop)
            node = object.__new__(Node)  # Node.__init__, inlined as in EagerNode._computed
            node._operation = CONSTANT
            node._inputs = ()
            node._attrs = attrs
            node._name = None
            node._id = next(_ids)
            node._shape = ()
            if ACTIVE[0]:
                node._origin, node._scope, node._source = _context()
            else:
                node._origin = None
                node._scope = ()
                node._source = None
            return node
    if name is not None and not isinstance(name, str):
        raise NodeTypeError(f"constant: name must be a str, got {type(name).__name__}; give a str")
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
        node = Node(CONSTANT, (), attrs, name=name, shape=array.shape)
        key = (value.__class__, value)
        if _WEAK_ARRAYS.get(key) is array:  # a shared literal: its attributes shared too
            _WEAK_ATTRS[key] = node._attrs
        return node
    else:
        given = _numeric_array(value, f"constant {name!r}" if name else "constant", GraphError)
        if isinstance(given, tuple):
            raise GraphError("constant: a tuple value is not a constant; use vz.make_tuple")
        array = given.copy()
        array.setflags(write=False)
        attrs = {"value": array}
    return Node(CONSTANT, (), attrs, name=name, shape=array.shape)


_WEAK_ARRAYS: dict[tuple[type, Any], np.ndarray] = {}
#: {(class, number): the read-only attributes of its constants} for the shared literals
#: (a mapping proxy nobody can change, so constants of one literal can share it).
_WEAK_ATTRS: dict[tuple[type, Any], Mapping[str, Any]] = {}


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
    """``value`` itself if it is a Node; a constant for a number or numeric array.

    Examples:
        >>> from vizad import extend
        >>> extend.as_node(2.0)
        <Node 2. shape=()>
        >>> x = vz.Variable("x")
        >>> extend.as_node(x) is x
        True
    """
    if isinstance(value, Node):
        return value.node() if value.__class__ is LazyGrad else value
    if type(value) in _PYTHON_NUMBERS:
        return constant(value)
    if isinstance(value, (numbers.Number, np.ndarray, np.generic)) or (
        isinstance(value, (list, tuple)) and not isinstance(value, str)
    ):
        try:
            return constant(value)
        except GraphError:
            pass
    adopted = adapters.adopt(value)  # a node of another engine, read by its adapter
    if isinstance(adopted, Node):
        return adopted
    raise NodeTypeError(
        f"{op_name}: input {position} is a {type(value).__name__} ({value!r:.60}); "
        f"give a Node, a number or a numeric numpy array"
    )


def tensor(
    value: Any, name: str | None = None, requires_grad: bool = True, dtype: Any = None
) -> EagerNode:
    """An eager leaf holding a copy of ``value`` (a number, a nested list or a numpy array)::

        x = vz.tensor(2.0, name="x")
        y = vz.log(x) + x * 3.0
        y.value            # array(6.693...)
        y.backward()
        x.grad.value       # 3.5

    ``requires_grad=True`` (the default) makes it an input that gradients flow to (it needs a
    floating-point value, as in PyTorch); ``False`` a constant. ``dtype`` converts the value
    (``dtype="float32"``).

    Examples:
        >>> x = vz.tensor(2.0, name="x")
        >>> y = vz.log(x) + x * 3.0
        >>> y.value
        np.float64(6.693147180559945)
        >>> y.backward()
        >>> x.grad
        <gradient = 3.5>
    """
    if name is not None and not isinstance(name, str):
        raise NodeTypeError(f"vz.tensor: name must be a str, got {type(name).__name__}")
    if name is not None:
        name = printable(name)
    what = f"vz.tensor {name!r}" if name else "vz.tensor"
    if isinstance(value, Node):
        raise NodeTypeError(
            f"{what}: the value is a Node already ({value.describe()}); use the node itself, "
            "or its value (node.value)"
        )
    array = _numeric_array(value, what, FeedError)
    if isinstance(array, tuple):
        raise NodeTypeError(f"{what}: a tuple value is not a tensor; use vz.make_tuple of tensors")
    try:
        array = np.array(array, dtype=dtype)  # a copy, as torch.tensor makes
    except (TypeError, ValueError) as exc:
        raise NodeTypeError(f"{what}: cannot convert the value to dtype {dtype!r}: {exc}") from None
    if array.dtype.kind not in "biufc":
        raise NodeTypeError(f"{what}: dtype {array.dtype} is not numeric; give numbers")
    if requires_grad and array.dtype.kind not in "fc":
        raise NodeTypeError(
            f"{what}: only floating-point values can require gradients, got dtype "
            f"{array.dtype} (write the numbers with a decimal point, pass dtype=float, "
            "or pass requires_grad=False)"
        )
    if not array.shape:  # a scalar as numpy's scalar: its arithmetic costs a fifth of a 0-d array's
        array = array[()]
    return leaf(array, name, bool(requires_grad))


def leaf(
    value: Any,
    name: str | None = None,
    requires_grad: bool = True,
    cls: type[EagerNode] = EagerNode,
) -> EagerNode:
    """An eager leaf of class ``cls`` holding ``value`` (an array, not copied): a Variable-like
    input when ``requires_grad`` (``wrt`` of gradients and traces by default), else a
    constant."""
    if requires_grad:
        shape = () if value.__class__ in _FLOAT_SCALARS else shape_of(value)
        return cls._leaf(VARIABLE, {"shape": shape}, value, name, True)
    return cls._leaf(CONSTANT, {"value": value}, value, name, False)


def _detach(self: EagerNode) -> EagerNode:
    """A new leaf with the same value that requires no gradient."""
    return leaf(self._value, None, False, type(self))


# An eager node's detach() makes a constant leaf, which this module defines.
ATTACHED["detach"] = _detach
