"""Graph walks shared by everything: the topological sort, and display numbering.

The sort is one function (:func:`topo_sort`) with two walks inside: creation order, checked
edge by edge as it goes (a node is built after its inputs), and an iterative depth-first sort
that finds a cycle if a graph was tampered with. :func:`post_order` walks the graphs of other
engines (599W, needle, micrograd). No recursion on graph depth anywhere: a chain of 200,000
nodes is an ordinary graph.
"""

from __future__ import annotations

from operator import attrgetter
from collections.abc import Container, Iterable, Mapping, Sequence

from vizad.errors import GraphError, NodeTypeError
from vizad.engine.adapters import adopt
from vizad.engine.eager import LazyGrad
from vizad.engine.node import Node
from vizad.engine.op import CONSTANT, VARIABLE

__all__ = ["topo_sort", "ranked_order", "rank", "numbering", "as_node_list"]


def as_node_list(nodes: Node | Iterable[Node], what: str = "nodes") -> list[Node]:
    """A node or an iterable of nodes as a list, checking that every item is a Node (nodes
    of other engines are read by their adapters, :mod:`vizad.engine.adapters`)."""
    if isinstance(nodes, Node):
        return [nodes.node() if nodes.__class__ is LazyGrad else nodes]
    adopted = adopt(nodes)
    if isinstance(adopted, Node):
        return [adopted]
    if isinstance(nodes, Mapping) and ": " in what:  # a feed dict in the nodes' place
        call, argument = what.split(": ", 1)
        names = [str(getattr(k, "name", k)) for k in list(nodes)[:3]]
        example = ", ".join(f"{n}: {v!r:.12}" for n, v in zip(names, nodes.values()))
        raise NodeTypeError(
            f"{what}: got a dict ({{{example}}}), which looks like the feed: {argument} is "
            f"what is differentiated (a node or a list of nodes) and the feed comes after it: "
            f"vz.{call}(y, [{', '.join(names)}], {{{example}}})"
        )
    if isinstance(nodes, (str, bytes)) or not isinstance(nodes, Iterable):
        raise NodeTypeError(
            f"{what}: expected a Node or a list of Nodes (such as [x1, x2]), got "
            f"{type(nodes).__name__} {nodes!r:.60}"
        )
    items = list(nodes)
    for k, item in enumerate(items):
        if item.__class__ is LazyGrad:  # a gradient: the adjoint node it stands for
            items[k] = item.node()
        elif not isinstance(item, Node):
            adopted = adopt(item)
            if isinstance(adopted, Node):
                items[k] = adopted
                continue
            raise NodeTypeError(
                f"{what}: item {k} is a {type(item).__name__} ({item!r:.60}), not a Node; give "
                "the nodes themselves (the objects vz.Variable and the ops return), not names"
            )
    return items


def topo_sort(outputs: Node | Iterable[Node], stop: Container[Node] = ()) -> list[Node]:
    """Every node that ``outputs`` depend on, each after all of its inputs.

    Deterministic (creation order), iterative, linear. Nodes in ``stop`` are listed but not
    walked into. Raises GraphError naming a node on the cycle if the graph has one.

    Examples:
        >>> x1, x2 = vz.Variable("x1"), vz.Variable("x2")
        >>> y = vz.log(x1) + x1 * x2 - vz.sin(x2)
        >>> [str(node) for node in vz.topo_sort(x1 * x2 + x1)]
        ['x1', 'x2', 'mul(x1, x2)', 'add(mul(x1, x2), x1)']
    """
    return topo_sort_of_list(as_node_list(outputs, "topo_sort"), stop)


def post_order(roots: Iterable, inputs=lambda node: node.inputs, known: Iterable = ()) -> list:
    """Every object ``roots`` depend on through ``inputs(obj)``, each after its inputs, in
    the order of a post-order depth-first search (iterative: any depth). Objects whose ``id``
    is in ``known`` are neither listed nor walked into. For graphs of other engines (the
    CSE 599W skeleton's and needle's find_topo_sort, vz.diagnose): vizad's own nodes use
    :func:`topo_sort`."""
    seen = set(known)
    order: list = []
    for root in roots:
        if id(root) in seen:
            continue
        seen.add(id(root))
        stack = [(root, iter(inputs(root)))]
        while stack:
            node, pending = stack[-1]
            for x in pending:
                if id(x) not in seen:
                    seen.add(id(x))
                    stack.append((x, iter(inputs(x))))
                    break
            else:
                stack.pop()
                order.append(node)
    return order


def topo_sort_of_list(outputs: list[Node], stop: Container[Node] = ()) -> list[Node]:
    """:func:`topo_sort` of a list already checked to hold only nodes.

    A node is always built after its inputs, so creation order is a topological order: collect
    what the outputs depend on, checking on the way that every edge goes forward, and sort it
    by id. Only a graph whose internals were tampered with fails the check; it gets the
    depth-first sort, which finds any cycle.
    """
    order = _by_creation(outputs, stop)
    return order if order is not None else _depth_first(outputs, stop)


_ID = attrgetter("_id")


