"""Evaluating a graph: the Executor computes a plan once and runs it on any feed dict."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast
from collections.abc import Callable, Iterable, Mapping

import numpy as np

from vizad.engine._gc import gc_paused
from vizad.errors import EvaluationError, FeedError, ShapeError, evaluation_error
from vizad.engine.graph import topo_sort_of_list, as_node_list
from vizad.engine.node import Node, _numeric_array
from vizad.engine.op import CONSTANT, VARIABLE, constant_value, tuples_refused
from vizad.engine.tree import TupleShape, as_array, leaves, read_only, shape_of

if TYPE_CHECKING:  # pragma: no cover
    from vizad.engine.forward import Tangents
    from vizad.engine.reverse import Adjoints

__all__ = ["Executor", "evaluate", "check_floating"]


class Executor:
    """Evaluates a list of nodes. The plan (topological order, input slots, bound compute
    functions) is made once here and reused by every :meth:`run`. ``given``: nodes whose values
    every run supplies in the feed dict, as if they were Variables (what they depend on is not
    evaluated).

    Examples:
        >>> x1, x2 = vz.Variable("x1"), vz.Variable("x2")
        >>> y = vz.log(x1) + x1 * x2 - vz.sin(x2)
        >>> run = vz.Executor(vz.gradients(y, [x1, x2]))
        >>> run.run({x1: 2.0, x2: 5.0})
        [array(5.5), array(1.71633781)]
        >>> run.run({x1: 1.0, x2: 0.0})
        [array(1.), array(0.)]
    """

    def __init__(self, nodes: Node | Iterable[Node], *, given: Iterable[Node] = ()) -> None:
        self.nodes: list[Node] = as_node_list(nodes, "Executor")
        self._given = frozenset(as_node_list(given, "Executor: given") if given else ())
        with gc_paused():
            self._plan()

    def _plan(self) -> None:
        order = topo_sort_of_list(self.nodes, self._given)
        slot = {node: k for k, node in enumerate(order)}
        self._order = order
        self._slot = slot
        self._initial: list[Any] = [None] * len(order)
        self._variables: list[tuple[int, Node]] = []
        initial, variables, given = self._initial, self._variables, self._given
        # eager nodes computed from a given node are computed again from the value given
        downstream = _downstream(order, given) if given else ()
        steps: list[tuple[Callable[..., Any], tuple[int, ...], int]] = []
        append = steps.append
        unknown = set(given)  # values that may be tuples their static shapes do not show
        for k, node in enumerate(order):  # hot: slots read directly
            op = node._operation
            if op is CONSTANT:
                initial[k] = constant_value(node)
            elif node.__class__ is not Node and node not in given and node not in downstream:
                # an eager node, computed when built (no isinstance to tell mypy so: hot)
                initial[k] = read_only(node._value)  # type: ignore[attr-defined]
            elif op is VARIABLE or node in given:
                variables.append((k, node))
            else:
                append((op.bind(node), tuple([slot[i] for i in node._inputs]), k))
                if not op._builtin and node._shape is None:  # a custom op's value
                    unknown.add(node)
        self._outputs = [slot[n] for n in self.nodes]
        self._steps = steps
        self._lean_steps: list | None = None  # made on the first run()
        # the Variables that gradients (or tangents) built into this plan differentiate: they
        # need floating-point values (an integer adjoint would wrap around silently)
        records = {}
        for n in order:
            record = n._origin
            if record is not None and id(record) not in records:
                records[id(record)] = record
        differentiated = {w for r in records.values() for w in _differentiated(r)}
        self._float_checks = [
            (k, node)
            for k, node in self._variables
            if node.op is VARIABLE and node in differentiated
        ]
        # checked on the first run, and again whenever the shapes fed change: each adjoint or
        # tangent in the plan has the shape of the value it is the adjoint or tangent of (a
        # seed, a tangent or a custom rule of the wrong shape would otherwise broadcast
        # silently), that value computed for the check where the plan does not need it
        position = slot.get
        self._shape_checks = [
            (m, of, what)
            for r in records.values()
            for made, of, what in _derived_pairs(r)
            if made is not None and (m := position(made)) is not None
        ]
        # vizad's ops that take arrays, reading a value whose shape is unknown until run time
        # (a custom op's, a given node's), must not be given a tuple: numpy would stack it
        self._tuple_checks = (
            [n for n in order if n._operation._arrays_only and not unknown.isdisjoint(n._inputs)]
            if unknown
            else []
        )
        self._validated = False
        #: The shapes fed at the last check; another run with other shapes checks again.
        self._checked_shapes: tuple | None = None
        self._outside_variables: list[Node] = []

    def run(self, feed: Mapping[Node, Any] | None = None) -> list[Any]:
        """The values of the nodes (numpy arrays; tuples of arrays for tuple values) at
        ``feed``, the Variables' values."""
        values = self._values({} if feed is None else feed)
        return [as_array(values[k]) for k in self._outputs]

    def _values(self, feed: Mapping[Node, Any], keep_all: bool = False) -> list[Any]:
        """Node values by position in the plan's order. Unless ``keep_all``, an intermediate
        value is dropped as soon as its last consumer has run: that keeps peak memory low
        and lets numpy reuse freed buffers instead of faulting in fresh pages."""
        values = list(self._initial)
        try:
            for k, node in self._variables:
                values[k] = _feed_value(feed, node)
        except FeedError:
            if not isinstance(feed, Mapping):
                raise
            missing = [n for _, n in self._variables if not _fed(feed, n)]
            if not missing:
                raise
            raise FeedError(missing_message(feed, missing)) from None
        for k, node in self._float_checks:
            check_floating(node, values[k])
        if len(feed) > len(self._variables):
            self._check_feed_keys(feed)
        if self._validated and self._checked_shapes is not None:
            if self._fed_shapes(values, feed) != self._checked_shapes:
                self._validated = False  # other shapes: this run checks them
        if not self._validated:
            self._check_given(values, feed)
        k = -1
        try:
            if not self._validated:  # the first run keeps and checks every value
                for fn, inputs, k in self._steps:
                    values[k] = fn(*[values[i] for i in inputs])
                    if values[k] is None:
                        raise _ReturnedNone()
            elif keep_all:
                for fn, inputs, k in self._steps:
                    values[k] = fn(*[values[i] for i in inputs])
            else:
                if self._lean_steps is None:
                    with gc_paused():
                        self._lean_steps = _with_releases(self._steps, set(self._outputs))
                for fn, inputs, k, dead in self._lean_steps:
                    values[k] = fn(*[values[i] for i in inputs])
                    for i in dead:
                        values[i] = None
        except _ReturnedNone:
            raise _returned_none(self._order[k]) from None
        except Exception as exc:
            node = self._order[k]
            raise evaluation_error(node, [values[self._slot[i]] for i in node.inputs], exc) from exc
        if not self._validated:
            self._validate(values, feed)
        return values

    def _validate(self, values: list[Any], feed: Mapping[Node, Any]) -> None:
        """The first run's check (and that of a run with other shapes) that derived values
        have the shapes of what they are derived from, and that no elementwise op was given
        a tuple value."""
        order, slot = self._order, self._slot
        for node in self._tuple_checks:
            for x in node._inputs:
                if isinstance(values[slot[x]], tuple):
                    raise ShapeError(
                        f"{node.describe()}: its input {x.short()} has a tuple value: "
                        f"{tuples_refused(node.op.name)}"
                    )
        outside = [of for _, of, _ in self._shape_checks if of not in slot]
        known, computed = _counterparts(outside, order, values, feed) if outside else ({}, [])
        self._outside_variables = [n for n in computed if n.op is VARIABLE]
        for made, of, what in self._shape_checks:
            target = values[slot[of]] if of in slot else known[of]
            _check_derived(order[made], values[made], of, target, what)
        if self._shape_checks or self._tuple_checks:
            self._checked_shapes = self._fed_shapes(values, feed)
        self._validated = True

    def _check_given(self, values: list[Any], feed: Mapping[Node, Any]) -> None:
        """Before a checking run: the seeds and tangents given as values (constants, eager
        nodes), against the Variables fed, so that one of the wrong shape is named before it
        meets an op it does not fit."""
        order, slot = self._order, self._slot
        for made, of, what in self._shape_checks:
            if values[made] is None or what not in _GIVEN:
                continue
            k = slot.get(of)
            if k is not None and values[k] is not None:
                _check_derived(order[made], values[made], of, values[k], what)
            elif k is None and of.op is VARIABLE and of in feed:
                _check_derived(order[made], values[made], of, _feed_value(feed, of), what)

    def _fed_shapes(self, values: list[Any], feed: Mapping[Node, Any]) -> tuple:
        """The shapes of the values fed to this run (those of the plan, and those that its
        check read), by the plan's order of them."""
        shapes = [shape_of(values[k]) for k, _ in self._variables]
        for node in self._outside_variables:
            shapes.append(shape_of(feed[node]) if node in feed else None)
        return tuple(shapes)

    def _check_feed_keys(self, feed: Mapping[Node, Any]) -> None:
        """Refuse values for constants and computed nodes of this plan (they would be
        silently ignored); values for nodes outside the plan are allowed (one feed dict may
        serve several executors)."""
        fed = {node for _, node in self._variables}
        for key in feed:
            if key in self._slot and key not in fed and key not in self._given:
                what = "a constant" if key.op is CONSTANT else "computed by the graph"
                raise FeedError(
                    f"{key.describe()} is {what}: a feed dict gives Variables' values "
                    "(to supply an intermediate value, make an Executor with given=[node])"
                )

    @property
    def order(self) -> tuple[Node, ...]:
        """Every node of the plan, in the topological order it runs them."""
        return tuple(self._order)

    def values_by_node(self, feed: Mapping[Node, Any], *, arrays: bool = True) -> dict[Node, Any]:
        """Every node's value (not only the outputs) keyed by node, for traces: as arrays, or
        with ``arrays=False`` as the ops gave them (numpy scalars from scalar ops)."""
        values = self._values(feed, keep_all=True)
        return dict(zip(self._order, map(as_array, values) if arrays else values))


