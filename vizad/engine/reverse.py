"""Reverse mode by extending the graph with adjoint nodes.

For every node vᵢ in reverse topological order, the adjoint v̄ᵢ = Σⱼ v̄ᵢ→ⱼ is the sum of its
partial adjoints v̄ᵢ→ⱼ = v̄ⱼ ∂vⱼ/∂vᵢ, one per consumer j, and the op of vᵢ builds the partial
adjoints of its own inputs from v̄ᵢ with graph ops. The gradients are ordinary nodes: they can be
evaluated, drawn, and differentiated again. The :class:`Adjoints` record keeps which node is
which partial adjoint and which node is each sum.
"""

from __future__ import annotations

import weakref
from typing import Any, NamedTuple, cast
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence

from vizad.errors import GraphError, ShapeError
from vizad.engine.extension import AdjointRole, alive, extending
from vizad.engine.graph import as_node_list, ranked_order
from vizad.engine.node import Node, static_shape
from vizad.engine.op import as_node
from vizad.engine.ops import add_n, ones_like, zeros_like
from vizad.engine.ops.arithmetic import _ADD_N
from vizad.engine.ops.derivation import elementwise_vjp
from vizad.engine.ops.elementwise import ElementwiseOp, Symbolic, local_partials
from vizad.engine.tree import shapes_conflict

__all__ = [
    "Partial",
    "RuleFault",
    "AdjointRole",
    "Adjoints",
    "build_adjoints",
    "gradients",
    "local_adjoints",
    "seed_node",
]


class Partial(NamedTuple):
    """A partial adjoint v̄ᵢ→ⱼ = v̄ⱼ ∂vⱼ/∂vᵢ: what consumer vⱼ passes back to one of its inputs.

    Examples:
        >>> from vizad import extend
        >>> a, b = vz.Variable("a"), vz.Variable("b")
        >>> y = a * b
        >>> record = extend.build_adjoints(y, [a, b])
        >>> (partial,) = record.partials(a)
        >>> type(partial).__name__, partial.consumer is y, partial.index
        ('Partial', True, 0)
        >>> vz.evaluate(partial.node, {a: 2.0, b: 5.0})
        array(5.)
    """

    #: vⱼ, the node that consumes vᵢ.
    consumer: Node
    #: The position of vᵢ among the consumer's inputs (``a * a`` has two partials).
    index: int  # type: ignore[assignment]  # (hides tuple.index: a public field's name)
    #: The adjoint node that computes v̄ᵢ→ⱼ.
    node: Node
    #: The local partial derivative ∂vⱼ/∂vᵢ, as a node or a :class:`vizad.Symbolic` (ONE,
    #: MINUS_ONE), when the op states it (elementwise ops); None otherwise (matmul's is a
    #: Jacobian, custom ops give only a vjp).
    local: Node | Symbolic | None = None
    #: v̄ⱼ ∂vⱼ/∂vᵢ before ``sum_to_shape`` reduced it to vᵢ's shape, where broadcasting
    #: happened (``node`` is then the sum_to_shape node); None otherwise.
    unreduced: Node | None = None


class RuleFault(NamedTuple):
    """A gradient rule that failed while the graph was extended with ``tolerant=True``:
    its partial adjoints were replaced by zeros of the inputs' shapes, and the pass went on."""

    #: vⱼ, the node whose op's vjp failed.
    node: Node
    #: The input whose partial adjoint v̄ᵢ→ⱼ has the wrong shape; None when the rule raised
    #: (then every partial adjoint it owed is zeros).
    index: int | None  # type: ignore[assignment]  # (hides tuple.index: a public field's name)
    #: The shape of the partial adjoint the rule gave (None when it raised).
    shape: tuple | None
    #: What went wrong: the error the rule raised, or a ShapeError naming the shapes.
    error: Exception


#: Evaluates the partial adjoints ``grads`` (one per input, or None) that the op of ``node``
#: gave, and returns ``(input, shape)`` for each whose value has another shape than its input;
#: it raises ShapeError or EvaluationError when they cannot be evaluated.
Probe = Callable[[Node, list], list]

#: What a vjp made for one node: the partial adjoints (one per input, None for a zero or
#: unneeded one), the local partials and the unreduced partial adjoints (or None).
_Made = tuple[list[Node | None], list | None, list | None]


