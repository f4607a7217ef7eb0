"""Reading graphs built by students' own eager engines, micrograd-style Values and
needle-style Tensors, so that ``vz.draw``, ``vz.trace_reverse`` and ``vz.step`` show them.

A micrograd-style value has ``_prev`` (a set of children), ``_op`` (the op's text), ``data``,
``grad``, ``_backward`` and maybe a ``label`` (Karpathy's engine, or one written from his
lecture); a needle-style tensor has ``inputs``, ``op`` (None for a leaf, else an object with
``compute(*arrays)`` and ``gradient(out_grad, node)``) and ``realize_cached_data()`` (the
dlsys homework). This module registers one adapter for each (:mod:`vizad.engine.adapters`): the
vizad node standing for such an object is an eager node (its value is the student's), so
every view works without a feed, and a drawing of a micrograd value is the backprop view
``draw_dot`` users expect: each node's data and grad on the graph that ran.

Each op runs the student's own code: a needle op's ``compute``, and in reverse mode its
``gradient`` (evaluated on the values a step reads, one node per input); a micrograd op its
``_backward``, run alone at the values the graph ran with (every grad restored), which gives
each child's local derivative, so a partial adjoint is the adjoint times it. A micrograd op
computes by its ``_op`` text (``+ * **n tanh exp ReLU``, and ``log``, ``sigmoid``); one of
another text is its data, linear around the point by its ``_backward`` (drawn and stepped, but
a check of it checks nothing). A wrong rule of the student's shows in the stepper as a red
step, as with CSE 599W engines (:mod:`vizad.classroom.courses.foreign`).

Nothing of the student's graph is modified; the same object gives the same vizad node while
its data is unchanged (a parameter updated by training is read again).
"""

from __future__ import annotations

import copy
import operator
import re
import weakref
from functools import reduce
from typing import Any

import numpy as np

from vizad.engine import adapters
from vizad.engine.eager import EagerNode
from vizad.errors import GraphError, RuleNotDefinedError
from vizad.engine.text import latex_operator
from vizad.engine.node import Node
from vizad.engine.op import Op, leaf
from vizad.classroom.courses.foreign import op_for

__all__ = [
    "is_micrograd_value",
    "is_needle_tensor",
    "adopt_value",
    "adopt_tensor",
    "micrograd_children",
    "closure_name",
    "MicrogradOp",
    "NeedleOp",
]


def is_micrograd_value(obj: Any) -> bool:
    """Whether ``obj`` looks like a value of a micrograd-style engine (not vizad's own)."""
    return (
        not isinstance(obj, Node)
        and hasattr(obj, "_prev")
        and hasattr(obj, "_backward")
        and hasattr(obj, "data")
    )


def is_needle_tensor(obj: Any) -> bool:
    """Whether ``obj`` looks like a tensor of a needle-style engine (not vizad's own)."""
    return (
        not isinstance(obj, Node)
        and hasattr(obj, "inputs")
        and hasattr(obj, "op")
        and hasattr(obj, "realize_cached_data")
        and not hasattr(obj, "const_attr")  # a CSE 599W node (vizad.classroom.courses.foreign)
    )


# -- micrograd ----------------------------------------------------------------------------------
#: The names micrograd's closures give the operands, in order.
_RANK = {"self": 0, "other": 1}


def _closure(value) -> dict[int, str]:
    """{id of what the value's ``_backward`` closes over: its name there} (micrograd's
    ``self``, ``other``, ``out``; ``self`` for ``a`` in ``a * a``)."""
    fn = getattr(value, "_backward", None)
    code, cells = getattr(fn, "__code__", None), getattr(fn, "__closure__", None) or ()
    names: dict[int, str] = {}
    for name, cell in zip(code.co_freevars if code else (), cells):
        try:
            held = cell.cell_contents
        except ValueError:  # an empty cell
            continue
        known = names.get(id(held))
        if known is None or (_RANK.get(name, 2), name) < (_RANK.get(known, 2), known):
            names[id(held)] = name
    return names


def micrograd_children(value) -> list:
    """The children of a micrograd-style value in order: as ``self`` and ``other`` in its
    ``_backward`` closure, then by label and data (never by id: the same on every run). A
    vizad node's inputs are already in order."""
    ordered = getattr(value, "inputs", None)
    if isinstance(ordered, tuple):
        return list(dict.fromkeys(ordered))
    roles = _closure(value)
    return sorted(
        value._prev,
        key=lambda c: (
            _RANK.get(roles.get(id(c), ""), 2),
            roles.get(id(c), ""),
            str(getattr(c, "label", "")),
            float(c.data),
            str(getattr(c, "_op", "")),
        ),
    )


def closure_name(value, child) -> str:
    """The name ``child`` has in the ``_backward`` closure of ``value`` (``self`` if none)."""
    return _closure(value).get(id(child), "self")


def _relu(a):
    return np.maximum(a, 0.0)