def evaluate(nodes: Node | Iterable[Node], feed: Mapping[Node, Any] | None = None) -> Any:
    """One-off evaluation: the value of a node, or a list of values for a list of nodes, at
    ``feed``.

    Examples:
        >>> x1, x2 = vz.Variable("x1"), vz.Variable("x2")
        >>> y = vz.log(x1) + x1 * x2 - vz.sin(x2)
        >>> vz.evaluate(y, {x1: 2.0, x2: 5.0})
        array(11.65207146)
        >>> vz.evaluate([y, x1 * x2], {x1: 2.0, x2: 5.0})
        [array(11.65207146), array(10.)]
    """
    values = Executor(as_node_list(nodes, "evaluate")).run(feed or {})
    return values[0] if isinstance(nodes, Node) else values


def evaluate_into(
    nodes: list[Node], values: dict[Node, Any], feed: Mapping[Node, Any]
) -> list[Node]:
    """Compute ``nodes`` and what they need that ``values`` does not hold yet, adding each to
    ``values`` as the ops give it (numpy scalars from scalar ops, as a plan's run keeps them);
    return those computed, in the order computed (creation order).

    A walkthrough's evaluation of its graph extension: the forward values are known, and what
    the extension adds is evaluated once, without a plan to reuse. Constants stay weakly
    typed, eager nodes give their own values, Variables outside ``values`` are read from
    ``feed``; errors are the executor's (they name the node, the op and the shapes)."""
    order = [n for n in topo_sort_of_list(nodes, values) if n not in values]
    for node in order:  # hot: slots read directly
        op = node._operation
        if op is CONSTANT:
            values[node] = node._attrs["value"]
            continue
        if node.__class__ is not Node:  # an eager node: computed when built
            values[node] = node._value  # type: ignore[attr-defined]  # (hot: no isinstance)
            continue
        if op is VARIABLE:
            values[node] = _feed_value(feed, node)
            continue
        args = [constant_value(x) if x._operation is CONSTANT else values[x] for x in node._inputs]
        try:
            value = op.bind(node)(*args)
        except Exception as exc:
            raise evaluation_error(node, args, exc) from exc
        if value is None:
            raise _returned_none(node)
        values[node] = value
    return order