class Adjoints:
    """The record of one reverse-mode extension of a graph (see :func:`build_adjoints`).

    Nodes created while building it have ``node.origin`` set to this record. The record holds
    the nodes it made through weak references (a strong reference back would make every
    extended graph a reference cycle that only the garbage collector frees): what it reports
    of them is what is still alive. The record that :func:`build_adjoints` returns also keeps
    its nodes alive until :meth:`release` is called (or it is collected).

    Examples:
        >>> from vizad import extend
        >>> x1, x2 = vz.Variable("x1"), vz.Variable("x2")
        >>> y = vz.log(x1) + x1 * x2 - vz.sin(x2)
        >>> record = vz.gradients(y, [x1, x2])[0].origin
        >>> type(record).__name__, record.output is y
        ('Adjoints', True)
    """

    output: Node
    wrt: tuple[Node, ...]
    #: The forward nodes that received an adjoint, in reverse topological (display) order.
    order: tuple[Node, ...]
    #: The rules that failed, when the extension was built with ``tolerant=True`` (else
    #: empty: a failing rule raises).
    faults: tuple[RuleFault, ...] = ()

    def __init__(self, output: Node, wrt: tuple[Node, ...]) -> None:
        self.output, self.wrt = output, wrt
        self.order = ()
        self._adjoint: dict[Node, weakref.ref] = {}
        self._partials: dict[Node, list[tuple]] = {}
        self._seed: weakref.ref | None = None
        self._gradients: list[weakref.ref] = []
        self._kept: list[Node] | None = None
        self._order: list[Node] = []  # while it is built

    @property
    def seed(self) -> Node | None:
        """v̄ of the output (the ones_like node, or the seed given)."""
        return alive(self._seed)

    @property
    def gradients(self) -> list[Node | None]:
        """The adjoint of each node of ``wrt`` (zeros_like where y does not depend on it;
        None for one that has been freed)."""
        return [g() for g in self._gradients]

    def adjoint(self, node: Node) -> Node | None:
        """The node computing v̄ for forward node ``node`` (None: no path to the output)."""
        return alive(self._adjoint.get(node))

    def partials(self, node: Node) -> tuple[Partial, ...]:
        """The partial adjoints v̄ᵢ→ⱼ of forward node ``node``, one per consumer edge."""
        return tuple(_alive_partials(self._partials.get(node, ())))

    def nodes(self) -> list[Node]:
        """Every node the record names that is alive: the seed, the adjoints, the partial
        adjoints with their local partials and unreduced forms, the gradients (a node can
        appear more than once)."""
        if self._kept is not None:  # the record keeps exactly those
            return list(self._kept)
        made = [ref() for ref in self._adjoint.values()]
        for entries in self._partials.values():
            for p in _alive_partials(entries):
                made += [p.node, p.local, p.unreduced]
        made += [*self.gradients, self.seed]
        return [n for n in made if isinstance(n, Node)]

    def roles(self) -> dict[Node, tuple[AdjointRole, ...]]:
        """What each adjoint node computes (a node can be a partial and a sum at once)."""
        roles: dict[Node, list[AdjointRole]] = {}
        for node in self.order:
            kind = "seed" if node is self.output else "adjoint"
            total = self.adjoint(node)
            if total is not None:
                roles.setdefault(total, []).append(AdjointRole(kind, node))
            for p in self.partials(node):
                roles.setdefault(p.node, []).append(
                    AdjointRole("partial", node, p.consumer, p.index)
                )
                if p.unreduced is not None:
                    roles.setdefault(p.unreduced, []).append(
                        AdjointRole("unreduced", node, p.consumer, p.index)
                    )
                if isinstance(p.local, Node):
                    roles.setdefault(p.local, []).append(
                        AdjointRole("local", node, p.consumer, p.index)
                    )
        return {node: tuple(r) for node, r in roles.items()}

    def release(self) -> None:
        """Stop keeping the nodes of this extension alive: from now on they live as long as
        something else holds them (the gradients, a trace), and the record reports those."""
        self._kept = None

    # -- filled in by build_adjoints: weak references, and the list that keeps them alive ---
    def _set_seed(self, seed: Node) -> None:
        self._kept = [seed]
        self._seed = weakref.ref(seed)

    # (while it is built, the record keeps its nodes: _kept is a list)
    def _add_adjoint(self, node: Node, total: Node) -> None:
        assert self._kept is not None
        self._kept.append(total)
        self._adjoint[node] = weakref.ref(total)
        self._order.append(node)

    def _add_partial(
        self,
        of: Node,
        consumer: Node,
        index: int,
        node: Node,
        locals_: list | None,
        unreduced: list | None,
    ) -> None:
        assert self._kept is not None
        keep, ref = self._kept.append, weakref.ref
        local = locals_[index] if locals_ else None
        if local is not None and local.__class__ is not Symbolic:
            keep(local)
            local = ref(local)
        u = unreduced[index] if unreduced else None
        if u is not None:
            keep(u)
            u = ref(u)
        keep(node)
        entry = (consumer, index, ref(node), local, u)
        entries = self._partials.get(of)
        if entries is None:
            self._partials[of] = [entry]
        else:
            entries.append(entry)

    def _set_gradients(self, gradients: list[Node]) -> None:
        assert self._kept is not None
        self._kept.extend(gradients)
        self._gradients = [weakref.ref(g) for g in gradients]
        self.order = tuple(self._order)
        del self._order

    def __repr__(self) -> str:
        return (
            f"<Adjoints of {self.output} w.r.t. {', '.join(map(str, self.wrt))}: "
            f"{len(self.order)} adjoints>"
        )


