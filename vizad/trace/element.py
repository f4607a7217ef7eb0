"""Inside a tensor: the walkthrough of one element of an adjoint.

``trace.element(node, index)`` follows ``trace.adjoint(node)[index]`` back through the adjoint
nodes that computed it: v̄ᵢ[index] = Σⱼ v̄ᵢ→ⱼ[index] over the consumers vⱼ, and each partial
adjoint's element is what its op's element rule (:mod:`vizad.engine.elements`) says it is made
of: one element moved (reshape, transpose, broadcast), a sum of elements (sum_to_shape: "b̄[j]
is the sum over the batch"), a sum of products (matmul: "X̄[2, 1] = Σₖ Z̄[2, k]·W[1, k]"), or an
elementwise formula of elements. The terms added are listed with their labels and values,
each opens into the walkthrough of the adjoint element it reads, down to the seed, and the
walkthrough steps through them one term at a time like any other (``vz.step``, exports).

Every number is the engine's: ``value`` is read from the evaluated adjoint (bit for bit
``trace.adjoint(node)[index]``); a term is read from the evaluated array it is an element of
(the unreduced v̄ⱼ·∂vⱼ/∂vᵢ of a broadcast, v̄ⱼ itself), and a matmul's terms, which no array
holds, are the products of the two elements it reads. How the terms add up to the value:

- ``in_order``: the terms added in the order listed, as the engine adds them: consumer by
  consumer in the order the engine adds the partial adjoints (add_n's), within one partial
  adjoint one after the other, or, for a sum whose terms numpy's loop runs along, in numpy's
  pairwise order (8 running sums added pairwise; runs along the last summed axis each so);
  which of the orders numpy's reduction loop can take is told by the bits, and each part's
  ``order`` says it. That is the value bit for bit for every sum of numpy's the tests try
  (sum_to_shape, sum, add_n, add; shapes with size-1 and broadcast axes, up to 1,000
  terms); one in an order vizad does not reproduce is said, not hidden.
  A matmul is different: BLAS adds its products with fused multiply-adds (a product is not
  rounded before it is added) in an order that depends on its kernel, so no order of adding
  the rounded products need give its bits (with two terms, a·b + c·d in either order differs
  from BLAS's fma(c, d, a·b) in the last bit about a quarter of the time): ``in_order`` adds
  them one after the other, the walkthrough says by how much that differs from the value,
  and the value is BLAS's.
- ``replayed``: the engine's own op run again on exactly the terms listed, at the positions
  the rule gives (every other element −0.0, which adds nothing; a matmul's BLAS on the row and
  column its products read), and the partial adjoints added as the engine adds them: the
  value bit for bit, which shows the terms are exactly the numbers the engine added
  (``check()`` reports an element where it is not).
"""

from __future__ import annotations

import functools
import weakref
from dataclasses import dataclass, field
from typing import Any, NamedTuple
from collections.abc import Callable, Sequence

import numpy as np

from vizad.engine.elements import Apply, Dot, Pick, Reduce, element_rule
from vizad.engine.node import Node
from vizad.engine.op import CONSTANT, VARIABLE
from vizad.engine.ops.structure import _MAKE_TUPLE as MAKE_TUPLE
from vizad.engine.ops.structure import _TUPLE_GET as TUPLE_GET
from vizad.engine.tree import is_tuple
from vizad.errors import ElementIndexError, RuleNotDefinedError
from vizad.trace.names import Name
from vizad.trace.text import latex_to_text, latex_value, printable

__all__ = ["Term", "ElementPart", "element_parts", "checked_index"]

Index = tuple[int, ...]

#: A term's label lists at most this many terms of a sum inside it (log_softmax's Σₖ v̄[i, k]).
INNER_TERMS = 3
#: A line of the derivation writes at most this many terms (the first and the last ones).
LINE_TERMS = 8
#: The panel's table lists at most this many terms (the newest up to the step).
PANEL_ROWS = 40
#: How deep an element is followed inside one partial adjoint's rule (a user's vjp of many
#: nested ops): deeper, its element is read as it is (a leaf).
MAX_DEPTH = 64