def check_derived_shapes(record: Adjoints | Tangents, values: Mapping[Node, Any]) -> None:
    """What the first run of a plan checks, for values computed otherwise (a walkthrough):
    each adjoint or tangent in ``values`` has the shape of the value it derives from."""
    for made, of, what in _derived_pairs(record):
        if made is not None and made in values and of in values:
            _check_derived(made, values[made], of, values[of], what)


def _what(what: str | Node) -> str:
    """The words of a derived pair: made only for an error message."""
    return what if isinstance(what, str) else f"the partial adjoint from {what.op.name} of"


def _check_derived(
    node: Node, value: Any, target: Node, target_value: Any, what: str | Node
) -> None:
    if value.__class__ is np.ndarray and target_value.__class__ is np.ndarray:
        if value.shape == target_value.shape:
            return
    got, want = shape_of(value), shape_of(target_value)
    if got != want:
        raise ShapeError(
            f"{node.describe()}, {_what(what)} {target.short()}, has shape {got} but "
            f"{target.short()} has shape {want}: {_advice(what, want)}"
        )


#: The derived values that a caller gives (checked before a run, where their values are known).
_GIVEN = ("the seed of", "the tangent given for", "the tangent of")


def _advice(what: str | Node, shape: Any) -> str:
    """What to do about a derived value of the wrong shape."""
    if what == "the seed of":
        return f"give a cotangent of shape {shape} (gradients(y, wrt, cotangent))"
    if what == "the tangent given for":
        return f"give a tangent of shape {shape}, or a number"
    if what == "the tangent of":
        return f"give a tangent of shape {shape}"
    if isinstance(what, str):
        return "check the cotangent given and the custom rules it went through"
    return f"the vjp of op {what.op.name!r} must give each input's adjoint the input's shape"