def _alive_partials(entries: Iterable[tuple]) -> Iterator[Partial]:
    """The record's entries (consumer, index, node, local, unreduced; nodes by weak
    reference) as Partials, for the partial adjoint nodes still alive."""
    for consumer, index, ref, local, unreduced in entries:
        made = ref()
        if made is not None:
            yield Partial(consumer, index, made, alive(local), alive(unreduced))


def build_adjoints(
    y: Node,
    wrt: Node | Iterable[Node],
    cotangent: Any = None,
    *,
    shapes: Mapping[Node, Any] | None = None,
) -> Adjoints:
    """Extend the graph of ``y`` with adjoint nodes for the gradients w.r.t. ``wrt``.

    ``cotangent`` is v̄ of ``y``, the seed of reverse mode (default ones_like(y): the gradient
    of sum(y)). ``shapes`` maps
    nodes to shapes known from an evaluation, so that sum-to-shape nodes are only added where
    broadcasting really happened (without it, Variables declared without a shape get them
    wherever broadcasting is possible).

    The record keeps its nodes alive (``record.gradients`` stay available) until
    ``record.release()``; :func:`gradients` returns the nodes alone, which is all a caller
    needs to hold.

    Examples:
        >>> from vizad import extend
        >>> x1, x2 = vz.Variable("x1"), vz.Variable("x2")
        >>> y = vz.log(x1) + x1 * x2 - vz.sin(x2)
        >>> record = extend.build_adjoints(y, [x1, x2])
        >>> vz.evaluate(record.gradients, {x1: 2.0, x2: 5.0})
        [array(5.5), array(1.71633781)]
    """
    return extend_reverse(y, wrt, cotangent, shapes, None)


def extend_reverse(
    y: Any,
    wrt: Any,
    cotangent: Any,
    shapes: Mapping[Node, Any] | None,
    ranked: list | None,
    *,
    tolerant: bool = False,
    probe: Probe | None = None,
) -> Adjoints:
    """:func:`build_adjoints`, given the graph's :func:`ranked_order` when it is known.
    ``tolerant``: a vjp that raises ShapeError, EvaluationError or GraphError (gives what
    is not one adjoint per input), or gives an adjoint of the wrong shape, is recorded in
    ``record.faults`` with zeros standing in for the partial adjoints it owed, so that a
    walkthrough can show a student's broken rule at its step. ``probe`` (with ``tolerant``)
    evaluates each op's partial adjoints as they are made (see :data:`Probe`): a lazy
    graph's rule fails when its nodes are evaluated, not built."""
    y = as_node(y, "gradients")
    wrt = tuple(as_node_list(wrt, "gradients: wrt"))
    record = Adjoints(y, wrt)
    faults: list[RuleFault] | None = [] if tolerant else None
    with extending(record, shapes):
        _extend(record, y, wrt, cotangent, ranked or ranked_order(y), faults, probe)
    if faults:
        record.faults = tuple(faults)
    return record


def gradients(
    y: Node,
    wrt: Node | Iterable[Node],
    cotangent: Any = None,
    *,
    shapes: Mapping[Node, Any] | None = None,
) -> list[Node]:
    """The gradient nodes of ``y`` w.r.t. each node of ``wrt``, by extending the graph.

    ``cotangent`` is v̄ of ``y`` (default ones_like(y): the gradient of sum(y)).
    The record of which node is which partial adjoint is
    ``gradients[0].origin`` (an :class:`Adjoints`); :func:`build_adjoints` returns it
    directly. Dropping the gradients frees the whole extension at once (nothing points back
    to them).

    Examples:
        >>> x1, x2 = vz.Variable("x1"), vz.Variable("x2")
        >>> y = vz.log(x1) + x1 * x2 - vz.sin(x2)
        >>> g1, g2 = vz.gradients(y, [x1, x2])
        >>> vz.evaluate([g1, g2], {x1: 2.0, x2: 5.0})
        [array(5.5), array(1.71633781)]
    """
    record = extend_reverse(y, wrt, cotangent, shapes, None)
    result = record.gradients  # every one alive: the record keeps them until release()
    record.release()
    return cast("list[Node]", result)


