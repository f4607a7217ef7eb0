"""The layout budget: predict what laying a scene out costs, and choose what to lay out.

Graphviz's ``dot`` spends most of its time on long edges: an edge spanning k ranks becomes a
chain of k - 1 helper ("virtual") nodes, and network simplex places them all. The weight-shared
recurrence (an unrolled RNN) is the worst case: each weight's adjoint sum receives an edge from
every level of the chain, and 45 levels give ~30,000 helper nodes (dot: minutes). So the
prediction counts boxes, edges, ranks and the helper nodes of long edges, with constants
measured on this machine, and a scene is laid out by the first rung of a ladder that fits the
budget (about two seconds):

    full      the scene as it is;
    bounded   the same scene with Graphviz's iteration limits (nslimit, mclimit, searchsize)
              and straight edges, written into the DOT itself, so that the ``dot`` program and
              the browser's Graphviz (WebAssembly) both obey them;
    folded    repeated blocks drawn once (collapse="repeats"; see :func:`folded`);
    summary   the summary of :mod:`vizad.view.render.summary` (chains and bands of depth).

The choice depends on the graph, never on the machine's load, so that an instructor on a quiet
laptop and students on busy ones see the same picture: a layout is stopped after
kill_after(budget) seconds of *CPU* time (what ``dot`` computes, whatever else runs beside it;
a much longer wall-clock time only guards against a stalled process), and a layout that is
stopped all the same (a wrong guess, a far slower machine) falls back to the rung the
prediction chooses for a machine SLOW_MACHINE times slower (:func:`lay_out`), not simply the
next one. The rung a scene was laid out with is remembered per graph (:func:`scene_key`), so a
re-run shows the same picture. Each rung but the full one says in the picture what was done.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from vizad.errors import LayoutTimeoutError
from vizad.view.render.opening import OPEN_PREFIX
from vizad.view.render.ranks import dot_ranks
from vizad.view.render.scene import Scene
from vizad.view.render.summary import SUMMARY_BOXES, fold_repeats, summarize

__all__ = [
    "LAYOUT_BUDGET",
    "BOUNDED",
    "MARGIN",
    "LayoutCost",
    "layout_cost",
    "predicted",
    "bounded",
    "folded",
    "summarised",
    "ladder",
    "planned",
    "lay_out",
    "kill_after",
    "wall_after",
    "scene_key",
    "RUNGS",
]

#: Seconds a layout may take: nothing vizad draws, steps or exports by default waits longer
#: for one layout (predicted; a run that passes kill_after(budget) is stopped).
LAYOUT_BUDGET = 2.0

#: A layout predicted to fit the budget is stopped after this many times the budget (a
#: prediction is a fit, and the machine may be busy): then the next rung is laid out.
KILL_FACTOR = 2.0

#: A layout is stopped after kill_after(budget) seconds of CPU time; its wall-clock time is
#: bounded too, at this many times that (a process that does not compute, a machine so busy
#: that dot hardly runs), so that the load of the machine does not decide the picture.
WALL_FACTOR = 5.0

#: A layout stopped all the same falls back to the rung the prediction chooses on a machine
#: this many times slower than the one calibrated (the same rung on every machine).
SLOW_MACHINE = 4.0

#: The rungs of the ladder, from the most faithful to the cheapest.
RUNGS = ("full", "bounded", "folded", "summary")

#: scene_key → (the rung its scene was laid out with, the rungs stopped before it), in this
#: process: a re-run shows the same picture, saying the same.
_CHOSEN: dict[str, tuple[str, tuple[str, ...]]] = {}

#: The graph attributes of a bounded layout. nslimit/nslimit1 bound the network simplex
#: passes (x positions of the boxes and of long edges' helper nodes, and the ranking) to that
#: many iterations per node, mclimit the passes that reduce crossings, searchsize the edges
#: each pass looks at, remincross=false skips the second crossing pass over clusters;
#: splines=line draws straight edges (curves around helper nodes are most of what is left).
BOUNDED = {
    "nslimit": "0.1",
    "nslimit1": "0.1",
    "mclimit": "0.1",
    "searchsize": "5",
    "splines": "line",
    "remincross": "false",
}

# Calibration: predicted CPU seconds of dot = c + per_part × (boxes + edges)
# + k × (nodes / 1000) ** p, where nodes = boxes + helper nodes of long edges, times _FLAT for
# a scene without clusters. Fitted by
#     python bench/layout.py --calibrate
# (2026-12-01 ~19:50 UTC, Graphviz dot 2.43.0, x86_64, 2 cores shared, load average 11:
# hence CPU time, the least of 3 runs) to dot's times on the weight-shared chain (4 to 80
# levels, three views), random graphs of 50 to 1,000 boxes, the MLP, the HVP and the
# lecture's graph; times under 0.1 s left out. The fit is within about 25 % of every time it
# was fitted to, the smallest ones (~0.1 s) within 50 %.
_FULL = (0.0, 1.69e-05, 0.0296, 2.9)
_BOUNDED = (0.0, 0.000185, 0.00137, 1.8)
#: The factor of a scene without clusters (full, bounded).
_FLAT = (2.47, 2.4)
#: A rung is chosen when MARGIN times its prediction fits the budget: the fit's error, and
#: network simplex's erratic times on graphs between those it was fitted to.
MARGIN = 1.5


@dataclass(frozen=True)
class LayoutCost:
    """What makes a scene expensive to lay out, and the seconds predicted for it."""

    boxes: int
    edges: int
    #: Ranks (columns, left to right) that ``dot`` places the boxes in, as estimated here.
    ranks: int
    #: Edges that span more than one rank, and the helper nodes dot makes for them.
    long_edges: int
    helpers: int
    #: Whether the scene has no clusters: measured, dot then takes about 2.4 times as long
    #: for the same nodes (the helper nodes of long edges spread over the whole picture,
    #: not inside one cluster's box).
    flat: bool = False

    @property
    def nodes(self) -> int:
        """What network simplex places: the boxes and the helper nodes of long edges."""
        return self.boxes + self.helpers

    def seconds(self, bounded: bool = False) -> float:
        """The predicted seconds of ``dot`` on the scene, in full or with BOUNDED."""
        c, per_part, k, p = _BOUNDED if bounded else _FULL
        seconds = c + per_part * (self.boxes + self.edges) + k * (self.nodes / 1000) ** p
        return seconds * (_FLAT[bounded] if self.flat else 1.0)


def layout_cost(scene: Scene) -> LayoutCost:
    """The boxes, edges, ranks and long edges of ``scene`` as ``dot`` ranks it
    (:func:`~vizad.view.render.ranks.dot_ranks`). Linear in the size of the scene.

    Examples:
        >>> from vizad.view import render
        >>> cost = render.layout_cost(render.build_scene(vz.examples.lecture(), "forward"))
        >>> cost
        LayoutCost(boxes=7, edges=8, ranks=4, long_edges=1, helpers=1, flat=True)
    """
    rank, scale = dot_ranks(scene)
    edges = [e for e in scene.edges if e.tail in rank and e.head in rank]
    spans = [scale * (rank[e.head] - rank[e.tail]) for e in edges if e.tail != e.head]
    return LayoutCost(
        boxes=len(rank),
        edges=len(edges),
        ranks=scale * (max(rank.values(), default=0) - min(rank.values(), default=0)) + 1,
        long_edges=sum(1 for s in spans if s > 1),
        helpers=sum(abs(s) - 1 for s in spans if abs(s) > 1),
        flat=not scene.clusters,
    )


def predicted(scene: Scene) -> float:
    """The predicted seconds of laying ``scene`` out as it says (bounded or not)."""
    return layout_cost(scene).seconds(bounded=bool(scene.layout))


def bounded(scene: Scene) -> Scene:
    """``scene`` laid out with Graphviz's iteration limits (BOUNDED), the picture saying so."""
    note = "laid out with bounded effort to fit the time budget (boxes may sit off their places)"
    return _with(scene, note, layout={**scene.layout, **BOUNDED})