@dataclass(frozen=True)
class Term:
    """One number added to make the element: its label ("v̄₅[3, 1]", "v̄₅[2, 0] · v₂[1, 0]"),
    its LaTeX, its value, the consumer vⱼ whose partial adjoint v̄ᵢ→ⱼ it is part of, and the
    elements it reads, ``(node, index)``: the adjoint element ``opens`` (a forward node and an
    index, whose walkthrough :meth:`open` gives), and forward values.

    Examples:
        >>> x, b = vz.Variable("x", shape=(3, 2)), vz.Variable("b", shape=(2,))
        >>> trace = vz.trace_reverse(vz.sum(x + b), [x, b], {x: np.ones((3, 2)), b: np.ones(2)})
        >>> element = trace.element(b, 0)
        >>> term = element.terms[2]
        >>> term.label, term.value, term.open().node.op.name
        ('v̄₃[2, 0]', np.float64(1.0), 'add')
    """

    label: str
    latex: str
    value: Any
    consumer: Node
    reads: tuple[tuple[Node, Index], ...]
    #: The forward node and index whose adjoint element the term reads (None: it reads none,
    #: a sum of one partial adjoint read as it is).
    opens: tuple[Node, Index] | None
    #: "element" (an element of an evaluated array, read), "product" (a matmul's product of
    #: two elements, which no array holds: computed), "formula" (an elementwise formula of
    #: elements, its value read) or "negated" (a term subtracted).
    kind: str = "element"
    _trace: Any = field(default=None, repr=False, compare=False)  # the reverse trace

    def open(self) -> Any:
        """The walkthrough of the adjoint element this term reads (one level deeper: it has
        terms of its own, down to the seed)."""
        if self.opens is None or self._trace is None:
            raise RuleNotDefinedError(
                f"the term {self.label} reads no adjoint element: there is nothing to open"
            )
        return self._trace.element(*self.opens)


class ElementPart(NamedTuple):
    """The element of one partial adjoint v̄ᵢ→ⱼ[index]: its consumer, its name, its value (the
    engine's), how its rule makes it ("sum", "products", "one term") and its terms.

    Examples:
        >>> x, b = vz.Variable("x", shape=(3, 2)), vz.Variable("b", shape=(2,))
        >>> trace = vz.trace_reverse(vz.sum(x + b), [x, b], {x: np.ones((3, 2)), b: np.ones(2)})
        >>> element = trace.element(b, 0)
        >>> (part,) = element.parts
        >>> part.name.text, part.how, len(part.terms), part.value, part.order
        ('v̄₂→₃', 'sum', 3, np.float64(3.0), 'one after the other')
    """

    consumer: Node
    #: The position of vᵢ among the consumer's inputs.
    position: int
    name: Name
    node: Node
    value: Any
    how: str
    terms: tuple[Term, ...]
    #: The terms added in the engine's order where vizad knows it (see the module's
    #: docstring), that order in words, and the engine's op run again on the terms.
    in_order: Any
    order: str
    replayed: Any


# -- the expansion of an element ------------------------------------------------------------
@dataclass(frozen=True)
class _Expr:
    """An element as its rule makes it: a leaf (an element read as it is), an elementwise
    formula of elements ("apply"), a sum ("sum", with ``slots``: where each term sits in the
    reduced input, or the pairs of a matmul), a product of two elements, or a negation."""

    kind: str
    value: Any
    latex: str
    node: Node | None = None
    index: Index = ()
    children: tuple[_Expr, ...] = ()
    how: str = ""
    slots: tuple = ()
    reads: tuple[tuple[Node, Index], ...] = ()


def index_text(index: Index) -> str:
    return f"[{', '.join(map(str, index))}]" if index else ""