def local_adjoints(node: Node, adjoint: Node, needed: Any = None) -> list[Node | None]:
    """The partial adjoints that ``node``'s op passes to each of its inputs from ``adjoint``
    (one local step of reverse mode, checked; None where it is zero, and for the inputs that
    ``needed``, one flag per input, leaves out).

    Examples:
        >>> from vizad import extend
        >>> a, b = vz.Variable("a"), vz.Variable("b")
        >>> c = a * b
        >>> vz.evaluate(extend.local_adjoints(c, vz.constant(1.0)), {a: 2.0, b: 5.0})
        [array(5.), array(2.)]
    """
    return _vjp(node, adjoint, None, needed)[0]


def _extend(
    record: Adjoints,
    y: Node,
    wrt: tuple[Node, ...],
    seed: Any,
    forward: list[Node],
    faults: list[RuleFault] | None = None,
    probe: Probe | None = None,
) -> None:
    depends = set(wrt)
    for node in forward:
        for i in node.inputs:
            if i in depends:
                depends.add(node)
                break

    seed_made = seed_node(y, seed)
    record._set_seed(seed_made)
    # the partial adjoints v̄ᵢ→ⱼ each node receives, with their consumer's id
    incoming: dict[Node, list[tuple[int, Node]]] = {}
    for node in reversed(forward):
        if node not in depends:
            continue
        if node is y:
            total = seed_made
        else:
            parts = incoming.pop(node, None)
            if not parts:  # every path to y has a zero partial (e.g. relu's mask)
                continue
            total = parts[0][1] if len(parts) == 1 else _sum(parts)
        record._add_adjoint(node, total)
        if not node.inputs:
            continue
        if faults is None:
            grads, locals_, unreduced = _vjp(node, total, depends)
        else:
            grads, locals_, unreduced = _tolerant_vjp(node, total, depends, faults, probe)
        for k, (inp, g) in enumerate(zip(node.inputs, grads)):
            if g is not None and inp in depends:
                incoming.setdefault(inp, []).append((node._id, g))
                record._add_partial(inp, node, k, g, locals_, unreduced)
    record._set_gradients([record.adjoint(w) or zeros_like(w) for w in wrt])


def _sum(parts: list[tuple[int, Node]]) -> Node:
    """v̄ᵢ = Σⱼ v̄ᵢ→ⱼ of the partial adjoints ``(consumer id, node)``, listed in the order the
    pass made them (the display order of their consumers: drawings and numbering follow
    it) and summed in reverse creation order of their consumers, as ``backward()`` sums
    them, so that both give the same bits (add_n's ``order``, where the two orders differ;
    two terms add in either order to the same bits)."""
    nodes = [g for _, g in parts]
    if len(parts) > 2:
        order = sorted(range(len(parts)), key=lambda k: -parts[k][0])  # stable: a * a's too
        if order != sorted(order):
            return _ADD_N(*nodes, order=tuple(order))
    return add_n(*nodes)


def seed_node(y: Node, seed: Any) -> Node:
    """v̄ of ``y``, reverse mode's seed: ones_like(y), or the cotangent given as a node whose
    shape is checked against ``y``'s."""
    if seed is None:
        return ones_like(y)
    node = as_node(seed, "gradients: seed")
    s, t = static_shape(node), static_shape(y)
    if shapes_conflict(s, t):
        raise ShapeError(
            f"gradients: the seed has shape {s} but the output {y.describe()} has shape {t}; "
            f"give a cotangent of shape {t}"
        )
    return node


