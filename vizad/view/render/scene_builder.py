"""The scene of a target (nodes or a trace) in one view: the boxes, edges and clusters of
:mod:`vizad.view.render.scene`, made from the graph and its names.

By default the extended views are simplified: partial adjoints that are the consumer's adjoint
itself (an identity node) and sum-to-shape steps that reduce nothing are folded into the box
they copy (which lists their names), intermediate parts of a rule used once are written into
their consumer's formula, constants are written into their consumers, and the edges by which the
extension reads forward values are laid out but not drawn. ``detail=True`` shows every node.
"""

from __future__ import annotations

import dataclasses
import re
import weakref
from collections import Counter
from functools import partial
from typing import Any

import numpy as np

from vizad.engine.adapters import adopt
from vizad.errors import ArgumentError
from vizad.engine.forward import Tangents
from vizad.engine.graph import as_node_list, ranked_order
from vizad.engine.node import Node, static_shape
from vizad.engine.op import CONSTANT, VARIABLE
from vizad.engine.tree import TupleShape
from vizad.trace.text import check_decimals, latex_to_text
from vizad.engine.eager import EagerNode
from vizad.trace import Names, Trace, trace_reverse
from vizad.trace.derivation import MANY_TERMS, fewer, tangent_rule
from vizad.view.render.scene import MAX_LINE, VIEWS, Edge, Item, Scene, fixed, value_parts

__all__ = ["build_scene"]


def _known(nodes) -> dict[Node, Any]:
    """The values of the eager nodes among ``nodes`` (computed when they were built)."""
    return {n: n.value for n in nodes if isinstance(n, EagerNode)}


def build_scene(
    target,
    view: str | None = None,
    decimals: int = 3,
    *,
    detail: bool = False,
    reads: bool = False,
) -> Scene:
    """The scene of ``target`` (a node, a list of nodes, or a trace) in ``view``. An eager
    node that gradients flow to is drawn, by default, as its reverse walkthrough's backprop
    view: each node's value and adjoint on the graph that ran (so is a node of another eager
    engine that an adapter reads: a student's micrograd Value, as draw_dot draws it).

    Examples:
        >>> from vizad.view import render
        >>> scene = render.build_scene(vz.examples.lecture(), "adjoint")
        >>> scene.view, len(scene.items)
        ('adjoint', 20)
    """
    decimals = check_decimals(decimals, "draw")
    if not isinstance(target, (Node, Trace, list, tuple)):
        target = adopt(target)
    if isinstance(target, EagerNode) and view is None and target.requires_grad:
        target, view = trace_reverse(target, decimals=decimals), "backprop"
    if isinstance(target, Trace):
        return _trace_scene(target, target.view(view), decimals, detail, reads)
    view = "forward" if view is None else view
    if view not in VIEWS:
        raise ArgumentError(
            f"a drawing of nodes has the views {', '.join(map(repr, VIEWS))} ('adjoint' and "
            f"'tangent' both add the extensions that built them); got {view!r}. The views "
            "that lay adjoints or tangents on the forward graph need a trace "
            "(vz.trace_reverse(...) or vz.trace_forward(...))"
        )
    outputs = as_node_list(target, "draw")
    if not outputs:
        raise ArgumentError("draw: nothing to draw (give a node, a list of nodes or a trace)")
    drawn = ranked_order(outputs)
    records = _records(drawn)
    if view == "forward" or not records:
        names = Names(drawn, (), records)
        builder = _Builder(names, _known(drawn), decimals, detail, reads, records=records)
        builder.add_forward(drawn, "cluster_forward" if records else None)
        what = ", ".join(names.label(o) for o in outputs[:4]) + ("…" if len(outputs) > 4 else "")
        return builder.scene("forward", f"Forward graph of {what}")
    graph = ranked_order([r.output for r in records] + [o for o in outputs if o.origin is None])
    in_graph = set(graph)
    graph += [n for n in drawn if n not in in_graph and n.origin is None]
    in_graph = set(graph)
    extension = [n for n in drawn if n not in in_graph]
    names = Names(graph, extension, records)
    builder = _Builder(names, _known(drawn), decimals, detail, reads, records=records)
    builder.add_forward(graph, "cluster_forward")
    builder.add_extension(extension)
    last = [r for r in records if any(n.origin is r for n in extension)]
    words = _extension_words(last)
    outs = [r.output for r in last]
    what = ", ".join(names.label(o) for o in outs[:4]) + ("…" if len(outs) > 4 else "")
    return builder.scene(view, f"{words.capitalize()} of {what}")


