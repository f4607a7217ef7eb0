"""Building walkthroughs: evaluate the graph that reverse or forward mode built, and read every
step's values off it (no second implementation of the maths)."""

from __future__ import annotations

from typing import Any
from collections.abc import Iterable, Mapping

import numpy as np

from vizad.engine._gc import gc_paused
from vizad.engine.executor import Executor, check_derived_shapes, check_floating, evaluate_into
from vizad.engine.adapters import adopt_feed
from vizad.errors import ArgumentError, FeedError
from vizad.engine.forward import build_tangents
from vizad.engine.graph import as_node_list, rank, topo_sort_of_list
from vizad.engine.node import Node
from vizad.engine.op import CONSTANT, VARIABLE, as_node
from vizad.engine.tree import floating_dtype, shape_of, tree_map
from vizad.engine.reverse import extend_reverse
from vizad.trace.text import check_decimals
from vizad.trace.names import Names
from vizad.trace.records import Contribution, ForwardStep, ReverseStep, TangentTerm
from vizad.trace.lazy import Once, Steps, Values
from vizad.trace.traces import ForwardTrace, ReverseTrace

__all__ = ["trace_reverse", "trace_forward"]


def trace_reverse(
    y: Node,
    wrt: Node | Iterable[Node] | None = None,
    feed: Mapping[Node, Any] | None = None,
    *,
    decimals: int = 3,
) -> ReverseTrace:
    """The reverse-mode walkthrough of ``y`` at ``feed``: one step per node in reverse
    topological order, v̄ᵢ = Σⱼ v̄ᵢ→ⱼ with v̄ᵢ→ⱼ = v̄ⱼ ∂vⱼ/∂vᵢ.

    ``wrt`` defaults to every Variable of the graph. The adjoint graph is built with the shapes
    of this evaluation, so sum-to-shape steps appear exactly where broadcasting happened.

    Examples:
        >>> x1, x2 = vz.Variable("x1"), vz.Variable("x2")
        >>> y = vz.log(x1) + x1 * x2 - vz.sin(x2)
        >>> trace = vz.trace_reverse(y, [x1, x2], {x1: 2.0, x2: 5.0})
        >>> trace
        Reverse trace of v₇ w.r.t. x1, x2: 7 steps
        step  vᵢ  definition  value   partial adjoints v̄ᵢ→ⱼ     v̄ᵢ
        1     v₇  v₆ - v₅     11.652  seed                       1
        2     v₆  v₃ + v₄     10.693  v̄₆→₇ = 1                  1
        3     v₅  sin v₂      -0.959  v̄₅→₇ = -1                 -1
        4     v₄  v₁ × v₂     10      v̄₄→₆ = 1                  1
        5     v₃  ln v₁       0.693   v̄₃→₆ = 1                  1
        6     v₂  x₂          5       v̄₂→₅ = -0.284, v̄₂→₄ = 2  1.716
        7     v₁  x₁          2       v̄₁→₄ = 5, v̄₁→₃ = 0.5     5.5
        >>> trace.steps[5].adjoint
        array(1.71633781)
    """
    decimals = check_decimals(decimals, "trace_reverse")
    with gc_paused():  # one pause for the whole build: it allocates ~10 objects per node
        return _trace_reverse(y, wrt, feed, decimals)


def trace_reverse_tolerant(
    y: Node,
    wrt: Node | Iterable[Node] | None = None,
    feed: Mapping[Node, Any] | None = None,
    *,
    decimals: int = 3,
) -> ReverseTrace:
    """:func:`trace_reverse` that walks past a broken gradient rule (what a diagnosis steps
    through): a vjp that raises ShapeError or EvaluationError, or gives an adjoint of the
    wrong shape, is kept in ``trace.record.faults``, zeros of the input's shape stand in for
    its partial adjoints, and ``trace.check()`` reports it as a failure at its step."""
    decimals = check_decimals(decimals, "trace_reverse")
    with gc_paused():
        return _trace_reverse(y, wrt, feed, decimals, tolerant=True)