def _tolerant_vjp(
    node: Node, adjoint: Node, depends: set[Node], faults: list[RuleFault], probe: Probe | None
) -> _Made:
    """:func:`_vjp` that does not stop at a broken rule: one that raises (vizad's
    ShapeError, EvaluationError, GraphError, or any error of a user's rule), or gives an
    adjoint of the wrong shape (found when it is
    built, or by ``probe`` when it is evaluated), is appended to ``faults`` and zeros of the
    input's shape stand in for what it owed."""
    needed = [x in depends for x in node._inputs]
    try:
        grads, locals_, unreduced = _vjp(node, adjoint, None, needed, faults)
        grads = list(grads)  # vizad's own elementwise ops give a tuple
        wrong = probe(node, grads) if probe is not None else ()
    except Exception as exc:  # noqa: BLE001 - the rule failed (vizad's error, or a user's
        # rule raising: a blank's NotImplementedError, a TypeError): zeros instead
        faults.append(RuleFault(node, None, None, exc))
        grads = [zeros_like(x) if needed[k] else None for k, x in enumerate(node.inputs)]
        return grads, None, None
    for k, shape in wrong:
        inp = node.inputs[k]
        error = ShapeError(
            f"vjp of op {node.op.name!r} at {node.describe()} gave an adjoint of shape "
            f"{shape} for input {k} ({inp.short()}) of another shape"
        )
        _stand_in(faults, RuleFault(node, k, shape, error), grads)
        locals_, unreduced = _without(locals_, k), _without(unreduced, k)
    return grads, locals_, unreduced


def _stand_in(faults: list[RuleFault], fault: RuleFault, grads: list) -> None:
    """Record ``fault`` and put zeros of its input's shape in place of its adjoint."""
    faults.append(fault)
    k = fault.index
    assert k is not None  # a fault of one input's adjoint
    grads[k] = zeros_like(fault.node.inputs[k])


def _vjp(
    node: Node,
    adjoint: Node,
    depends: set[Node] | None = None,
    needed: Any = None,
    faults: list[RuleFault] | None = None,
) -> _Made:
    """The op's partial adjoints for the inputs of ``node``, checked, with the local partials
    and unreduced partial adjoints when the op gives them. Elementwise ops, and the ops of
    vizad's own that say so (``_vjp_needed``), build none for the inputs outside ``depends``
    (those that do not depend on what is differentiated) or that ``needed`` leaves out.
    With a ``faults`` list, an adjoint of the wrong shape is recorded there and replaced by
    zeros of its input's shape (see :func:`_tolerant_vjp`)."""
    if needed is None and depends is not None:
        needed = [x in depends for x in node._inputs]
    op = node.op
    made: Sequence[Node | None]
    locals_: list | None
    unreduced: list | None
    if isinstance(op, ElementwiseOp):  # the rule follows from the partials it states
        locals_ = local_partials(op, node)
        grads, unreduced = elementwise_vjp(op, node, adjoint, locals_, needed)
        if op._builtin:  # vizad's own partials: right by construction, nothing to check
            return grads, locals_, unreduced
        made = grads
    elif op._vjp_needed and needed is not None:
        made, locals_, unreduced = op.vjp(node, adjoint, needed=needed), None, None
    else:
        made, locals_, unreduced = op.vjp(node, adjoint), None, None
    try:
        grads = list(made)
    except TypeError:
        raise GraphError(
            f"vjp of op {op.name!r} at {node.describe()} returned "
            f"{type(made).__name__}, not a list with one adjoint per input"
        ) from None
    if len(grads) != len(node.inputs):
        raise GraphError(
            f"vjp of op {op.name!r} at {node.describe()} returned {len(grads)} "
            f"adjoint(s) for {len(node.inputs)} input(s); it must return one adjoint (or None) "
            "per input"
        )
    for k, (inp, g) in enumerate(zip(node.inputs, grads)):
        if g is None:
            continue
        if not isinstance(g, Node):
            raise GraphError(
                f"vjp of op {op.name!r} at {node.describe()} returned a "
                f"{type(g).__name__} for input {k}; expected a Node or None"
            )
        gs = static_shape(g)
        if gs is None:
            continue
        xs = static_shape(inp)
        if xs is not None and shapes_conflict(gs, xs):
            error = ShapeError(
                f"vjp of op {op.name!r} at {node.describe()} returned an adjoint "
                f"of shape {gs} for input {k} ({inp.short()}) of shape {xs}"
            )
            if faults is None:
                raise error
            _stand_in(faults, RuleFault(node, k, gs, error), grads)
            locals_, unreduced = _without(locals_, k), _without(unreduced, k)
    return grads, locals_, unreduced


def _without(entries: list | None, k: int) -> list | None:
    """``entries`` (one per input, or None) with entry ``k`` left out (None)."""
    if entries is None:
        return None
    entries = list(entries)
    entries[k] = None
    return entries