class _Expander:
    """Expands the elements of one walkthrough's adjoint nodes (see :func:`element_parts`)."""

    def __init__(self, trace: Any) -> None:
        self.trace = trace
        self.values = trace.values
        self.names = trace.names
        record = trace.record
        #: adjoint node → the forward node it is the adjoint of
        self.adjoint_of: dict[Node, Node] = {}
        for node in record.order:
            total = record.adjoint(node)
            if total is not None:
                self.adjoint_of.setdefault(total, node)
        self.forward = set(trace.graph)

    def name(self, node: Node) -> Name:
        of = self.adjoint_of.get(node)
        return self.names.bar(of) if of is not None else self.names.name(node)

    def leaf(self, node: Node, index: Index) -> _Expr:
        value = self.values[node]
        if node.op is CONSTANT:
            scalar = np.asarray(value)[index] if np.ndim(value) else np.asarray(value)
            return _Expr("leaf", scalar, latex_value(scalar, 4), node, index)
        name = self.name(node)
        return _Expr(
            "leaf",
            np.asarray(value)[index],
            name.latex + index_text(index),
            node,
            index,
            reads=((node, index),),
        )

    def is_leaf(self, node: Node, start: Node) -> bool:
        return node is not start and (
            node in self.forward or node in self.adjoint_of or node.op in (VARIABLE, CONSTANT)
        )

    def expand(self, root: Node, index: Index, flow: set[Node], where: str) -> _Expr:
        """The element ``index`` of ``root`` (a partial adjoint node) as its rules make it;
        ``flow``: the nodes of the rule that carry v̄ⱼ (one without an element rule is
        refused: its element cannot be followed; ``where`` says which element and partial
        adjoint, for that error)."""

        @functools.cache
        def go(node: Node, at: Index, depth: int, top: bool) -> _Expr:
            # ``top``: reached from the root through moves and sums only, where an add or a
            # sub is itself a sum whose inputs are terms (inside a formula it is a formula)
            if self.is_leaf(node, root) or depth > MAX_DEPTH:
                return self.leaf(node, at)
            if node.op is TUPLE_GET:  # one value of a tuple: where the tuple was made
                x = node.inputs[0]
                if x.op is MAKE_TUPLE and not self.is_leaf(x, root):
                    return go(x.inputs[node.attrs["index"]], at, depth + 1, top)
                if x in flow and not self.is_leaf(x, root):
                    raise _not_available(x, where)  # (a framework's vjp: one opaque tuple)
                return self.leaf(node, at)
            inputs = [self.values[x] for x in node.inputs]
            rule = element_rule(node, at, inputs) if not is_tuple(self.values[node]) else None
            if rule is None:
                if node in flow:
                    raise _not_available(node, where)
                return self.leaf(node, at)
            value = np.asarray(self.values[node])[at]
            if isinstance(rule, Pick):
                return go(node.inputs[rule.input], rule.at, depth + 1, top)
            if isinstance(rule, Reduce):
                x = node.inputs[rule.input]
                kids = tuple(go(x, m, depth + 1, top) for m in rule.at)
                slots = tuple((rule.input, m) for m in rule.at)
                return _sum(node, at, value, kids, "sum", slots)
            if isinstance(rule, Dot):
                a, b = node.inputs
                kids = tuple(
                    _product(go(a, ia, depth + 1, False), go(b, ib, depth + 1, False))
                    for ia, ib in rule.at
                )
                return _sum(node, at, value, kids, "products", rule.at)
            assert isinstance(rule, Apply)
            inner = top and rule.signs is not None
            operands: tuple[_Expr | None, ...] = tuple(
                go(x, i, depth + 1, inner) if i is not None else None
                for x, i in zip(node.inputs, rule.at)
            )
            if inner:
                signs = rule.signs or ()
                signed = tuple(
                    k if s > 0 else _negated(k) for k, s in zip(operands, signs) if k is not None
                )
                return _sum(node, at, value, signed, "sum of inputs", ())
            return self.apply(node, at, value, operands)

        return go(root, index, 0, True)

    def apply(self, node: Node, at: Index, value: Any, kids: tuple) -> _Expr:
        args = [
            (_wrapped(k.latex) if k.kind in ("apply", "neg", "sum", "product") else k.latex)
            if k is not None
            else self.names.symbol(x)
            for k, x in zip(kids, node.inputs)
        ]
        latex = node.op.latex(args, node.attrs)
        reads = tuple(r for k in kids if k is not None for r in k.reads)
        children = tuple(k for k in kids if k is not None)
        return _Expr("apply", value, latex, node, at, children, reads=reads)