def _trace_reverse(y, wrt, feed, decimals, *, tolerant: bool = False) -> ReverseTrace:
    given = None if wrt is None else as_node_list(wrt, "trace_reverse: wrt")  # before the feed
    y, feed, forward, ranked, shapes = _forward_pass(y, feed, "trace_reverse")
    wrt = _default_wrt(ranked) if given is None else given
    for w in wrt:
        if w in forward and w.op is VARIABLE:
            check_floating(w, forward[w])
    raw = forward  # the forward values, then the extension's (as the ops give them)
    if tolerant:
        known = dict.fromkeys(raw)  # the forward graph's: the extension is the rest
        record = extend_reverse(
            y, wrt, None, shapes, ranked, tolerant=True, probe=_probe(raw, feed)
        )
        evaluate_into(record.nodes(), raw, feed)
        extension = [n for n in topo_sort_of_list(record.nodes(), known) if n not in known]
    else:
        record = extend_reverse(y, wrt, None, shapes, ranked)
        # the extension's nodes that the walkthrough reads, evaluated in the order made
        extension = evaluate_into(record.nodes(), raw, feed)
    check_derived_shapes(record, raw)
    return reverse_trace(y, wrt, feed, record, raw, extension, ranked, decimals)


def _probe(values: dict[Node, Any], feed: Mapping[Node, Any]):
    """A tolerant extension's probe (vizad.engine.reverse.Probe): an op's partial adjoints
    evaluated into ``values`` as they are made, and those whose shape is not their input's."""

    def probe(node: Node, grads: list) -> list[tuple[int, Any]]:
        evaluate_into([g for g in grads if g is not None], values, feed)
        return [
            (k, shape_of(values[g]))
            for k, (x, g) in enumerate(zip(node.inputs, grads))
            if g is not None and x in values and shape_of(values[g]) != shape_of(values[x])
        ]

    return probe


def reverse_trace(
    y: Node,
    wrt: Iterable[Node],
    feed: Mapping[Node, Any],
    record,
    raw: dict[Node, Any],
    extension: list[Node],
    ranked: list[Node],
    decimals: int,
    *,
    order: Iterable[Node] | None = None,
    kind: type[ReverseTrace] = ReverseTrace,
    **more: Any,
) -> ReverseTrace:
    """The reverse trace of the extension ``record`` of ``y``'s graph, whose values (forward
    and extension nodes) are in ``raw``: one step per node of ``order`` (the record's own,
    reverse topological, by default; another engine's order when its run was recorded).
    ``extension`` lists the record's nodes in the order they were built, ``ranked`` the
    forward graph in display order; ``kind`` is the trace class, given ``more``."""
    values = Values(raw)
    order = record.order if order is None else tuple(order)
    names = Once(lambda: Names(ranked, extension, [record]))
    drawn = Once(lambda: _needed(extension, [record.adjoint(n) for n in order]))
    record.release()  # the trace holds the nodes it reads (values): no cycle with the record

    def make_step(index: int) -> ReverseStep:  # a step's record, when it is first read
        node, named = order[index], names.get()
        contributions = tuple(
            _contribution(p, record.adjoint(p.consumer), values, named)
            for p in record.partials(node)
        )
        adjoint_node = record.adjoint(node)
        return ReverseStep(
            **_step_fields(index, node, named, values),
            contributions=contributions,
            adjoint=values[adjoint_node],
            adjoint_node=adjoint_node,
        )

    steps = Steps(order, make_step)
    wrt = tuple(wrt)
    return kind(y, wrt, feed, steps, record, values, names, ranked, drawn, decimals, **more)


