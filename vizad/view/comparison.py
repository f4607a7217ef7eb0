"""``vz.compare(a, b)``: two reverse traces of one function, matched node for node, with the
places where their adjoints differ and by how much.

The traces may come from different engines (PyTorch's own backward pass and vizad's of the
same function imported with ``vz.from_torch``; JAX's and PyTorch's) whose graphs are cut into
different ops (PyTorch's ``addmm`` is vizad's ``add`` of a ``matmul``). Nodes are matched
from the inputs up: inputs by name (then by value; an input of ``a`` that is a constant of
``b``, such as the weights of a module that an imported function closes over, by value, as an
anchor for what is computed from it), the outputs to each other, and every other node of
``a`` to an unmatched node of ``b`` of the same shape that is computed from the images of
all of its matched inputs and, where both traces know the forward values, has the same value:
by structure first (computed straight from those images, not through another of them), then
the same op, then the same line of the user's code, then the first in topological order.
What is left is listed as found in one trace only.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any, NamedTuple

import numpy as np

from vizad.errors import ArgumentTypeError
from vizad.engine.node import Node
from vizad.engine.op import CONSTANT, VARIABLE, constant_value
from vizad.view.render.dot import Drawing, to_drawing
from vizad.view.render.scene import fixed
from vizad.view.render.summary import scene_for
from vizad.trace.text import (
    escape,
    format_difference,
    format_value,
    is_roundoff,
    roundoff_note,
    roundoff_tolerance,
)
from vizad.trace import ReverseStep, ReverseTrace
from vizad.engine.tree import Unrecorded, is_tuple, shape_of

__all__ = ["compare", "Comparison", "Match"]


class Match(NamedTuple):
    """A node of trace ``a`` and the node of trace ``b`` it was matched with, their adjoints
    and the largest absolute difference between them (NaN where they cannot be compared)."""

    a: Node
    b: Node
    adjoint_a: Any
    adjoint_b: Any
    difference: float
    #: Whether the adjoints agree (to the comparison's tolerances).
    same: bool
    #: Where they differ: the consumer (in ``a``) whose partial adjoint v̄ᵢ→ⱼ differs most
    #: from its match's in ``b`` (the rule that differs: abs at 0), else None.
    via: Node | None = None

    @property
    def roundoff(self) -> bool:
        """Whether the adjoints differ by round-off at most (:func:`vizad.engine.text.is_roundoff`):
        shown as "round-off", not as a number, whose digits change from machine to machine."""
        return is_roundoff(self.difference, self.adjoint_a, self.adjoint_b)

    @property
    def shown_difference(self) -> str:
        """The difference as a person reads it: "round-off", a number, or "—" where the
        adjoints cannot be compared."""
        if np.isnan(self.difference):
            return "—"
        return format_difference(self.difference, self.adjoint_a, self.adjoint_b)


class Comparison:
    """Two traces matched node for node: ``matches`` (in ``a``'s step order), the nodes of
    either found in that trace only, and ``differ``, the matches whose adjoints differ.
    Shown as a table in Jupyter; :meth:`draw` marks the differences on ``a``'s graph."""

    def __init__(
        self,
        a: ReverseTrace,
        b: ReverseTrace,
        matches: list[Match],
        only_a: list[Node],
        only_b: list[Node],
        names: tuple[str, str],
        rtol: float,
        atol: float,
    ) -> None:
        self.a, self.b = a, b
        self.matches: list[Match] = matches
        self.only_a: list[Node] = only_a
        self.only_b: list[Node] = only_b
        #: What the two traces are called ("PyTorch", "vizad").
        self.names = names
        self.rtol, self.atol = rtol, atol

    @property
    def differ(self) -> list[Match]:
        return [m for m in self.matches if not m.same]

    @property
    def ok(self) -> bool:
        """Whether every matched pair of adjoints agrees."""
        return not self.differ

    @property
    def largest(self) -> float:
        """The largest difference between matched adjoints (0 when none differ), exact: the
        summary and the table show a difference within round-off as "round-off"."""
        return max((m.difference for m in self.matches if not np.isnan(m.difference)), default=0.0)

    def summary(self) -> str:
        """One line: how many nodes matched, how many differ and by how much (differences
        within round-off said as such: :func:`vizad.engine.text.is_roundoff`)."""
        na, nb = self.names
        differ = self.differ
        text = (
            f"{na} vs {nb}: {len(self.matches)} nodes matched, "
            f"{len(self.only_a)} only in {na}, {len(self.only_b)} only in {nb}; "
        )
        if not differ:
            return text + "every matched adjoint agrees" + self._agreement()
        worst = max(differ, key=lambda m: -1 if np.isnan(m.difference) else m.difference)
        via = f", through {self._via(worst.via)}" if worst.via is not None else ""
        many = "adjoints differ" if len(differ) > 1 else "adjoint differs"
        return text + (
            f"{len(differ)} {many}, most at {self.a.label(worst.a)} "
            f"(by {worst.shown_difference}{via})"
        )

    def _agreement(self) -> str:
        """How closely the matched adjoints agree, for the summary: " to round-off (relative
        difference ≤ 1e-12)" when every difference is round-off, else the largest of the
        others, which is no round-off (and how many are)."""
        note = roundoff_note(
            tolerance=max(
                (roundoff_tolerance(m.adjoint_a, m.adjoint_b) for m in self.matches),
                default=roundoff_tolerance(),
            )
        )
        beyond = [m.difference for m in self.matches if not m.roundoff]
        if not beyond:
            return f" to round-off ({note})"
        within = len(self.matches) - len(beyond)
        return (
            f" ({within} to round-off, {note}; the largest other difference {max(beyond):.3g})"
            if within
            else f" (largest difference {max(beyond):.3g})"
        )

    def _via(self, via: Node) -> str:
        """ "the partial adjoint from v₃ (abs)": where a differing adjoint starts to differ
        (``via``: a match's consumer whose partial adjoints differ most)."""
        return f"the partial adjoint from {self.a.label(via)} ({via.op.name})"

    def rows(self, decimals: int = 3) -> list[list[str]]:
        """The table: per match, the node in ``a`` and in ``b`` (name and op), both adjoints,
        the difference ("round-off" where it is within round-off), and whether they agree."""
        out = []
        for m in self.matches:
            out.append(
                [
                    f"{self.a.label(m.a)} ({m.a.op.name})",
                    f"{self.b.label(m.b)} ({m.b.op.name})",
                    format_value(m.adjoint_a, decimals),
                    format_value(m.adjoint_b, decimals),
                    m.shown_difference,
                    "✓"
                    if m.same
                    else "✗ differ" + (f", via {self._via(m.via)}" if m.via is not None else ""),
                ]
            )
        return out

    def _repr_html_(self) -> str:
        na, nb = self.names
        head = [f"node in {na}", f"node in {nb}", f"v̄ in {na}", f"v̄ in {nb}", "|Δ|", ""]
        cell = "padding:2px 8px;border-bottom:1px solid rgba(128,128,128,0.3);text-align:left"
        bad = "background:rgba(192,57,43,0.15)"
        rows = "".join(
            f'<tr style="{"" if m.same else bad}">'
            + "".join(f'<td style="{cell}">{escape(c)}</td>' for c in row)
            + "</tr>"
            for m, row in zip(self.matches, self.rows())
        )
        only = [
            f"only in {name}: " + ", ".join(trace.label(n) for n in nodes)
            for name, trace, nodes in ((na, self.a, self.only_a), (nb, self.b, self.only_b))
            if nodes
        ]
        notes = "".join(f'<div style="opacity:0.7;font-size:12px">{escape(t)}</div>' for t in only)
        return (
            '<div class="vizad-comparison tex2jax_ignore mathjax_ignore">'
            f'<div style="font-weight:600;margin:4px 0">{escape(self.summary())}</div>'
            '<table style="border-collapse:collapse;font-size:13px;'
            'font-variant-numeric:tabular-nums"><thead><tr>'
            + "".join(f'<th style="{cell}">{escape(h)}</th>' for h in head)
            + f"</tr></thead><tbody>{rows}</tbody></table>{notes}</div>"
        )

    def __repr__(self) -> str:
        return f"<Comparison {self.summary()}>"

    def draw(self, view: str = "backprop", *, decimals: int = 3) -> Drawing:
        """``a``'s graph in ``view`` (default: each node's adjoint laid on the forward graph)
        with each matched box green where its adjoint agrees with ``b``'s and red where it
        differs, the difference written in the box; unmatched boxes stay grey."""
        scene = scene_for(self.a, view, decimals)
        by_node = {m.a: m for m in self.matches}
        nb = self.names[1]
        states: dict[str, str] = {}
        items = []
        for item in scene.items:
            m = by_node.get(item.node) if item.node is not None else None
            if m is None:
                states[item.id] = "pending"
                items.append(item)
                continue
            states[item.id] = "done" if m.same else "failed"
            if not m.same:
                note = f"Δ = {m.shown_difference} vs {self.b.label(m.b)} of {nb}"
                if m.via is not None:
                    note += f", via {self.a.label(m.via)}"
                item = dataclasses.replace(item, text=fixed((*item.lines, note), item.heatmaps))
            items.append(item)
        scene = dataclasses.replace(scene, items=items, legend=False)
        na = self.names[0]
        caption = [
            self.summary(),
            f"green: the adjoint agrees with {nb}'s; red: it differs (Δ: the largest "
            f"absolute difference); grey: not matched in {nb}. The graph is {na}'s.",
        ]
        return to_drawing(scene, states, caption=caption)


def compare(
    a: ReverseTrace,
    b: ReverseTrace,
    *,
    labels: tuple[str, str] | None = None,
    rtol: float = 1e-6,
    atol: float = 1e-9,
) -> Comparison:
    """Match the nodes of two reverse traces of one function and compare their adjoints:
    ``vz.compare(vz.torch_backward(loss), vz.trace_reverse(f.output, f.inputs, f.feed))``.
    Adjoints agree where ``|a − b| ≤ atol + rtol·|b|`` entry by entry (a tuple adjoint
    element by element), where both are NaN or the same infinity, or where they differ by
    round-off of their float type (float32: 1e-5 of their largest entry). ``labels`` says
    what the traces are (default: their engines, "vizad" for vizad's own). A node is matched only
    to a node whose value has the same kind of dtype (never a boolean to a float) and whose
    adjoint has the same shape, preferring one of the same op. A difference within round-off
    (:func:`vizad.engine.text.is_roundoff`) is shown as "round-off", not as a number whose
    digits change from machine to machine; ``Match.difference`` and ``largest`` stay exact.

    Examples:
        >>> x1, x2 = vz.Variable("x1"), vz.Variable("x2")
        >>> y = vz.log(x1) + x1 * x2 - vz.sin(x2)
        >>> a = vz.trace_reverse(y, [x1, x2], {x1: 2.0, x2: 5.0})
        >>> b = vz.trace_reverse(y, [x1, x2], {x1: 2.0, x2: 5.1})
        >>> comparison = vz.compare(a, b, labels=("at 5", "at 5.1"))
        >>> comparison.ok
        False
        >>> [str(m.a) for m in comparison.differ]
        ['x1', 'x2']
    """
    for what, trace in (("a", a), ("b", b)):
        if not isinstance(trace, ReverseTrace):
            raise ArgumentTypeError(
                f"compare: {what} must be a reverse trace (vz.trace_reverse, "
                f"vz.torch_backward, vz.jax_backward), got {type(trace).__name__}"
            )
    names = labels or (a.engine or "vizad", b.engine or "vizad")
    if names[0] == names[1]:
        names = (f"{names[0]} (a)", f"{names[1]} (b)")
    pairs = _match(a, b)
    matches = [_compared(a, b, x, y, rtol, atol, pairs) for x, y in pairs.items()]
    matched_b = set(pairs.values())
    only_a = [s.node for s in a.steps if s.node not in pairs]
    only_b = [s.node for s in b.steps if s.node not in matched_b]
    return Comparison(a, b, matches, only_a, only_b, names, rtol, atol)


def _compared(
    a: ReverseTrace,
    b: ReverseTrace,
    x: Node,
    y: Node,
    rtol: float,
    atol: float,
    pairs: dict[Node, Node],
) -> Match:
    ga, gb = a.adjoint(x), b.adjoint(y)
    difference, same = _difference(ga, gb, rtol, atol)
    if same:
        return Match(x, y, ga, gb, difference, same)
    via, most = None, 0.0  # the matched consumer whose partial adjoints differ most
    partials_b = _by_consumer(b.step_of(y))
    for consumer, partial in _by_consumer(a.step_of(x)).items():
        image = pairs.get(consumer)
        other = partials_b.get(image) if image is not None else None
        if other is not None:
            d, agree = _difference(partial, other, rtol, atol)
            if not agree and (via is None or d > most):
                via, most = consumer, d
    return Match(x, y, ga, gb, difference, same, via)


def _by_consumer(step: ReverseStep) -> dict[Node, Any]:
    """The partial adjoints a step receives, added up per consumer (v₁ × v₁ passes two)."""
    out: dict[Node, Any] = {}
    for c in step.contributions:
        partial = c.partial
        if is_tuple(partial):
            continue
        out[c.consumer] = partial if c.consumer not in out else out[c.consumer] + partial
    return out


def _difference(ga: Any, gb: Any, rtol: float, atol: float) -> tuple[float, bool]:
    """The largest absolute difference of two adjoints and whether they agree (NaN and
    False where they cannot be compared: other shapes or structures). Tuple adjoints are
    compared element by element; an element that neither trace has (no gradient) agrees."""
    if is_tuple(ga) or is_tuple(gb):
        if not (is_tuple(ga) and is_tuple(gb)) or len(ga) != len(gb):
            return float("nan"), False
        worst, agree = 0.0, True
        for ea, eb in zip(ga, gb):
            missing = isinstance(ea, Unrecorded), isinstance(eb, Unrecorded)
            if any(missing):
                if not all(missing):
                    return float("nan"), False
                continue
            d, same = _difference(ea, eb, rtol, atol)
            if np.isnan(d):
                return d, False
            worst, agree = max(worst, d), agree and same
        return worst, agree
    if np.shape(ga) != np.shape(gb):
        return float("nan"), False
    da, db = np.asarray(ga, dtype=np.float64), np.asarray(gb, dtype=np.float64)
    # NaN where both are NaN, and the same infinity, are the same number; NaN against a number
    # differs by NaN
    same = (da == db) | (np.isnan(da) & np.isnan(db))
    with np.errstate(invalid="ignore"):  # inf − inf where same: not read
        gap = np.where(same, 0.0, np.abs(da - db))
    difference = float(np.max(gap, initial=0.0))
    # within the tolerances entry by entry, or round-off of the adjoints' float type (float32:
    # 1e-5 of their largest entry, vizad.engine.text.is_roundoff)
    agree = bool(np.all(same | (np.isfinite(gap) & (gap <= atol + rtol * np.abs(db)))))
    return difference, agree or is_roundoff(difference, ga, gb)


def _match(a: ReverseTrace, b: ReverseTrace) -> dict[Node, Node]:
    """{node of a: node of b}, in a's topological order (see the module's docstring)."""
    order_a, order_b = a.graph, b.graph  # display orders: topological
    stepped_a = {s.node for s in a.steps}
    stepped_b = [n for n in order_b if _has_step(b, n)]
    pairs: dict[Node, Node] = {}
    taken: set[Node] = set()
    leaves_b = [n for n in stepped_b if n.op is VARIABLE]
    for x in (n for n in order_a if n.op is VARIABLE and n in stepped_a):
        y = next((n for n in leaves_b if n.name == x.name and n not in taken), None)
        if y is None:
            y = next((n for n in leaves_b if n not in taken and _same_value(a, x, b, n)), None)
        if y is not None:
            pairs[x] = y
            taken.add(y)
    # an input of a that is a constant of b (a module's weights that the function imported
    # with vz.from_torch closes over): matched by value, to match what is computed from it
    anchors: dict[Node, Node] = {}
    constants_b = [n for n in order_b if n.op is CONSTANT]
    for x in (n for n in order_a if n.op is VARIABLE and n in stepped_a and n not in pairs):
        y = next((n for n in constants_b if _same_value(a, x, b, n)), None)
        if y is not None:
            anchors[x] = y
    if a.output in stepped_a and _has_step(b, b.output) and b.output not in taken:
        pairs[a.output] = b.output
        taken.add(b.output)
    bit = {n: 1 << k for k, n in enumerate(order_b)}
    ancestors: dict[Node, int] = {}
    for n in order_b:
        mask = bit[n]
        for i in n.inputs:
            mask |= ancestors.get(i, 0)
        ancestors[n] = mask
    by_shape: dict[Any, list[Node]] = {}
    for n in stepped_b:
        by_shape.setdefault(_kind(b, n)[0], []).append(n)
    known = {**anchors, **pairs}  # what a's nodes are known to be in b
    matched_b = set(known.values())
    uses = _uses(order_a, order_b)
    for x in order_a:
        if x in pairs or x not in stepped_a or x.op is VARIABLE:
            continue
        images = [known[i] for i in _matched_ancestors(x, known)]
        need = 0
        for y in images:
            need |= bit[y]
        if not need:
            continue
        shape, dtype = _kind(a, x)
        candidates = [
            y
            for y in by_shape.get(shape, ())
            if y not in taken
            and _same_dtype_kind(dtype, _kind(b, y)[1])
            and ancestors[y] & need == need
            and y not in images
            and not _values_disagree(a, x, b, y)
        ]
        y = _closest(x, candidates, set(images), matched_b, uses) if candidates else None
        if y is not None:
            matched_b.add(y)
            pairs[x] = known[x] = y
            taken.add(y)
    return {x: pairs[x] for x in order_a if x in pairs}


def _closest(
    x: Node,
    candidates: list[Node],
    images: set[Node],
    matched_b: set[Node],
    uses: dict[Node, tuple[str, ...]],
) -> Node | None:
    """The candidate of ``b`` that stands where ``x`` stands in ``a``: computed straight from
    the images of ``x``'s nearest matched inputs (not through another image: PyTorch's
    ``copy_slices`` of ``h[1] = …`` is vizad's ``where`` that reads ``h``, not the
    ``broadcast_to`` of the row it writes), then of the same op (``masked_fill`` is a
    ``where``, ``pow`` a ``power``), then from the same line of the user's code, then read
    by the same ops (two ``x.unsqueeze(0)``, one multiplied, one a matmul's input: told
    apart by their consumers, when neither trace knows their lines); ties in ``b``'s
    topological order."""
    op, line, used = _op_kind(x), getattr(x, "source", None), uses.get(x, ())

    def rank(y: Node) -> tuple[bool, bool, bool, bool]:
        return (
            set(_matched_ancestors(y, matched_b)) != images,
            _op_kind(y) != op,
            line is None or getattr(y, "source", None) != line,
            uses.get(y, ()) != used,
        )

    best, top = None, None
    perfect = (False, False, line is None, False)
    for y in candidates:  # the first of the best
        r = rank(y)
        if r == perfect:
            return y
        if top is None or r < top:
            best, top = y, r
    return best


def _uses(*orders: list[Node]) -> dict[Node, tuple[str, ...]]:
    """For each node of the graphs, the ops that read it (:func:`_op_kind`, sorted)."""
    found: dict[Node, list[str]] = {}
    for order in orders:
        for n in order:
            for i in n.inputs:
                found.setdefault(i, []).append(_op_kind(n))
    return {n: tuple(sorted(kinds)) for n, kinds in found.items()}


def _matched_ancestors(x: Node, pairs: dict[Node, Node] | set[Node]) -> list[Node]:
    """The nearest matched nodes that ``x`` is computed from (through unmatched ones)."""
    found, seen, stack = [], set(), list(x.inputs)
    while stack:
        n = stack.pop()
        if n in seen:
            continue
        seen.add(n)
        if n in pairs:
            found.append(n)
        else:
            stack.extend(n.inputs)
    return found


def _has_step(trace: ReverseTrace, node: Node) -> bool:
    try:
        trace.step_of(node)
    except LookupError:
        return False
    return True


def _kind(trace: ReverseTrace, node: Node) -> tuple:
    """What a match must share: the adjoint's shape (its structure for a tuple) and the kind
    of the value's dtype (floating, integer, boolean)."""
    adjoint = trace.adjoint(node)
    shape = shape_of(adjoint) if is_tuple(adjoint) else np.shape(adjoint)
    value = trace.values.get(node) if node in trace.values else None
    dtype = getattr(value, "dtype", None)
    if dtype is None and value is not None and not is_tuple(value):
        dtype = np.asarray(value).dtype if not isinstance(value, Unrecorded) else None
    kind = None if dtype is None else ("f" if dtype.kind in "fc" else dtype.kind)
    return shape, kind


def _same_dtype_kind(ka: str | None, kb: str | None) -> bool:
    """Whether two values' dtype kinds may match (an unknown one, not recorded, may)."""
    return ka is None or kb is None or ka == kb


def _op_kind(node: Node) -> str:
    """An op's name as engines share it: ``aten.mul.Tensor`` and ``mul`` are both mul,
    ``MulBackward0`` too."""
    name = node.op.name.split(" ", 1)[0].lower()
    parts = [p for p in name.split(".") if p not in ("aten", "default", "tensor", "scalar")]
    name = parts[0] if parts else name
    name = re.sub(r"backward\d*$", "", name).rstrip("_")
    return _SAME_OP.get(name, name)


#: Ops that engines name differently: PyTorch's backward names and aten ops, vizad's.
_SAME_OP = {"pow": "power", "masked_fill": "where", "mm": "matmul", "bmm": "matmul"}


def _known(trace: ReverseTrace, node: Node) -> Any:
    if node.op is CONSTANT:
        return constant_value(node)
    value = trace.values.get(node) if node in trace.values else None
    return None if value is None or isinstance(value, Unrecorded) or is_tuple(value) else value


def _same_value(a: ReverseTrace, x: Node, b: ReverseTrace, y: Node) -> bool:
    va, vb = _known(a, x), _known(b, y)
    return va is not None and vb is not None and _close(va, vb)


def _values_disagree(a: ReverseTrace, x: Node, b: ReverseTrace, y: Node) -> bool:
    va, vb = _known(a, x), _known(b, y)
    return va is not None and vb is not None and not _close(va, vb)


def _close(va: Any, vb: Any) -> bool:
    if np.shape(va) != np.shape(vb):
        return False
    return bool(np.allclose(np.asarray(va, float), np.asarray(vb, float), rtol=1e-6, atol=1e-9))