def folded(scene: Scene, budget: float = LAYOUT_BUDGET) -> Scene | None:
    """``scene`` with its runs of repeated blocks drawn once each ("× k",
    :mod:`vizad.view.render.folding`), bounded too if even that is predicted over ``budget``; None
    when nothing repeats (or the scene is folded already)."""
    if scene.folds:
        return None
    made = fold_repeats(scene)
    if len(made.items) >= len(scene.items):
        return None
    if MARGIN * predicted(made) > budget:
        made = bounded(made)
    return made


def summarised(scene: Scene, budget: float) -> Scene:
    """The summary of ``scene`` (at most SUMMARY_BOXES boxes), bounded too if even that is
    predicted over ``budget``."""
    summary = summarize(scene, SUMMARY_BOXES)
    if summary is scene:  # few boxes, yet slow: the bounded layout is all there is left
        return bounded(scene)
    summary = _with(summary, "summarised to fit the time budget")
    if MARGIN * predicted(summary) > budget:
        summary = bounded(summary)
    return summary


def ladder(scene: Scene, budget: float = LAYOUT_BUDGET) -> Iterator[tuple[str, Scene]]:
    """The rungs (name, scene) to lay ``scene`` out with: the first is the full scene if it is
    predicted to fit ``budget`` seconds, else the first cheaper rung predicted to fit; the
    next ones are each cheaper (what :func:`lay_out` falls back to). A rung fits when MARGIN
    times its predicted seconds do."""
    rungs: list[tuple[str, Callable[[], Scene | None]]] = [
        ("full", lambda: scene),
        ("bounded", lambda: bounded(scene)),
        ("folded", lambda: folded(scene, budget)),
        ("summary", lambda: summarised(scene, budget)),
    ]
    if any(c.startswith(OPEN_PREFIX) for c in scene.clusters):
        rungs = rungs[:2]  # boxes a person opened are shown opened: bounded at most
    chosen = False
    for k, (name, make) in enumerate(rungs):
        made = make()
        if made is None:
            continue
        if chosen or k == len(rungs) - 1 or MARGIN * predicted(made) <= budget:
            chosen = True
            yield name, made