def trace_forward(
    y: Node,
    wrt: Node | None = None,
    feed: Mapping[Node, Any] | None = None,
    *,
    tangents: Mapping[Node, Any] | None = None,
    decimals: int = 3,
) -> ForwardTrace:
    """The forward-mode walkthrough of ``y`` at ``feed``: one step per node in topological
    order, v̇ᵢ = Σₖ v̇ₖ ∂vᵢ/∂vₖ, seeded with ẋ = 1 for the input ``wrt`` (∂/∂x; default the
    first Variable, ∂/∂x₁ as in the lecture), or with ``tangents`` ({input: tangent}) for any
    direction.

    The arguments are in the order of :func:`trace_reverse`: a mapping in second place (the
    order of 0.1, ``trace_forward(y, feed, tangents)``) is an ArgumentError saying so.

    Examples:
        >>> x1, x2 = vz.Variable("x1"), vz.Variable("x2")
        >>> y = vz.log(x1) + x1 * x2 - vz.sin(x2)
        >>> trace = vz.trace_forward(y, x1, {x1: 2.0, x2: 5.0})
        >>> trace
        Forward trace of v₇ with v̇₁ = 1: 7 steps
        step  vᵢ  definition  value   tangent rule                               v̇ᵢ
        1     v₁  x₁          2       v̇₁ = 1                                    1
        2     v₂  x₂          5       v̇₂ = 0                                    0
        3     v₃  ln v₁       0.693   v̇₃ = v̇₁/v₁ = 1 × 0.5 = 0.5               0.5
        4     v₄  v₁ × v₂     10      v̇₄ = v̇₁ v₂ + v̇₂ v₁ = 1 × 5 + 0 × 2 = 5  5
        5     v₅  sin v₂      -0.959  v̇₅ = v̇₂ cos v₂ = 0 × 0.284 = 0           0
        6     v₆  v₃ + v₄     10.693  v̇₆ = v̇₃ + v̇₄ = 0.5 + 5 = 5.5            5.5
        7     v₇  v₆ - v₅     11.652  v̇₇ = v̇₆ - v̇₅ = 5.5 - 0 = 5.5            5.5
        >>> trace.steps[-1].tangent
        array(5.5)
    """
    if isinstance(wrt, Mapping):
        raise ArgumentError(
            "trace_forward(y, wrt, feed, tangents=...): the second argument is the input to "
            "differentiate with respect to, not the feed (give the feed third, or by keyword)"
        )
    decimals = check_decimals(decimals, "trace_forward")
    with gc_paused():
        return _trace_forward(y, wrt, feed, tangents, decimals)


def _trace_forward(y, wrt, feed, tangents, decimals) -> ForwardTrace:
    y, feed, forward, ranked, shapes = _forward_pass(y, feed, "trace_forward")
    if wrt is not None and tangents is not None:
        raise ArgumentError("trace_forward: give wrt (ẋ = 1 for one input) or tangents, not both")
    if tangents is None:
        first = _default_wrt(ranked)[:1] if wrt is None else _one_input(wrt)
        tangents = {x: np.ones(np.shape(forward[x]), floating_dtype(forward[x])) for x in first}
    for x in tangents:
        node = as_node(x, "trace_forward: tangents")
        if node in forward and node.op is VARIABLE:
            check_floating(node, forward[node])
    record = build_tangents(y, tangents, shapes=shapes, all_locals=True)
    wanted = []
    for node in record.order:
        wanted.append(record.tangent(node))
    for node in ranked:
        wanted.extend(p for p in record.locals(node) or () if isinstance(p, Node))
    raw = forward  # the forward values, then the extension's (as the ops give them)
    extension = evaluate_into(wanted, raw, feed)  # in the order they were built
    check_derived_shapes(record, raw)
    values = Values(raw)
    names = Once(lambda: Names(ranked, extension, [record]))
    drawn = Once(lambda: _needed(extension, [record.tangent(n) for n in record.order]))
    seeds = record.seeds
    record.release()  # the trace holds the nodes it reads (values)
    order = [node for node in ranked if node.op is not CONSTANT]

    def make_step(index: int) -> ForwardStep:  # a step's record, when it is first read
        node, named = order[index], names.get()
        tangent_node = record.tangent(node)
        value = values[node]
        tangent = values[tangent_node] if tangent_node is not None else _zeros_like(value)
        seeded = node in seeds
        terms = (
            ()
            if seeded or not node.inputs
            else tuple(_term(x, k, node, record, values, named) for k, x in enumerate(node.inputs))
        )
        return ForwardStep(
            **_step_fields(index, node, named, values),
            tangent=tangent,
            tangent_node=tangent_node,
            terms=terms,
            seeded=seeded,
        )

    steps = Steps(order, make_step)
    return ForwardTrace(y, seeds, feed, steps, record, values, names, ranked, drawn, decimals)


# -- helpers --------------------------------------------------------------------------------
def _forward_pass(y, feed, what: str):
    """The output as a node, the feed, every forward value, the display order, and the
    evaluated shapes that the graph extension is built with."""
    y = as_node(y, what)
    # the trace keeps its own copies of the arrays fed: a buffer reused by the caller (weights
    # updated in place) must not rewrite the trace's inputs while its other values stay
    feed = adopt_feed(feed) or {}
    if not isinstance(feed, Mapping):
        raise FeedError(
            f"{what}: the feed must be a dict {{Variable: value}}, got "
            f"{type(feed).__name__} {feed!r:.40}"
        )
    feed = {node: tree_map(_kept, value) for node, value in feed.items()}
    executor = Executor([y])
    forward = executor.values_by_node(feed, arrays=False)
    shapes = {n: shape_of(v) for n, v in forward.items()}
    return y, feed, forward, rank(executor.order), shapes