def _trace_scene(trace, view: str, decimals: int, detail: bool, reads: bool) -> Scene:
    extended = view == trace.extended_view and bool(trace.extension)
    records = _records(trace.graph + (trace.extension if extended else []))
    builder = _Builder(trace.names, trace.values, decimals, detail, reads, trace, records)
    builder.add_forward(trace.graph, "cluster_forward" if records else None)
    if extended:
        builder.add_extension(trace.extension)
    if view == trace.laid_view:
        builder.lay_results()
    titles = {
        "forward": "Forward graph",
        "adjoint": "Adjoint graph",
        "tangent": "Tangent graph",
        "backprop": "Adjoints on the forward graph (backprop)",
        "tangents": "Tangents on the forward graph",
    }
    title = f"{titles[view]} of {trace.names.label(trace.output)} ({trace.computed_by})"
    return builder.scene(view, title, legend=True)


def _records(nodes: list[Node]) -> list:
    """The extension records that made some of ``nodes``, in the order they were built."""
    first: dict = {}
    for n in nodes:
        if n.origin is not None:
            key = id(n.origin)
            if key not in first or n.id < first[key][0]:
                first[key] = (n.id, n.origin)
    return [record for _, record in sorted(first.values(), key=lambda p: p[0])]


def _extension_words(records) -> str:
    kinds = {isinstance(r, Tangents) for r in records}
    if kinds == {True}:
        return "tangent graph"
    if kinds == {False}:
        return "adjoint graph"
    return "adjoint and tangent graphs"


def _cluster_titles(records, engine: str | None = None) -> dict[str, str]:
    clusters = {"cluster_forward": "forward graph"}
    for k, record in enumerate(records, start=1):
        tangent = isinstance(record, Tangents)
        what = "tangent graph" if tangent else "adjoint graph"
        number = f" {k}" if len(records) > 1 else ""
        built = " (built by jvp)" if tangent else " (built by gradients)"
        if engine:  # another engine's backward pass, recorded
            built = f" ({engine}'s backward pass)"
        clusters[f"cluster_ext{k}"] = what + number + built
    return clusters