def _wrapped(latex: str) -> str:
    return rf"\left({latex}\right)"


def _sum(node, at, value, kids, how, slots) -> _Expr:
    shown = [k.latex for k in kids[:INNER_TERMS]]
    latex = (
        r"\textstyle\sum\left("
        + " + ".join(shown)
        + (r" + \ldots" if len(kids) > INNER_TERMS else "")
        + r"\right)"
    )
    reads = tuple(r for k in kids for r in k.reads)
    return _Expr("sum", value, latex, node, at, kids, how, slots, reads)


def _product(a: _Expr, b: _Expr) -> _Expr:
    value = np.multiply(a.value, b.value)  # the one number no array holds: BLAS's product
    latex = rf"{_factor(a)} \cdot {_factor(b)}"
    return _Expr("product", value, latex, children=(a, b), reads=a.reads + b.reads)


def _factor(e: _Expr) -> str:
    return _wrapped(e.latex) if e.kind in ("apply", "neg", "sum", "product") else e.latex


def _negated(e: _Expr) -> _Expr:
    return _Expr("neg", -e.value, f"-{_factor(e)}", children=(e,), reads=e.reads)


def _terms(e: _Expr) -> list[_Expr]:
    """The terms of an element: the leaves of its tree of sums, in order."""
    out, stack = [], [e]
    while stack:
        x = stack.pop()
        if x.kind == "sum":
            stack.extend(reversed(x.children))
        else:
            out.append(x)
    return out


def _summed(e: _Expr) -> tuple[Any, str]:
    """The terms of ``e`` added in the order the engine adds them, sum by sum, where vizad
    knows that order (in ``e``'s float type), and that order in words: one after the other,
    or numpy's pairwise order for a sum that numpy adds so."""
    if e.kind != "sum":
        return e.value, "one term"
    values = [_summed(k)[0] for k in e.children]
    if not values:
        return np.zeros_like(e.value), "no terms"
    total = functools.reduce(lambda a, b: a + b, values)
    if e.how == "sum" and not same_bits(total, e.value):
        # numpy's loop adds the run of terms along the axis it runs over pairwise (8 running
        # sums), and the runs one after the other: the same terms in that order are the
        # engine's bits (vizad tries the orders numpy's loop can take; the bits tell)
        for order, made in _numpy_orders(values, e.slots):
            if same_bits(made, e.value):
                return made, order
    return total, "one after the other"


def _numpy_orders(values: list, slots: tuple) -> list[tuple[str, Any]]:
    """The sums of ``values`` in the orders numpy's reduction loop can take (``slots``: the
    position of each term in the reduced input, in index order): all pairwise, as one run;
    or in runs along the last summed axis (positions differing only there), each pairwise,
    the runs added one after the other."""
    out = [("numpy's pairwise order (8 running sums)", _pairwise(values))]
    positions = [m for _, m in slots]
    if len(positions) > 1:
        varying = [k for k in range(len(positions[0])) if len({m[k] for m in positions}) > 1]
        if len(varying) > 1:
            last = varying[-1]
            runs: dict[tuple, list] = {}
            for m, v in zip(positions, values):
                runs.setdefault(m[:last] + m[last + 1 :], []).append(v)
            total = np.zeros_like(values[0])
            for run in runs.values():
                total = total + _pairwise(run)
            out.append(("numpy's order: runs along the last summed axis, each pairwise", total))
    return out


def _pairwise(values: list) -> Any:
    """numpy's pairwise summation of ``values`` (its ``pairwise_sum`` loop): fewer than 8
    one after the other from 0, up to 128 in 8 running sums added pairwise then the rest,
    more split in two halves (a multiple of 8) summed so and added."""
    n = len(values)
    zero = np.zeros_like(values[0])
    if n < 8:
        total = zero
        for v in values:
            total = total + v
        return total
    if n <= 128:
        r = list(values[:8])
        i = 8
        while i < n - n % 8:
            for j in range(8):
                r[j] = r[j] + values[i + j]
            i += 8
        total = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
        for v in values[i:]:
            total = total + v
        return total
    half = n // 2
    half -= half % 8
    return _pairwise(values[:half]) + _pairwise(values[half:])