def _downstream(order: list[Node], given: frozenset) -> set[Node]:
    """The nodes of ``order`` (a topological order) computed from a node of ``given``."""
    found: set[Node] = set()
    for node in order:
        for x in node._inputs:
            if x in given or x in found:
                found.add(node)
                break
    return found


def _counterparts(
    nodes: list[Node], order: list[Node], values: list[Any], feed: Mapping[Node, Any]
) -> tuple[dict[Node, Any], list[Node]]:
    """The values of ``nodes``, which a plan's shape check compares with but the plan does
    not compute (the output a seed is given for, a Variable a tangent is given for),
    computed from the plan's values and the feed; and the nodes computed (or read from the
    feed) for them."""
    known = dict(zip(order, values))
    try:
        computed = evaluate_into(nodes, known, feed)
    except FeedError as exc:
        shown = ", ".join(n.short() for n in nodes[:3])
        raise FeedError(
            f"{exc}; it is needed to check that the seeds and tangents of this plan have "
            f"the shapes of what they are given for ({shown})"
        ) from None
    return known, computed


def _with_releases(steps: list, keep: set[int]) -> list:
    """Each step with the slots whose last use it is (never outputs or leaves)."""
    last_use: dict[int, int] = {}
    computed = {k for _, _, k in steps}
    for s, (_, inputs, _) in enumerate(steps):
        for i in inputs:
            last_use[i] = s
    dead: list[list[int]] = [[] for _ in steps]
    for i, s in last_use.items():
        if i in computed and i not in keep:
            dead[s].append(i)
    return [(fn, inputs, k, tuple(d)) for (fn, inputs, k), d in zip(steps, dead)]


class _ReturnedNone(Exception):
    """An op's compute returned None (the first run checks every value)."""


def _returned_none(node: Node) -> EvaluationError:
    return EvaluationError(
        f"{node.describe()}: op {node.op.name!r} returned None; its compute must return the value"
    )


def _derived_pairs(record: Adjoints | Tangents) -> list[tuple[Node | None, Node, str | Node]]:
    """(derived node, the node it derives from, what it is) for an extension record: the
    seed, each partial adjoint that a rule outside vizad made and the gradients (reverse
    mode); each seed, each tangent that such a rule made and the output's (forward). vizad's
    own ops give values of the right shape from inputs of the right shape, and an adjoint is
    a sum of partials: a wrong shape can only start at a seed or at a rule someone wrote (the
    results are checked too, for plans that do not hold the output a seed is checked with)."""
    pairs: list[tuple[Node | None, Node, str | Node]] = []  # (None: a node freed)
    if hasattr(record, "adjoint"):  # Adjoints: read its weak references directly (hot path)
        record = cast("Adjoints", record)
        pairs.append((record.seed, record.output, "the seed of"))
        for node, entries in record._partials.items():
            for consumer, _, ref, _, _ in entries:
                if not consumer._operation._builtin:
                    pairs.append((ref(), node, consumer))  # words made on error (_what)
        for w in record.wrt:  # after the rules: an error names the rule that started it
            pairs.append((record.adjoint(w), w, "the adjoint of"))
    else:  # Tangents
        for node, seed in record.seeds.items():
            # a tangent given as an array must have the input's shape (a number, or a 0-d
            # array, is broadcast to it)
            raw = seed.inputs[0] if seed.op.name == "broadcast_to" else seed
            if raw.op is CONSTANT and np.ndim(raw.attrs["value"]) > 0:
                pairs.append((raw, node, "the tangent given for"))
            else:  # a node given as the tangent, or the broadcast of a number
                pairs.append((seed, node, "the tangent of"))
        for node in record.order:
            tangent = record.tangent(node)
            if tangent is not None and (node is record.output or not node._operation._builtin):
                pairs.append((tangent, node, "the tangent of"))
    return pairs