def _sigmoid(a):
    return 1 / (1 + np.exp(-a))


#: micrograd's ops (and common additions) by their ``_op`` text: (arity, function).
MICROGRAD_OPS = {
    "+": (2, np.add),
    "*": (2, np.multiply),
    "tanh": (1, np.tanh),
    "exp": (1, np.exp),
    "ReLU": (1, _relu),
    "relu": (1, _relu),
    "log": (1, np.log),
    "sigmoid": (1, _sigmoid),
}


def micrograd_op(text: str):
    """(arity, function) of the micrograd op of text ``text`` (``**n`` for any n), or None."""
    power = re.fullmatch(r"\*\*(-?[\d.]+(?:e-?\d+)?)", text)
    if power:
        n = float(power.group(1))
        return 1, lambda a: np.power(a, n)
    return MICROGRAD_OPS.get(text)


class MicrogradOp(Op):
    """The op of a student's micrograd value: computed by its ``_op`` text, its rules (vjp
    and jvp) the local derivatives its ``_backward`` gave at the point (``partials``, one per
    operand). An op of unknown text is its data, linear around the point (``at``)."""

    def __init__(self, text: str):
        self.name = self.symbol = text or "op"
        self.known = micrograd_op(text)

    def compute(self, *values, partials=(), at=(), data=0.0):
        if self.known is not None:
            return self.known[1](*values)
        # not an op vizad knows: the student's data, and their _backward's slopes around it
        return data + sum(d * (v - v0) for d, v, v0 in zip(partials, values, at))

    def vjp(self, node, adjoint):
        return [adjoint * d for d in self._partials(node)]

    def jvp(self, node, tangents):
        terms = [t * d for t, d in zip(tangents, self._partials(node)) if t is not None]
        return reduce(operator.add, terms) if terms else None

    def _partials(self, node) -> tuple:
        partials = node.attrs["partials"]
        if isinstance(partials, BaseException):
            raise RuleNotDefinedError(
                f"the _backward of {self.name!r} raised {type(partials).__name__}: {partials}"
            )
        return partials

    def latex(self, args, attrs) -> str:
        infix = {"+": "+", "*": r"\cdot"}.get(self.name)
        if infix is not None and len(args) == 2:
            return f"{args[0]} {infix} {args[1]}"
        return latex_operator(self.name) + rf"\left({', '.join(args)}\right)"


_MICROGRAD_OPS: dict[str, MicrogradOp] = {}


def _micrograd_op_for(text: str) -> MicrogradOp:
    op = _MICROGRAD_OPS.get(text)
    if op is None:
        op = _MICROGRAD_OPS[text] = MicrogradOp(text)
    return op


def local_partials(value, operands: list) -> tuple[float, ...] | BaseException:
    """Each operand's local derivative by the student's ``_backward``, run alone with
    ``out.grad`` = 1 and the children's grads at 0 (every grad restored): what it adds to
    a child read twice (``a * a``) is shared equally by its two reads."""
    children = list(dict.fromkeys(operands))
    saved = [(n, n.grad) for n in [value, *children]]
    try:
        value.grad = 1.0
        for c in children:
            c.grad = 0.0
        value._backward()
        added = {id(c): float(c.grad) for c in children}
    except Exception as exc:  # the student's code: the rule is unusable, said when asked
        return exc
    finally:
        for n, g in saved:
            n.grad = g
    reads = {id(c): sum(1 for x in operands if x is c) for c in children}
    return tuple(added[id(c)] / reads[id(c)] for c in operands)


def _micrograd_operands(value) -> list:
    children = micrograd_children(value)
    known = micrograd_op(str(getattr(value, "_op", "") or ""))
    if known is not None and known[0] == 2 and len(children) == 1:
        return children * 2  # a + a, a * a: one child, read twice
    return children


# -- needle ---------------------------------------------------------------------------------
class NeedleOp(Op):
    """The op of a student's needle tensor: its ``compute``, and in reverse mode its
    ``gradient``, evaluated on the values a step reads (one :class:`NeedleGradient` node per
    input)."""

    def __init__(self, foreign_op: Any):
        self.foreign = foreign_op
        self.name = type(foreign_op).__name__
        self.gradient_op = NeedleGradient(self)

    def compute(self, *values, foreign=None):
        return self.foreign.compute(*values)

    def vjp(self, node, adjoint):
        foreign = node.attrs["foreign"]
        return [
            self.gradient_op(adjoint, node, *node.inputs, foreign=foreign, index=k)
            for k in range(len(node.inputs))
        ]

    def latex(self, args, attrs) -> str:
        shown = [
            f"{k}={v!r}" for k, v in sorted(vars(self.foreign).items()) if not k.startswith("_")
        ]
        body = ", ".join([*args, *(s.replace("_", r"\_") for s in shown)])
        return latex_operator(self.name) + rf"\left({body}\right)"