class _Builder:
    def __init__(
        self,
        names: Names,
        values: dict,
        decimals: int,
        detail: bool,
        reads: bool,
        trace=None,
        records=(),
    ):
        self.names, self.values, self.decimals = names, values, decimals
        self.detail, self.reads, self.trace = detail, reads, trace
        #: The cluster of each extension's nodes (by record), and the clusters' titles.
        self.cluster_of = {id(r): f"cluster_ext{k}" for k, r in enumerate(records, start=1)}
        engine = trace.engine if trace is not None else None
        self.titles = _cluster_titles(records, engine) if records else {}
        self.items: list[Item] = []
        self.edges: list[Edge] = []
        self.ids: dict[Node, str] = {}
        self._edge_keys: set[tuple[str, str]] = set()
        #: LaTeX of intermediate nodes and constants written into their consumers (_LATER:
        #: made when first read, as a summary may never write the consumer).
        self._inline: dict[Node, Any] = {}
        self._folded = 0
        self._constants = 0
        #: Forward node → the sum_to_shape nodes that sum nothing, drawn as its box.
        self._aliases: dict[Node, list[Node]] = {}

    def scene(self, view: str, title: str, legend: bool = False) -> Scene:
        n = self._folded
        note = (
            f"{n} copying steps merged into the boxes they copy (detail=True shows them)"
            if n > 1
            else "1 copying step merged into the box it copies (detail=True shows it)"
            if n
            else ""
        )
        items, scoped, parents = self._scope_clusters()
        used = {i.cluster for i in items} | set(parents.values())
        clusters = {k: v for k, v in self.titles.items() if k in used}
        clusters.update(scoped)
        scene = Scene(
            view,
            items,
            self.edges,
            clusters,
            title,
            note,
            self.ids,
            self.trace,
            self.names,
            legend,
            parents,
        )
        # the boxes' text, written on first use, reads this builder: it lets go of the boxes
        # and edges, so that no cycle keeps a summarised scene's boxes alive
        self.items, self.edges, self._edge_keys = [], [], set()
        return scene

    def _scope_clusters(self):
        """Items placed in a cluster per vz.scope() (nested as the scopes are, inside the
        forward graph's or an extension's cluster), the scope clusters' titles and parents."""
        ids: dict[tuple, str] = {}
        titles: dict[str, str] = {}
        parents: dict[str, str] = {}
        items = []
        for item in self.items:
            path = self._scope_of(item)
            if not path:
                items.append(item)
                continue
            cluster = item.cluster
            for depth in range(1, len(path) + 1):
                key = (item.cluster, path[:depth])
                if key not in ids:
                    ids[key] = f"cluster_s{len(ids) + 1}"
                    titles[ids[key]] = path[depth - 1]
                    if cluster is not None:
                        parents[ids[key]] = cluster
                cluster = ids[key]
            items.append(dataclasses.replace(item, cluster=cluster, scope=path))
        return items, titles, parents

    def _scope_of(self, item: Item) -> tuple[str, ...]:
        node = item.node
        if node is None:
            return ()
        roles = self.names.roles(node)
        return roles[0].of.scope if roles else node.scope

    # -- text ----------------------------------------------------------------------------
    def symbol(self, node: Node) -> str:
        inline = self._inline.get(node)
        if inline is _LATER:  # an intermediate written into its consumer: made when read
            formula = self.formula(node)
            atomic = not re.search(r"[\s+\-×/·,]", latex_to_text(formula))
            inline = self._inline[node] = formula if atomic else r"\left(" + formula + r"\right)"
        return inline if inline is not None else self.names.symbol(node)

    def formula(self, node: Node) -> str:
        """The node's op applied to its inputs' names (or inlined formulas), as LaTeX."""
        if node.op is VARIABLE:
            return self.names.definition(node)
        return node.op.latex([self.symbol(i) for i in node.inputs], node.attrs)

    def value_parts(self, node: Node, caption: str = "") -> tuple[list[str], tuple]:
        """The lines and heatmaps that show a node's value (nothing when it is not known)."""
        if node not in self.values:
            shape = static_shape(node)
            if isinstance(shape, tuple) and not isinstance(shape, TupleShape) and shape:
                return ["shape " + "×".join(map(str, shape))], ()
            return [], ()
        return value_parts(self.values[node], self.decimals, caption)

    # -- forward graph -------------------------------------------------------------------
    def add_constant(self, node: Node, cluster: str | None) -> None:
        self._constants += 1
        item_id = self.ids[node] = f"c{self._constants}"
        self.items.append(
            Item(item_id, "constant", fixed((self.names.label(node),)), node, cluster)
        )

    def cluster(self, node: Node, default: str | None) -> str | None:
        """The cluster of ``node``: its extension's, else ``default``."""
        if node.origin is None:
            return default
        return self.cluster_of.get(id(node.origin), default)

    def add_forward(self, nodes: list[Node], default: str | None) -> None:
        names = self.names
        for node in nodes:
            cluster = self.cluster(node, default)
            if node.op is CONSTANT:
                if self.detail:
                    self.add_constant(node, cluster)
                continue
            source = self._noop_sum(node)
            if source is not None:  # the identity: drawn as the box it copies, named there
                self.ids[node] = self.ids[source]
                self._aliases.setdefault(source, []).append(node)
                continue
            item_id = self.ids[node] = f"v{names.number(node)}"
            kind = "variable" if node.op is VARIABLE else "forward"
            text = partial(self._aliased_forward_text, node)
            head = partial(names.label, node)
            self.items.append(Item(item_id, kind, text, node, cluster, head=head))
            self._edges_into(node, "forward")

    def _noop_sum(self, node: Node) -> Node | None:
        """The drawn input of ``node`` when ``node`` is a sum_to_shape of the graph that sums
        nothing (its value has its input's shape, scalars above all: a gradient built before
        any shape was known reduces at run time), unless ``detail``; else None. Such a node
        keeps its number and its step: it is named on its input's box ("v₈ = v₁₀")."""
        if self.detail or node.op.name != "sum_to_shape" or not node.inputs:
            return None
        source = node.inputs[0]
        if source not in self.ids or source not in self.values or node not in self.values:
            return None
        same = np.shape(self.values[node]) == np.shape(self.values[source])
        return source if same else None

    def _aliased_forward_text(self, node: Node) -> tuple[tuple[str, ...], tuple]:
        """:meth:`_forward_text`, the box's name line naming the no-op sums drawn as it."""
        lines, heatmaps = self._forward_text(node)
        aliases = self._aliases.get(node)
        if not aliases:
            return lines, heatmaps
        named = " = ".join([lines[0], *(self.names.label(a) for a in aliases)])
        return (named, *lines[1:]), heatmaps

    def _forward_text(self, node: Node) -> tuple[tuple[str, ...], tuple]:
        """A forward box's lines (name, role, formula, value) and heatmaps: for a trace, made
        once for all its views (the forward graph's boxes read the same in each, and the laid
        view's add their results to them)."""
        if self.trace is None:
            return self._make_forward_text(node)
        made = _FORWARD_TEXTS.get(self.trace)
        if made is None:
            made = _FORWARD_TEXTS[self.trace] = {}
        key = (node, self.decimals)
        text = made.get(key)
        if text is None:
            text = made[key] = self._make_forward_text(node)
        return text

    def _make_forward_text(self, node: Node) -> tuple[tuple[str, ...], tuple]:
        names = self.names
        if node.op is VARIABLE:  # v₁ = x1; an eager leaf by its own name, or unnamed
            label = names.label(node)
            named = node.name is not None and node.name != label
            lines = [label, f"= {node.name}"] if named else [label]
        else:
            lines = [names.label(node), "= " + latex_to_text(self.formula(node))]
        role = names.role(node)
        if role is not None:
            lines.insert(1, f"is {role.text}")
        more, heatmaps = self.value_parts(node)
        return tuple(lines + more), tuple(heatmaps)

    def _edge(self, tail: str, head: str, kind: str, k: int, label: str = "") -> None:
        if (tail, head) in self._edge_keys or tail == head:
            return
        self._edge_keys.add((tail, head))
        self.edges.append(Edge(f"e_{tail}_{head}_{k}", tail, head, kind, label))

    def _sources(self, node: Node) -> list[Node]:
        """The drawn nodes that ``node`` reads, through inlined intermediates."""
        out, stack = [], list(reversed(node.inputs))
        while stack:
            x = stack.pop()
            if x in self.ids:
                out.append(x)
            elif x in self._inline and x.op is not CONSTANT:
                stack.extend(reversed(x.inputs))
        return out

    def _edges_into(self, node: Node, kind_of: str) -> None:
        head = self.ids[node]
        read = "reads" if self.reads or self.detail else "anchor"
        for k, inp in enumerate(self._sources(node)):
            tail = self.ids[inp]
            if kind_of == "forward":
                # a numbered node of an earlier extension reading a value of the graph it
                # extends is a read, like the adjoint nodes' reads
                across = node.origin is not None and inp.origin is not node.origin
                kind = read if across and self.names.number(inp) is not None else "forward"
            else:
                extension = inp.origin is not None and self.names.number(inp) is None
                kind = "extension" if extension else read
            self._edge(tail, head, kind, k)

    # -- the extension -------------------------------------------------------------------
    def add_extension(self, nodes: list[Node]) -> None:
        names = self.names
        drawn = set(nodes) | set(self.ids)
        uses = Counter(i for n in drawn for i in set(n.inputs))
        folded_into: dict[str, list[Node]] = {}
        kept = []
        for node in nodes:
            if node.op is CONSTANT and not names.roles(node):
                if self.detail:
                    self.add_constant(node, self.cluster(node, None))
                else:
                    self._inline[node] = names.symbol(node)
                continue
            if not self.detail:
                target = self._fold_target(node)
                if target is not None:
                    self.ids[node] = self.ids[target]
                    folded_into.setdefault(self.ids[target], []).append(node)
                    self._folded += 1
                    continue
                if names.is_intermediate(node) and uses[node] == 1:
                    self._inline[node] = _LATER  # its formula, when its consumer is written
                    continue
            kept.append(node)
            self.ids[node] = f"a{len(kept)}"
        ghosts = self._zero_tangents(kept)
        for node in kept:
            folded = folded_into.get(self.ids[node], ())
            kind = "tangent" if isinstance(node.origin, Tangents) else "adjoint"
            text = partial(self._extension_text, node, folded)
            head = partial(self._extension_name, node)
            cluster = self.cluster(node, None)
            self.items.append(Item(self.ids[node], kind, text, node, cluster, head=head))
            if self._is_seed(node) and not self.detail:
                continue  # the seed is a given value, not something computed from y
            self._edges_into(node, "extension")
            for ghost in ghosts.get(node, ()):
                self._edge(ghost, self.ids[node], "zero", 0)

    def _fold_target(self, node: Node) -> Node | None:
        """The node that ``node`` only copies (an identity partial adjoint, a sum-to-shape that
        reduces nothing), when it is drawn; else None."""
        if len(node.inputs) != 1 or node.inputs[0] not in self.ids:
            return None
        source = node.inputs[0]
        if source.origin is None or self.names.number(source) is not None:
            return None  # folding into a forward node would hide the extension's step
        roles = self.names.roles(node)
        if node.op.name == "identity":
            if roles and all(r.kind in ("partial", "unreduced") for r in roles):
                return source
            return None
        if node.op.name == "sum_to_shape" and self._same_shape(node, source):
            return source
        return None

    def _same_shape(self, a: Node, b: Node) -> bool:
        if a in self.values and b in self.values:
            return np.shape(self.values[a]) == np.shape(self.values[b])
        sa, sb = static_shape(a), static_shape(b)
        return sa is not None and sa == sb

    def _is_seed(self, node: Node) -> bool:
        return any(r.kind == "seed" for r in self.names.roles(node))

    def _extension_text(self, node: Node, folded) -> tuple[list[str], tuple]:
        """An extension box's lines (name, aliases, formula, value) and heatmaps."""
        more, heatmaps = self.value_parts(node)
        return self._extension_lines(node, folded) + more, heatmaps

    def _extension_name_lines(self, node: Node) -> list[str]:
        """An extension box's name (v̄₃, v̄₃→₆, "v̄₇ (seed)"), over lines when long."""
        names = self.names
        lines = _split_name(names.role(node).text if names.roles(node) else names.label(node))
        if self._is_seed(node):
            lines[0] += " (seed)"
        return lines

    def _extension_name(self, node: Node) -> str:
        """An extension box's name as its first line shows it."""
        return self._extension_name_lines(node)[0]

    def _extension_lines(self, node: Node, folded) -> list[str]:
        names = self.names
        aliases = [names.label(f) for f in folded]
        lines = self._extension_name_lines(node)
        if aliases:
            lines.append("= " + " = ".join(aliases))
        if self._is_seed(node):
            if not self.detail:
                return lines
        rule = self._tangent_rule(node)
        if rule is None and len(node.inputs) > MANY_TERMS:  # v̄ᵢ = Σₜ v̄ᵢ→ₜ, one term a use
            sums = [r.of for r in names.roles(node) if r.kind == "adjoint"]
            if sums:
                terms = fewer([latex_to_text(self.symbol(i)) for i in node.inputs], text=True)
                lines.append("= " + names.partial_sum(sums[0]).text)
                lines.append("= " + " + ".join(terms[:-2]))  # the first terms, then the rest
                lines.append("+ " + " + ".join(terms[-2:]))
                return lines
        lines.append("= " + latex_to_text(rule if rule is not None else self.formula(node)))
        return lines

    def _tangent_rule(self, node: Node) -> str | None:
        """In a forward trace, v̇ᵢ's rule as the walkthrough writes it (v̇₆ − v̇₅, zero
        tangents included), for the tangent node of a step."""
        if self.trace is None or self.trace.mode != "forward":
            return None
        for role in self.names.roles(node):
            if role.kind == "tangent":
                return tangent_rule(self.trace.step_of(role.of), self.names)
        return None

    def _zero_tangents(self, kept: list[Node]) -> dict[Node, list[str]]:
        """Boxes "v̇ₖ = 0" for the zero tangents that a forward trace's tangent rules read
        (they have no node: forward mode does not build zeros), keyed by the tangent reading
        them."""
        if self.trace is None or self.trace.mode != "forward":
            return {}
        out: dict[Node, list[str]] = {}
        made: dict[Node, str] = {}
        for node in kept:
            for role in self.names.roles(node):
                if role.kind != "tangent":
                    continue
                step = self.trace.step_of(role.of)
                for term in step.terms:
                    x = term.input
                    if x.op is CONSTANT or term.local_latex == "0":
                        continue
                    if self.trace.record.tangent(x) is not None:
                        continue
                    if x not in made:
                        made[x] = f"z{len(made) + 1}"
                        dot = self.names.dot(x).text
                        self.items.append(
                            Item(
                                made[x],
                                "zero",
                                fixed((f"{dot} = 0", "not built: zero")),
                                None,
                                self.cluster(node, None),
                            )
                        )
                    out.setdefault(node, []).append(made[x])
        return out

    # -- results laid on the forward graph ------------------------------------------------
    def lay_results(self) -> None:
        trace = self.trace
        laid: dict[str, object] = {}  # item id -> the step whose result is laid on it
        for step in trace.steps:
            item = self.ids.get(step.node)
            if item is not None:
                laid[item] = step
        self.items = [
            dataclasses.replace(i, text=partial(self._laid_text, i, laid[i.id]))
            if i.id in laid
            else i
            for i in self.items
        ]
        labels = self._local_partials()
        self.edges = [
            Edge(e.id, e.tail, e.head, e.kind, labels.get((e.tail, e.head), e.label))
            for e in self.edges
        ]

    def _laid_text(self, item: Item, step) -> tuple[tuple[str, ...], tuple]:
        """A forward box's text with the result of ``step`` laid on it: "v̄₄ = 1" for a
        number; a tensor's heatmap carries its name."""
        name = self.trace.result_name(step.node).text
        lines, heatmaps = value_parts(self.trace.result(step), self.decimals, name)
        return item.lines + tuple([] if heatmaps else [f"{name} {lines[0]}"]), (
            item.heatmaps + tuple(heatmaps)
        )

    def _local_partials(self) -> dict[tuple[str, str], str]:
        """∂vⱼ/∂vᵢ as text on the forward edge vᵢ → vⱼ, where the op states it briefly."""
        trace, ids = self.trace, self.ids
        out = {}
        if trace.mode == "reverse":
            pairs = [
                (step.node, c.consumer, c.local_latex)
                for step in trace.steps
                for c in step.contributions
            ]
        else:
            pairs = [
                (t.input, step.node, t.local_latex) for step in trace.steps for t in step.terms
            ]
        for x, consumer, latex in pairs:
            if latex is None or x not in ids or consumer not in ids:
                continue
            text = latex_to_text(latex)
            if len(text) <= EDGE_LABEL:
                out[(ids[x], ids[consumer])] = text
        return out


#: trace → {(forward node, decimals): its box's text}: the forward graph's boxes are the same
#: in every view of a trace (nothing an extension adds is read by a forward node's formula),
#: so that an export of its three views, and their boxes opened, writes each once.
_FORWARD_TEXTS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

#: An intermediate node's entry in _Builder._inline until its formula is first read.
_LATER: Any = object()

#: Local partials longer than this are not written on edges.
EDGE_LABEL = 14


def _split_name(name: str) -> list[str]:
    """A long name (``v̄₃ = v̄₃→₆``) over lines at its " = " signs."""
    if len(name) <= MAX_LINE:
        return [name]
    parts = name.split(" = ")
    lines = [parts[0]]
    for part in parts[1:]:
        if len(lines[-1]) + 3 + len(part) <= MAX_LINE:
            lines[-1] += " = " + part
        else:
            lines.append("= " + part)
    return lines
