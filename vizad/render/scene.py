"""What a drawing shows, as data: boxes and edges with ids from the display numbering.

A scene is built once per (target, view); drawings, laid-out SVGs and the stepper all read it.
Ids are vizad's own ("v4" for a numbered node, "c2" for a constant, "a17" for a node of the
adjoint or tangent graph), never ``id()``, so the same graph gives the same scene every run.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import ArgumentError
from ..forward import Tangents
from ..graph import as_node_list, number_ranked, ranked_order
from ..node import Node
from ..ops import CONSTANT, VARIABLE
from ..reverse import Adjoints
from ..text import BAR, DOT, format_number, format_value, latex_to_text, marked, pretty_label
from ..trace import ForwardTrace, ReverseTrace

__all__ = ["Item", "Edge", "Scene", "build_scene", "VIEWS"]

VIEWS = ("forward", "adjoint", "backprop")


@dataclass(frozen=True)
class Item:
    """One box: its id, kind (variable, forward, constant, adjoint, tangent, summary), its
    lines of plain text (the first one bold), and the node it stands for."""

    id: str
    kind: str
    lines: tuple[str, ...]
    node: Node | None = None
    cluster: str | None = None
    #: For summary boxes: the nodes it stands for.
    members: tuple[Node, ...] = ()


@dataclass(frozen=True)
class Edge:
    """An edge from an input to its consumer: forward, extension, or reads (a node of the
    extension reading a forward value)."""

    id: str
    tail: str
    head: str
    kind: str
    #: For edges between summary boxes: how many edges they stand for ("×12").
    label: str = ""


@dataclass
class Scene:
    view: str
    items: list[Item]
    edges: list[Edge]
    #: Cluster id → label, in drawing order.
    clusters: dict[str, str]
    title: str
    #: What was collapsed, for large graphs ("" when nothing was).
    note: str = ""
    #: Node → item id, for every node drawn (summarised nodes map to their summary box).
    ids: dict[Node, str] = field(default_factory=dict)
    trace: Any = None


def build_scene(target, view: str = "forward", decimals: int = 3) -> Scene:
    """The scene of ``target`` (a node, a list of nodes, or a trace) in ``view``."""
    if view not in VIEWS:
        raise ArgumentError(f"view must be one of {', '.join(VIEWS)}; got {view!r}")
    trace = target if isinstance(target, (ReverseTrace, ForwardTrace)) else None
    if trace is not None:
        outputs = [trace.output]
        extension = list(_extension_nodes(trace.record)) if view == "adjoint" else []
        values = trace.values
        records = [trace.record]
    else:
        outputs = as_node_list(target, "draw")
        if not outputs:
            raise ArgumentError("draw: nothing to draw (give a node, a list of nodes or a trace)")
        values = {}
        if view == "backprop":
            raise ArgumentError(
                "the backprop view lays adjoint values on the forward graph: "
                "draw a trace (vz.trace_reverse(...)), not nodes"
            )
        records, extension = [], []
        if view == "adjoint":
            drawn = ranked_order(outputs)
            extension = [n for n in drawn if n.origin is not None]
            records = list(dict.fromkeys(n.origin for n in extension))  # records hash by identity
            if records:  # else nothing was generated: the adjoint view is the forward view
                outputs = [r.output for r in records]
    builder = _Builder(view, values, decimals)
    forward = ranked_order(outputs)
    if trace is None and view == "adjoint":
        extension_set = set(extension)
        forward = [n for n in forward if n not in extension_set]
        forward_set = set(forward)
        # forward nodes that only the extension reaches (rare) are drawn too
        forward += [n for n in ranked_order(extension) if n not in forward_set and n.origin is None]
    builder.add_forward(forward, cluster="cluster_forward" if extension else None)
    if extension:
        builder.add_extension(extension, records)
    if view == "backprop":
        builder.annotate_backprop(trace)
    title = _title(view, outputs, trace, builder)
    clusters = {}
    if extension:
        clusters["cluster_forward"] = "forward graph"
        for k, record in enumerate(records, start=1):
            what = "adjoint graph" if isinstance(record, Adjoints) else "tangent graph"
            clusters[f"cluster_ext{k}"] = (
                what
                + (f" {k}" if len(records) > 1 else "")
                + (" (built by gradients)" if isinstance(record, Adjoints) else " (built by jvp)")
            )
    return Scene(view, builder.items, builder.edges, clusters, title, ids=builder.ids, trace=trace)


def _extension_nodes(record) -> list[Node]:
    """The nodes a record's graph extension added, that its steps read."""
    forward = set(ranked_order(record.output))
    return [n for n in ranked_order(list(record.roles())) if n not in forward]