class NeedleGradient(Op):
    """The gradient of input ``index`` by the student's ``gradient(out_grad, node)`` of a
    needle op, on values: the output gradient, the op's output and its inputs, each made a
    tensor of the student's class."""

    def __init__(self, parent: NeedleOp):
        self.parent = parent
        self.name = f"{parent.name}.gradient"

    def compute(self, adjoint, output, *inputs, foreign=None, index=0):
        cls = type(foreign)
        make = getattr(cls, "make_const", None) or (lambda v: cls(v, requires_grad=False))
        node = copy.copy(foreign)  # the student's node, reading these values
        node.inputs = [make(np.asarray(x)) for x in inputs]
        if hasattr(node, "cached_data"):
            node.cached_data = np.asarray(output)
        grads = self.parent.foreign.gradient(make(np.asarray(adjoint)), node)
        grads = grads if isinstance(grads, (tuple, list)) else (grads,)
        if len(grads) <= index or grads[index] is None:
            raise GraphError(
                f"{self.parent.name}.gradient gives {len(grads)} gradient(s) for "
                f"{len(inputs)} input(s): it must give one per input"
            )
        return np.asarray(grads[index].realize_cached_data())


_NEEDLE_OPS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


# -- adopting a graph -----------------------------------------------------------------------
class _Adopted:
    """The vizad node of each foreign object, with what it was made from (its data): an
    entry is used while the object's data is the same. Keyed by id, each entry removed with
    its object (students' classes may define __eq__ and so not hash)."""

    def __init__(self):
        self._entries: dict[int, tuple[Node, Any]] = {}

    def get(self, obj, stamp) -> Node | None:
        entry = self._entries.get(id(obj))
        if entry is None or not _same(entry[1], stamp):
            return None
        return entry[0]

    def put(self, obj, node: Node, stamp) -> None:
        key = id(obj)
        if key not in self._entries:
            try:
                weakref.finalize(obj, self._entries.pop, key, None)
            except TypeError:  # not weakly referenceable: kept for the session
                pass
        self._entries[key] = (node, stamp)


def _same(a, b) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return a is b
    return a == b


_VALUES, _TENSORS = _Adopted(), _Adopted()


def _walk(root, children, stamp, cache: _Adopted, make) -> Node:
    """Adopt ``root`` and everything it depends on, iteratively: ``make(obj, adopted
    children)`` gives the node of an object whose children are adopted."""
    done = cache.get(root, stamp(root))
    if done is not None:
        return done
    stack = [(root, False)]
    made: dict[int, Node] = {}
    while stack:
        obj, expanded = stack.pop()
        if id(obj) in made:
            continue
        known = cache.get(obj, stamp(obj))
        if known is not None:
            made[id(obj)] = known
            continue
        kids = children(obj)
        if not expanded:
            stack.append((obj, True))
            stack.extend((c, False) for c in kids if id(c) not in made)
            continue
        node = make(obj, [made[id(c)] for c in kids])
        cache.put(obj, node, stamp(obj))
        made[id(obj)] = node
    return made[id(root)]


def _make_value(value, children: list[Node]) -> Node:
    label = str(getattr(value, "label", "") or "") or None
    data = np.asarray(float(value.data))
    if not children:
        return leaf(data, label, True, EagerNode)
    operands = _micrograd_operands(value)
    by_id = dict(zip((id(c) for c in micrograd_children(value)), children))
    args = [by_id[id(c)] for c in operands]
    op = _micrograd_op_for(str(getattr(value, "_op", "") or ""))
    at = tuple(float(c.data) for c in operands)
    partials = local_partials(value, operands)
    return op(*args, name=label, partials=partials, at=at, data=float(value.data))


def _make_tensor(tensor, children: list[Node]) -> Node:
    data = np.asarray(tensor.realize_cached_data())
    if not children:
        requires_grad = bool(getattr(tensor, "requires_grad", True))
        return leaf(data, None, requires_grad and data.dtype.kind in "fc", EagerNode)
    if getattr(tensor, "op", None) is None:
        raise GraphError(f"a needle tensor of shape {data.shape} has inputs but no op")
    return op_for(_NEEDLE_OPS, tensor.op, NeedleOp)(*children, foreign=tensor)


def adopt_value(value: Any) -> Node:
    """The eager vizad node standing for a student's micrograd-style value (its label its
    name)."""
    return _walk(value, micrograd_children, lambda v: float(v.data), _VALUES, _make_value)


def adopt_tensor(tensor: Any) -> Node:
    """The eager vizad node standing for a student's needle-style tensor."""
    return _walk(
        tensor,
        lambda t: list(t.inputs or ()),
        lambda t: t.realize_cached_data(),
        _TENSORS,
        _make_tensor,
    )


adapters.register_adapter(is_micrograd_value, adopt_value)
adapters.register_adapter(is_needle_tensor, adopt_tensor)
