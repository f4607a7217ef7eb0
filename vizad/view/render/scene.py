"""What a drawing shows, as data: boxes and edges, named by one :class:`~vizad.trace.Names`.

A scene is built once per (target, view) (by :mod:`vizad.view.render.scene_builder`); drawings,
laid-out SVGs and the stepper all read it. Every box's first line is its name in the lecture's
notation (v₄, v̄₃→₅, ∂v₅/∂v₂, v̇₃), unique in the scene; item ids ("v4", "a17", "c2") are only
CSS/DOM ids, never shown. How a value reads in a box (:func:`value_parts`, :func:`preview`) is
here too: the stepper's tooltips and panels write values the same way.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from vizad.engine.node import Node
from vizad.trace.text import format_number, format_value
from vizad.engine.tree import Unrecorded
from vizad.trace import Names
from vizad.trace.values import SMALL_VECTOR  # numbers up to it, a heatmap past it

__all__ = ["Item", "Edge", "Scene", "VIEWS", "value_parts", "preview", "fixed", "headed"]

#: The views of a drawing of nodes: the forward graph, and the graph with the extensions
#: (adjoint or tangent nodes) that built the nodes drawn. A trace has its own three views
#: (``trace.views``).
VIEWS = ("forward", "adjoint", "tangent")

#: Longer lines are cut (with "…") in a drawing, so that a box never spans the picture.
MAX_LINE = 48


@dataclass(frozen=True)
class Item:
    """One box: its DOM id, kind (variable, forward, constant, adjoint, tangent, zero,
    summary, fold), its text, and the node it stands for.

    The text (``lines`` and ``heatmaps``) is made on first use, by ``text``: a summary of a
    large graph collapses most boxes, and never formats those (:func:`fixed` wraps text
    already made)."""

    id: str
    kind: str
    #: Makes the box's (lines, heatmaps): its lines of plain text (the first one, its name,
    #: bold), and the tensors drawn as heatmaps under the text as (caption, array) pairs (the
    #: caption, the tensor's name or "" for the box's own value, is written over the heatmap).
    text: Callable[[], tuple[tuple[str, ...], tuple]] = field(repr=False, compare=False)
    node: Node | None = None
    cluster: str | None = None
    #: For summary boxes: the nodes it stands for.
    members: tuple[Node, ...] = ()
    #: The vz.scope() path the box belongs to (an extension node: that of the forward node it
    #: is about).
    scope: tuple[str, ...] = ()
    #: Makes the box's name alone (its first line), for a summary naming the ends of a chain
    #: it collapses; None: the first of ``lines``.
    head: Callable[[], str] | None = field(default=None, repr=False, compare=False)

    @cached_property
    def _body(self) -> tuple[tuple[str, ...], tuple]:
        lines, heatmaps = self.text()
        made = tuple(lines), tuple(heatmaps)
        # what made the text holds the scene builder, and so every box of the unsummarised
        # scene: a box kept by a summary lets go of it once written (the text is the same)
        object.__setattr__(self, "text", fixed(*made))
        object.__setattr__(self, "head", None)
        return made

    def moved(self, cluster: str | None) -> Item:
        """This box in ``cluster`` (``dataclasses.replace(item, cluster=cluster)``), with the
        text already made: its fields copied, not made again (opening boxes moves thousands)."""
        made = object.__new__(type(self))
        made.__dict__.update(self.__dict__)
        object.__setattr__(made, "cluster", cluster)
        return made

    @property
    def lines(self) -> tuple[str, ...]:
        """The box's lines of plain text (the first one, its name, bold)."""
        return self._body[0]

    @property
    def heatmaps(self) -> tuple[tuple[str, np.ndarray], ...]:
        """Tensors drawn as heatmaps under the text: (caption, array) pairs."""
        return self._body[1]

    @cached_property
    def name(self) -> str:
        """The box's name (its first line), unique in its scene."""
        return self.lines[0] if self.head is None or "_body" in self.__dict__ else self.head()


def fixed(lines, heatmaps=()) -> Callable[[], tuple[tuple[str, ...], tuple]]:
    """An :class:`Item`'s ``text`` when it is already made."""
    made = (tuple(lines), tuple(heatmaps))
    return lambda: made