def _replayed(e: _Expr, values) -> Any:
    """``e``'s value computed again by the engine's own op on exactly its terms (a sum: its
    reduced input, or a matmul's two, −0.0 but for the terms' places, which hold the terms'
    own values replayed); any other element: its value as read."""
    if e.kind != "sum" or e.node is None or e.how == "sum of inputs":
        if e.kind == "sum" and e.how == "sum of inputs":
            return _summed(e)[0]  # add / sub: one addition each, as the engine does it
        return e.value
    node = e.node
    inputs = [values[x] for x in node.inputs]
    if e.how == "sum":
        k = e.slots[0][0]
        padded = np.full_like(np.asarray(inputs[k]), -0.0)
        for (_, m), kid in zip(e.slots, e.children):
            padded[m] = _replayed(kid, values)
        inputs[k] = padded
    else:  # products: the two factors of each, in place
        a = np.full_like(np.asarray(inputs[0]), -0.0)
        b = np.full_like(np.asarray(inputs[1]), -0.0)
        for (ia, ib), kid in zip(e.slots, e.children):
            a[ia], b[ib] = kid.children[0].value, kid.children[1].value
        inputs[0], inputs[1] = a, b
    return np.asarray(node.op.bind(node)(*inputs))[e.index]


def _not_available(node: Node, where: str) -> RuleNotDefinedError:
    return RuleNotDefinedError(
        f"trace.element: the walkthrough of {where} is not available for op "
        f"{node.op.name!r} ({node.describe()}): vizad has no element rule for that op (which "
        "elements of its inputs make one element of its output), and it computes that "
        "partial adjoint; trace.adjoint(node) gives the whole tensor"
    )


def _stops_at(stops: Callable[[Node, Node], bool], root: Node, node: Node) -> bool:
    """Whether ``node`` ends the rule of partial adjoint ``root`` (a leaf of its expansion)."""
    return stops(node, root)


def _flow(root: Node, source: Node | None, stops: Callable[[Node], bool]) -> set[Node]:
    """The nodes of ``root``'s rule that depend on ``source`` (v̄ⱼ): walked down from
    ``root`` to the nodes ``stops`` says end the rule (iteratively)."""
    if source is None:
        return set()
    inside: list[Node] = []
    seen = {root}
    stack = [root]
    while stack:
        node = stack.pop()
        inside.append(node)
        if node is not root and stops(node):
            continue
        for x in node.inputs:
            if x not in seen:
                seen.add(x)
                stack.append(x)
    carries = {source}
    changed = True  # (a pre-order walk is no topological order: iterate to a fixed point)
    while changed:
        changed = False
        for node in inside:
            if node not in carries and any(x in carries for x in node.inputs):
                carries.add(node)
                changed = True
    return carries


# -- the walkthrough -----------------------------------------------------------------------
def checked_index(trace: Any, node: Node, index: Any) -> Index:
    """``index`` as a tuple of non-negative ints inside the adjoint of ``node``; an
    ElementIndexError naming the node, the shape and the index otherwise."""
    adjoint = trace.adjoint(node)  # StepNotFoundError for a node without a step
    label = trace.label(node)
    if is_tuple(adjoint):
        raise ElementIndexError(
            f"trace.element: the adjoint of {label} ({node.describe()}) is a tuple value; an "
            "element walkthrough takes an element of an array"
        )
    shape = tuple(np.shape(adjoint))
    given = index
    if isinstance(index, (int, np.integer)) and not isinstance(index, (bool, np.bool_)):
        index = (index,)
    if not isinstance(index, tuple) or not all(
        isinstance(i, (int, np.integer)) and not isinstance(i, (bool, np.bool_)) for i in index
    ):
        raise ElementIndexError(
            f"trace.element: an index is an int or a tuple of ints, one per axis of the "
            f"adjoint of {label} (shape {shape}), got {type(given).__name__} {given!r:.40}"
        )
    if len(index) != len(shape) or any(not -d <= i < d for i, d in zip(index, shape)):
        want = "() for a scalar" if not shape else f"{len(shape)} ints, each -d ≤ i < d"
        raise ElementIndexError(
            f"trace.element: index {given!r:.40} is not an element of the adjoint of {label} "
            f"({node.describe()}), of shape {shape}: give {want}"
        )
    return tuple(int(i) % d for i, d in zip(index, shape))