def _title(view, outputs, trace, builder) -> str:
    what = {"forward": "Forward graph", "adjoint": "Adjoint graph", "backprop": "Backprop view"}[
        view
    ]
    if isinstance(trace, ForwardTrace) and view == "adjoint":
        what = "Tangent graph"
    if trace is not None:
        kind = "reverse" if isinstance(trace, ReverseTrace) else "forward"
        return f"{what} of {builder.label(trace.output)} ({kind} mode)"
    return (
        f"{what} of "
        + ", ".join(builder.label(o) for o in outputs[:4])
        + ("…" if len(outputs) > 4 else "")
    )


class _Builder:
    def __init__(self, view: str, values: dict, decimals: int):
        self.view, self.values, self.decimals = view, values, decimals
        self.items: list[Item] = []
        self.edges: list[Edge] = []
        self.ids: dict[Node, str] = {}
        self.numbers: dict[Node, int] = {}
        self.names: dict[Node, str] = {}
        self._constants = 0

    # -- labels ------------------------------------------------------------------------
    def label(self, node: Node) -> str:
        if node in self.names:
            return self.names[node]
        if node in self.numbers:
            return pretty_label(f"v{self.numbers[node]}")
        if node.op is CONSTANT:
            return (
                node.name if node.name is not None else preview(node.attrs["value"], self.decimals)
            )
        return self.ids.get(node, f"#{node.id}")

    def value_line(self, node: Node) -> str | None:
        if node not in self.values:
            return None
        return "= " + preview(self.values[node], self.decimals)

    # -- forward graph -----------------------------------------------------------------
    def add_constant(self, node: Node, cluster: str | None) -> None:
        self._constants += 1
        item_id = self.ids[node] = f"c{self._constants}"
        self.items.append(Item(item_id, "constant", (self.label(node),), node, cluster))

    def add_forward(self, nodes: list[Node], cluster: str | None) -> None:
        self.numbers = number_ranked(nodes)
        for node in nodes:
            if node.op is CONSTANT:
                self.add_constant(node, cluster)
                continue
            item_id = f"v{self.numbers[node]}"
            self.ids[node] = item_id
            head = self.label(node)
            if node.op is VARIABLE:
                lines = [f"{head} = {node.name}"]
            else:
                args = [self.label(i) for i in node.inputs]
                lines = [head, latex_to_text(node.op.latex([_latex(a) for a in args], node.attrs))]
            value = self.value_line(node)
            if value:
                lines.append(value)
            kind = "variable" if node.op is VARIABLE else "forward"
            self.items.append(Item(item_id, kind, tuple(lines), node, cluster))
            self._edges_into(node, "forward")

    def _edges_into(self, node: Node, kind_of: str) -> None:
        head = self.ids[node]
        for k, inp in enumerate(node.inputs):
            tail = self.ids.get(inp)
            if tail is None:
                continue
            if kind_of == "forward":
                kind = "forward"
            else:
                kind = (
                    "extension" if inp.origin is not None and inp not in self.numbers else "reads"
                )
            self.edges.append(Edge(f"e_{tail}_{head}_{k}", tail, head, kind))

    # -- the extension -----------------------------------------------------------------
    def add_extension(self, nodes: list[Node], records: list) -> None:
        roles: dict[Node, tuple] = {}
        for record in records:
            roles.update(record.roles())
        cluster_of = {id(r): f"cluster_ext{k}" for k, r in enumerate(records, start=1)}
        constants = [n for n in nodes if n.op is CONSTANT and n not in roles]
        nodes = [n for n in nodes if n.op is not CONSTANT or n in roles]  # seeds are boxes
        for k, node in enumerate(nodes, start=1):
            self.ids[node] = f"a{k}"
        for node in constants:
            self.add_constant(node, cluster_of.get(id(node.origin)))
        for node in nodes:
            name = self._role_name(node, roles.get(node, ()))
            if name:
                self.names[node] = name
        for node in nodes:
            node_roles = roles.get(node, ())
            head = self.names.get(node) or _op_word(node)
            if node_roles and node_roles[0].kind == "seed":
                head += " (seed)"
            args = [self.label(i) for i in node.inputs]
            lines = [head]
            if node.inputs:
                lines.append(latex_to_text(node.op.latex([_latex(a) for a in args], node.attrs)))
            if len(node_roles) > 1:
                lines[0] = " = ".join(
                    dict.fromkeys(self._role_name(node, (r,)) for r in node_roles)
                )
            value = self.value_line(node)
            if value:
                lines.append(value)
            tangent = isinstance(node.origin, Tangents)
            self.items.append(
                Item(
                    self.ids[node],
                    "tangent" if tangent else "adjoint",
                    tuple(lines),
                    node,
                    cluster_of.get(id(node.origin)),
                )
            )
            self._edges_into(node, "extension")

    def _role_name(self, node: Node, roles) -> str | None:
        if not roles:
            return None
        role = roles[0]
        i = self.label(role.of)
        bar = marked(i, BAR)
        if role.kind == "seed":
            return marked(i, DOT) if isinstance(node.origin, Tangents) else bar
        if role.kind == "adjoint":
            return bar
        if role.kind == "tangent":
            return marked(i, DOT)
        j = self.label(role.consumer)
        if role.kind == "partial":
            return f"{bar}→{j[1:] if j.startswith('v') else j}"
        if role.kind == "unreduced":
            return f"{bar}→{j[1:] if j.startswith('v') else j} before Σ"
        if role.kind == "local":
            return f"∂{j}/∂{i}"
        return None

    # -- backprop ----------------------------------------------------------------------
    def annotate_backprop(self, trace) -> None:
        reverse = isinstance(trace, ReverseTrace)
        mark = BAR if reverse else DOT
        extra = {}
        for step in trace.steps:
            value = step.adjoint if reverse else step.tangent
            extra[step.node] = (
                f"{marked(self.label(step.node), mark)} = {preview(value, self.decimals)}"
            )
        self.items = [
            Item(
                i.id,
                i.kind,
                i.lines + ((extra[i.node],) if i.node in extra else ()),
                i.node,
                i.cluster,
            )
            for i in self.items
        ]


def _latex(label: str) -> str:
    """A label as an opaque LaTeX argument (latex_to_text gives it back unchanged)."""
    escaped = "".join("\\" + c if c in "\\{}_^" else c for c in label)
    return "{" + escaped + "}"


def _op_word(node: Node) -> str:
    return node.op.symbol or node.op.name


def preview(value: Any, decimals: int = 3) -> str:
    """A value in a box: a scalar with a few digits; a tensor by its shape with the first
    entries."""
    if isinstance(value, tuple):
        return "(" + ", ".join(preview(v, decimals) for v in value) + ")"
    array = np.asarray(value)
    if array.ndim == 0:
        return format_number(array, decimals)
    if array.size <= 4:
        return format_value(array, decimals)
    first = ", ".join(format_number(x, decimals) for x in array.ravel()[:3])
    shape = "×".join(map(str, array.shape))
    return f"{shape} [{first}, …]"