def _by_creation(outputs: list[Node], stop: Container[Node]) -> list[Node] | None:
    # Node's slots are read directly here: this walk is on every plan's hot path.
    seen: set[Node] = set()
    stack: list[Node] = []
    for node in outputs:
        if node not in seen:
            seen.add(node)
            stack.append(node)
    add, push, pop = seen.add, stack.append, stack.pop
    while stack:
        node = pop()
        if node in stop:
            continue
        created = node._id
        for inp in node._inputs:
            if inp._id >= created:  # an edge that goes back: tampered with
                return None
            if inp not in seen:
                add(inp)
                push(inp)
    return sorted(seen, key=_ID)


def _depth_first(outputs: list[Node], stop: Container[Node]) -> list[Node]:
    """Iterative depth-first sort in input order, raising GraphError on a cycle."""
    order: list[Node] = []
    append = order.append
    state: dict[Node, bool] = {}  # False: on the current path; True: done
    get = state.get
    for root in outputs:
        if root in state:
            continue
        state[root] = False
        stack = [(root, iter(() if root in stop else root.inputs))]
        while stack:
            node, pending = stack[-1]
            for inp in pending:
                seen = get(inp)
                if seen:
                    continue
                if seen is False:
                    raise GraphError(
                        f"the graph has a cycle through {inp.describe()}: a node was changed "
                        "after it was built; rebuild the graph with ops"
                    )
                state[inp] = False
                stack.append((inp, iter(() if inp in stop else inp.inputs)))
                break
            else:
                stack.pop()
                state[node] = True
                append(node)
    return order


def ranked_order(outputs: Node | Sequence[Node]) -> list[Node]:
    """The graph of ``outputs`` in display order, a topological order used by every view.

    Variables first (in creation order), then every other node by depth (the longest path
    from the leaves; constants have depth 0), ties by creation order. For the lecture example
    ``log(x1) + x1*x2 - sin(x2)`` this gives v1 = x1, v2 = x2, v3 = ln v1, v4 = v1 × v2,
    v5 = sin v2, v6 = v3 + v4, v7 = v6 − v5. Linear time: nodes are bucketed by depth.
    (:func:`numbering` numbers this order, leaving out constants.)

    Examples:
        >>> from vizad import extend
        >>> x1, x2 = vz.Variable("x1"), vz.Variable("x2")
        >>> y = vz.log(x1) + x1 * x2 - vz.sin(x2)
        >>> [str(node) for node in extend.ranked_order(y)][:4]
        ['x1', 'x2', 'log(x1)', 'mul(x1, x2)']
    """
    outputs = as_node_list(outputs, "topo_sort")
    order = _by_creation(outputs, ())  # topo_sort's, known here to be in creation order
    if order is None:
        return rank(_depth_first(outputs, ()))
    return rank(order, by_creation=True)


def rank(order: Sequence[Node], by_creation: bool = False) -> list[Node]:
    """:func:`ranked_order` of a graph from its topological order (``by_creation``: the
    order is by creation, so that each depth's nodes come in creation order already)."""
    depth: dict[Node, int] = {}
    buckets: list[list[Node]] = [[]]
    variables = []
    for node in order:  # Node's slots are read directly: every view and backward ranks
        if node._operation is VARIABLE:
            variables.append(node)
            depth[node] = 0
            continue
        d = 0
        for i in node._inputs:
            e = depth[i] + 1
            if e > d:
                d = e
        depth[node] = d
        if d == len(buckets):
            buckets.append([node])
        else:
            buckets[d].append(node)
    if by_creation:
        ranked = variables
        for bucket in buckets:
            ranked += bucket
        return ranked
    ranked = sorted(variables, key=_ID)
    for bucket in buckets:
        if len(bucket) > 1:
            bucket.sort(key=_ID)
        ranked += bucket
    return ranked


def numbering(outputs: Node | Sequence[Node]) -> dict[Node, int]:
    """Display numbers 1…N (v1 … vN) in :func:`ranked_order`, for every node but the
    constants, which views show by their value (v2 = v1 + 3).

    Examples:
        >>> x1, x2 = vz.Variable("x1"), vz.Variable("x2")
        >>> y = vz.log(x1) + x1 * x2 - vz.sin(x2)
        >>> numbers = vz.numbering(y)
        >>> numbers[x1], numbers[x2], numbers[y]
        (1, 2, 7)
    """
    return number_ranked(ranked_order(outputs))


def number_ranked(ranked: Iterable[Node]) -> dict[Node, int]:
    """:func:`numbering` from an already computed :func:`ranked_order`.

    Examples:
        >>> from vizad import extend
        >>> x1, x2 = vz.Variable("x1"), vz.Variable("x2")
        >>> y = vz.log(x1) + x1 * x2 - vz.sin(x2)
        >>> numbers = extend.number_ranked(extend.ranked_order(y))
        >>> numbers[x1], numbers[y]
        (1, 7)
    """
    numbered = (n for n in ranked if n.op is not CONSTANT)
    return {node: k for k, node in enumerate(numbered, start=1)}