def element_parts(trace: Any, node: Node, index: Any) -> tuple[Index, list[ElementPart], list[int]]:
    """The element ``index`` of v̄ of ``node`` in reverse walkthrough ``trace``: the index
    checked, the element of each partial adjoint with its terms, and the order in which the
    engine adds them (see the module's docstring)."""
    at = checked_index(trace, node, index)
    expander = _expander(trace)
    record = trace.record
    total = record.adjoint(node)
    parts: list[ElementPart] = []
    names = trace.names
    stops = expander.is_leaf
    for p in record.partials(node):
        source = record.adjoint(p.consumer)
        flow = _flow(p.node, source, functools.partial(_stops_at, stops, p.node))
        where = (
            f"{names.bar(node).text}{index_text(at)} ({node.describe()}) through "
            f"{names.partial(node, p.consumer, p.index).text}, from consumer "
            f"{names.label(p.consumer)} = op {p.consumer.op.name!r}"
        )
        expr = expander.expand(p.node, at, flow, where)
        terms = tuple(_term(e, p.consumer, expander, trace) for e in _terms(expr))
        how = {"sum": "sum", "products": "products", "sum of inputs": "sum"}.get(
            expr.how if expr.kind == "sum" else "", "one term"
        )
        parts.append(
            ElementPart(
                p.consumer,
                p.index,
                names.partial(node, p.consumer, p.index),
                p.node,
                expr.value,
                how,
                terms,
                *_summed(expr),
                _replayed(expr, trace.values),
            )
        )
    return at, parts, _add_order(total, [p.node for p in parts])


def _expander(trace: Any) -> _Expander:
    """The expander of ``trace``'s elements, made once per trace (its lookups and the
    elements it has followed are kept)."""
    made = _EXPANDERS.get(trace)
    if made is None:
        made = _EXPANDERS[trace] = _Expander(trace)
    return made


#: trace → its expander (see :func:`_expander`).
_EXPANDERS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _add_order(total: Node, partial_nodes: list[Node]) -> list[int]:
    """The order in which the engine adds the partial adjoints (positions in
    ``partial_nodes``): add_n's ``order`` where it has one, else as listed."""
    if len(partial_nodes) <= 1 or total.op.name != "add_n":
        return list(range(len(partial_nodes)))
    listed = list(total.inputs)
    order = total.attrs.get("order") or range(len(listed))
    return [partial_nodes.index(listed[k]) for k in order]


def _term(e: _Expr, consumer: Node, expander: _Expander, trace: Any) -> Term:
    opens = None
    for node, index in e.reads:
        of = expander.adjoint_of.get(node)
        if of is not None:
            opens = (of, index)
            break
    latex = e.latex
    kind = {"leaf": "element", "apply": "formula", "neg": "negated"}.get(e.kind, e.kind)
    return Term(
        printable(latex_to_text(latex)), latex, e.value, consumer, e.reads, opens, kind, trace
    )


def summed_in(parts: Sequence[ElementPart], order: Sequence[int], which: str, like: Any) -> Any:
    """The parts' ``which`` (in_order or replayed) added in the engine's ``order``."""
    total = None
    for k in order:
        v = getattr(parts[k], which)
        total = v if total is None else total + v
    return like if total is None else total


def same_bits(a: Any, b: Any) -> bool:
    """Whether two numbers are the same bits (NaN as NaN; -0.0 is not 0.0)."""
    x, y = np.asarray(a), np.asarray(b)
    return x.dtype == y.dtype and x.tobytes() == y.tobytes()