def _kept(value: Any) -> Any:
    """A fed value as a trace keeps it: an array copied and read-only, else as it is."""
    if isinstance(value, np.ndarray):
        value = value.copy()
        value.flags.writeable = False
    return value


def _step_fields(index: int, node: Node, names: Names, values) -> dict[str, Any]:
    """The fields every step record has: where it is, its node's names and value."""
    value = values[node]
    return {
        "index": index,
        "node": node,
        "label": names.label(node),
        "symbol": names.symbol(node),
        "definition": names.definition(node),
        "value": value,
        "shape": shape_of(value),
    }


def _needed(extension: list[Node], results: list[Node]) -> list[Node]:
    """The nodes of ``extension`` (a topological order) that ``results`` are computed from:
    what a drawing of the extension shows (not, say, the local partials built for a zero
    tangent, which feed nothing)."""
    needed = set(results)
    for node in reversed(extension):
        if node in needed:
            needed.update(node.inputs)
    return [n for n in extension if n in needed]


def _default_wrt(ranked: list[Node]) -> list[Node]:
    """Every Variable of the graph, but for eager leaves holding integers: the literals that
    other engines' APIs wrap as inputs (micrograd's ``a * 3`` makes ``Value(3)``), which
    have no gradient to show."""
    return [
        n
        for n in ranked
        if n.op is VARIABLE and (n.__class__ is Node or np.asarray(n._value).dtype.kind in "fc")
    ]


def _one_input(wrt) -> list[Node]:
    """``wrt`` of a forward walkthrough: one input, as a list."""
    nodes = as_node_list(wrt, "trace_forward: wrt")
    if len(nodes) != 1:
        raise ArgumentError(
            f"trace_forward: forward mode follows one direction per pass, and wrt has "
            f"{len(nodes)} inputs: give one input, or tangents={{x1: 1.0, x2: 1.0}} for a "
            "direction"
        )
    return nodes


def _contribution(p, adjoint_of_consumer: Node, values, names: Names) -> Contribution:
    if isinstance(p.local, Node):
        local = values[p.local]
    elif p.local is not None:
        local = p.local
    else:
        local = _local_from_ratio(values[p.node], values[adjoint_of_consumer])
    return Contribution(
        p.consumer,
        index=p.index,
        local=local,
        partial=values[p.node],
        partial_node=p.node,
        local_node=p.local if isinstance(p.local, Node) else None,
        unreduced=values[p.unreduced] if p.unreduced is not None else None,
        unreduced_node=p.unreduced,
        names=names,
    )


def _local_from_ratio(partial, adjoint):
    """∂vⱼ/∂vᵢ = v̄ᵢ→ⱼ / v̄ⱼ for scalars, when the op gives only a vjp; None for tensors (where
    the local derivative is a Jacobian) and where v̄ⱼ is 0."""
    if isinstance(partial, tuple) or isinstance(adjoint, tuple):
        return None
    if np.size(partial) != 1 or np.size(adjoint) != 1 or float(np.ravel(adjoint)[0]) == 0:
        return None
    return float(np.ravel(partial)[0]) / float(np.ravel(adjoint)[0])


def _term(x: Node, k: int, node: Node, record, values, names: Names) -> TangentTerm:
    t_node = record.tangent(x)
    tangent = values[t_node] if t_node is not None else _zeros_like(values[x])
    locals_ = record.locals(node)
    local = None
    if locals_ is not None:
        p = locals_[k]
        local = values[p] if isinstance(p, Node) else p
    args = names.args(node)
    return TangentTerm(
        input=x,
        input_symbol=names.symbol(x),
        tangent=tangent,
        local=local,
        local_latex=node.op.partial_latex(args, node.attrs, k),
    )


def _zeros_like(value: Any):
    """A zero tangent for ``value``, in its float type (leaf by leaf for a tuple)."""
    return tree_map(lambda v: np.zeros(np.shape(v), floating_dtype(v)), value)