def _differentiated(record: Adjoints | Tangents) -> tuple:
    """The nodes an Adjoints or Tangents record differentiates with respect to."""
    wrt = getattr(record, "wrt", None)
    if wrt is not None:
        return tuple(wrt)
    return tuple(getattr(record, "seeds", {}) or ())


def check_floating(node: Node, value: Any) -> None:
    """A FeedError unless the value of differentiated Variable ``node`` is floating-point."""
    for leaf in leaves(value):
        kind = np.asarray(leaf).dtype.kind
        if kind not in "fc":
            raise FeedError(
                f"Variable {node.short()!r} is differentiated but was fed "
                f"{np.asarray(leaf).dtype} values: gradients need floating-point inputs "
                "(as in PyTorch and JAX; an integer adjoint would wrap around); feed "
                "np.asarray(value, dtype=float)"
            )


def _fed(feed: Mapping, node: Node) -> bool:
    try:
        return node in feed
    except TypeError:
        return False


def missing_message(feed: Mapping, missing: list[Node]) -> str:
    """What a feed lacks, and how to give it: the Variables expected by name, and the fix
    for the usual first mistakes (keyed by names; no feed, or the feed given in another
    argument's place)."""
    names = ", ".join(repr(n.name) for n in missing[:8]) + (" …" if len(missing) > 8 else "")
    head = (
        f"Variable {names} (node #{missing[0].id}) is not in the feed dict"
        if len(missing) == 1
        else f"Variables {names} are not in the feed dict"
    )
    keyed = [k for k in feed if isinstance(k, str)]
    if keyed:
        example = ", ".join(f"{k}: {feed[k]!r:.20}" for k in keyed[:4])
        return (
            f"{head}: the feed is keyed by names ({', '.join(map(repr, keyed[:4]))}); key it "
            f"by the Variables themselves, {{{example}}}, where {keyed[0]} = "
            f"vz.Variable({keyed[0]!r})"
        )
    if not feed:
        example = ", ".join(f"{n.name}: …" for n in missing[:4])
        return (
            f"{head} (it has nothing): give their values as the feed, the argument after what "
            f"is differentiated: vz.evaluate(y, {{{example}}}), vz.step(y, wrt, {{{example}}})"
        )
    fed = ", ".join(sorted(repr(str(n)) for n in feed if isinstance(n, Node))) or "nothing"
    return f"{head} (it has {fed})"


def _feed_value(feed: Mapping[Node, Any], node: Node) -> Any:
    try:
        value = feed[node]
    except KeyError:
        if node.op is not VARIABLE:
            raise FeedError(
                f"{node.describe()} is given to this Executor but not in the feed dict"
            ) from None
        raise FeedError(missing_message(feed, [node])) from None
    except TypeError:
        raise FeedError(
            f"the feed dict must map Variable nodes to values, got {type(feed).__name__}"
        ) from None
    if node.op is not VARIABLE:
        return read_only(value)  # a given intermediate value, computed by an earlier evaluation
    if isinstance(value, tuple) and not isinstance(node.attrs["shape"], TupleShape):
        value = list(value)  # a sequence of numbers is an array, not a tuple value
    array = _numeric_array(value, f"feed value of Variable {node.name!r}")
    if array.__class__ is np.ndarray and array is not value:
        array.flags.writeable = False  # made from a number or a list: the plan's own array
    else:
        array = read_only(array)  # the caller's array: a read-only view of it
    value = array
    declared = node.attrs["shape"]
    if declared is not None and np.shape(value) != declared:
        raise FeedError(
            f"Variable {node.name!r} is declared with shape {declared} "
            f"but was fed shape {np.shape(value)}"
        )
    return value