@dataclass(frozen=True)
class Edge:
    """An edge from an input to its consumer: forward, extension, reads (a node of the
    extension reading a forward value; laid out, drawn only with ``reads=True``), zero (from a
    zero tangent that was not built) or summary."""

    id: str
    tail: str
    head: str
    kind: str
    #: A short text on the edge: the local partial ∂vⱼ/∂vᵢ, or for summary edges how many
    #: edges they stand for ("×12").
    label: str = ""


@dataclass
class Scene:
    """What a drawing of one view shows, before any layout: its boxes (``items``), ``edges``
    and ``clusters`` (scopes), its ``title`` and ``note``; made by :func:`build_scene`, drawn
    by :func:`drawing_of` and laid out by :class:`Layout`.

    Examples:
        >>> from vizad.view import render
        >>> scene = render.build_scene(vz.examples.lecture(), "forward")
        >>> type(scene).__name__, scene.view, len(scene.edges)
        ('Scene', 'forward', 8)
    """

    view: str
    items: list[Item]
    edges: list[Edge]
    #: Cluster id → label, in drawing order.
    clusters: dict[str, str]
    title: str
    #: What was collapsed or folded ("" when nothing was).
    note: str = ""
    #: Node → item id, for every node drawn (folded nodes map to the box they are folded
    #: into, summarised nodes to their summary box).
    ids: dict[Node, str] = field(default_factory=dict)
    trace: Any = None
    names: Names | None = None
    #: Whether the drawing carries a legend of the step states (drawings of traces).
    legend: bool = False
    #: Cluster id → the cluster it is drawn in (scopes nest), for clusters inside another.
    parents: dict[str, str] = field(default_factory=dict)
    #: Graph attributes that bound the layout (nslimit, …: see :mod:`vizad.view.render.budget`),
    #: written into the DOT so that every Graphviz obeys them; empty for a full layout.
    layout: dict[str, str] = field(default_factory=dict)
    #: The runs of repeated blocks drawn folded: fold id (its box's id) → its
    #: :class:`~vizad.view.render.folding.Fold` (see ``collapse="repeats"``).
    folds: dict[str, Any] = field(default_factory=dict)


def value_parts(value: Any, decimals: int = 3, caption: str = "") -> tuple[list[str], tuple]:
    """A value in a box: a scalar or small vector as "= numbers"; a tensor as its shape and a
    heatmap (whose scale the drawing writes); a tuple value element by element."""
    if isinstance(value, tuple):
        return ["= " + preview(value, decimals)], ()
    if isinstance(value, Unrecorded):  # a value the engine did not keep: said, not shown
        return [value.reason], ()
    array = np.asarray(value)
    if array.ndim == 0 or (array.ndim == 1 and array.size <= SMALL_VECTOR):
        return ["= " + format_value(array, decimals, SMALL_VECTOR)], ()
    if array.size == 0 or not np.issubdtype(array.dtype, np.number) or np.iscomplexobj(array):
        return ["= " + preview(array, decimals)], ()
    shape = "×".join(map(str, array.shape))
    return [f"{shape}"], ((caption, array),)


def preview(value: Any, decimals: int = 3) -> str:
    """A value as short text: a scalar with a few digits; a tensor by its shape with the first
    entries."""
    if isinstance(value, tuple):
        return "(" + ", ".join(preview(v, decimals) for v in value) + ")"
    if isinstance(value, Unrecorded):
        return value.reason
    array = np.asarray(value)
    if array.ndim == 0:
        return format_number(array, decimals)
    if array.size <= 4:
        return format_value(array, decimals)
    first = ", ".join(format_number(x, decimals) for x in array.ravel()[:3])
    shape = "×".join(map(str, array.shape))
    return f"{shape} [{first}, …]"


def headed(scene: Scene, heading: str | bool | None = None, legend: bool = True) -> Scene:
    """``scene`` with the drawing options' ``heading`` and ``legend``
    (:class:`~vizad.view.render.DrawOptions`): None keeps its title and note; a string is its
    title instead (the note kept); False drops both. ``legend=False`` drops its legend."""
    changes: dict[str, Any] = {}
    if heading is False:
        changes.update(title="", note="")
    elif isinstance(heading, str):
        changes["title"] = heading
    if not legend and scene.legend:
        changes["legend"] = False
    return replace(scene, **changes) if changes else scene