def planned(scene: Scene, budget: float | None = LAYOUT_BUDGET) -> Scene:
    """The scene to lay out ``scene`` with (the first rung of its ladder; ``scene`` itself
    when ``budget`` is None)."""
    if budget is None:
        return scene
    return next(ladder(scene, budget))[1]


def kill_after(budget: float) -> float:
    """CPU seconds after which a layout planned for ``budget`` is stopped."""
    return KILL_FACTOR * budget


def wall_after(cpu: float) -> float:
    """Wall-clock seconds after which a layout allowed ``cpu`` CPU seconds is stopped."""
    return WALL_FACTOR * cpu


def scene_key(scene: Scene, budget: float) -> str:
    """A deterministic key of ``scene`` (its title, view, boxes, edges, folds and layout
    attributes) and ``budget``: what the rung chosen for it is remembered by."""
    digest = hashlib.sha256()
    parts = [scene.title, scene.view, repr(budget), repr(sorted(scene.layout.items()))]
    parts += [f"{i.id}:{i.kind}:{i.cluster}" for i in scene.items]
    parts += [f"{e.tail}>{e.head}:{e.kind}" for e in scene.edges]
    parts += sorted(scene.folds)
    for part in parts:
        digest.update(part.encode())
        digest.update(b"\0")
    return digest.hexdigest()


def _slow_rung(scene: Scene, budget: float, stopped: str) -> str:
    """The rung to fall back to when ``stopped`` ran long: the one the prediction chooses on a
    machine SLOW_MACHINE times slower, or the next one after ``stopped`` if that is the same
    or a costlier one."""
    slow = next(ladder(scene, budget / SLOW_MACHINE))[0]
    return RUNGS[max(RUNGS.index(slow), RUNGS.index(stopped) + 1)]


def lay_out(scene: Scene, run: Callable[[Scene, float], object], budget: float | None):
    """(the scene laid out, what ``run(scene, cpu)`` returned for it). The first rung of
    ``scene``'s ladder (or the rung ``scene`` was laid out with before, in this process) is
    laid out, allowed kill_after(budget) CPU seconds; a run that takes longer (``run`` raises
    LayoutTimeoutError) is stopped, and the rung chosen for a slower machine
    (:func:`_slow_rung`) is laid out instead, its picture saying so. When the last rung runs
    long too, LayoutTimeoutError. ``budget`` None: ``scene`` in full, ``run`` given no time
    limit (it uses its own)."""
    if budget is None:
        return scene, run(scene, None)
    key = scene_key(scene, budget)
    target, before = _CHOSEN.get(key, (RUNGS[0], ()))
    tried: list[str] = list(before)
    for name, rung in ladder(scene, budget):
        if RUNGS.index(name) < RUNGS.index(target):
            continue
        if tried:
            which = " and ".join(tried)
            layouts = "layouts were" if len(tried) > 1 else "layout was"
            rung = _with(
                rung,
                f"the {which} {layouts} stopped after {kill_after(budget):g} s",
            )
        try:
            laid = run(rung, kill_after(budget))
        except LayoutTimeoutError:
            tried.append(name)
            if name != RUNGS[-1]:
                target = _slow_rung(scene, budget, name)
            continue
        _CHOSEN[key] = (name, tuple(tried))
        return rung, laid
    raise LayoutTimeoutError(
        f"Graphviz's dot was stopped after {kill_after(budget):g} s on each layout of "
        f"{scene.title} it was given ({', '.join(tried)}); the machine may be busy: try again, "
        "or give a smaller max_boxes= (a smaller summary)"
    )


def _with(scene: Scene, note: str, **changes) -> Scene:
    """``scene`` with ``note`` added to what its picture says."""
    return dataclasses.replace(scene, note="; ".join(filter(None, [scene.note, note])), **changes)
