"""Opening collapsed boxes: a summarised (or scope-collapsed, or folded) scene with some of its
boxes shown as what they stand for, and everything else as it was.

Whatever made a box (a collapsed scope, a chain, a band of a summary, a fold of repeated
blocks), the scene's ``ids`` say which nodes it stands for. Opening box B lays the boxes of the
unsummarised scene whose nodes B stands for into a frame of their own (titled like B), and
merges the edges of the unsummarised scene onto what is shown: the rest of the picture stays
collapsed, so that only what was opened is laid out anew. Linear in the size of the graph.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Iterable

from .scene import Item, Scene
from .summary import merge_edges

__all__ = ["collapsed_boxes", "open_boxes", "OPEN_PREFIX", "OPEN_LIMIT"]

#: The cluster of an opened box B is ``OPEN_PREFIX + B``: the browser finds it by its title
#: (a click on its title closes it again).
OPEN_PREFIX = "cluster_open_"


#: A box standing for more nodes than this is not opened whole (laying out that many boxes takes
#: Graphviz longer than the layout budget's couple of seconds, and a page carrying every such box
#: opened would be many times its size): it is found by search, and stepped through as it is.
OPEN_LIMIT = 300


def collapsed_boxes(scene: Scene, limit: int = OPEN_LIMIT) -> list[str]:
    """The ids of the boxes of ``scene`` that stand for other nodes, at most ``limit`` of them
    (and so can be opened)."""
    size = Counter(scene.ids.values())
    return [
        i.id
        for i in scene.items
        if i.kind in ("summary", "fold") and i.members and size[i.id] <= limit
    ]


def open_boxes(full: Scene, scene: Scene, opened: Iterable[str]) -> Scene:
    """``scene`` with the boxes ``opened`` shown as the boxes of ``full`` they stand for (each
    in a frame titled like the box); ``full`` is the unsummarised scene that ``scene`` was
    made from. Boxes of ``scene`` that are not collapsed are refused (ValueError)."""
    opened = list(dict.fromkeys(opened))
    by_id = {i.id: i for i in scene.items}
    can = set(collapsed_boxes(scene))
    wrong = [b for b in opened if b not in can]
    if wrong:
        raise ValueError(f"not a collapsed box of this scene: {', '.join(wrong)}")
    if not opened:
        return scene
    shown = set(by_id)
    group_of: dict[str, str] = {}
    inside: dict[str, list[Item]] = {b: [] for b in opened}
    for item in full.items:
        if item.id in shown:
            group_of[item.id] = item.id
            continue
        rep = scene.ids.get(item.node) if item.node is not None else None
        if rep is None:
            continue  # hidden by the summary (a constant), and still hidden
        if rep in inside:
            group_of[item.id] = item.id
            inside[rep].append(item)
        else:
            group_of[item.id] = rep
    clusters = dict(scene.clusters)
    parents = dict(scene.parents)
    items: list[Item] = []
    for item in scene.items:
        if item.id not in inside:
            items.append(item)
            continue
        frame = OPEN_PREFIX + item.id
        clusters[frame] = f"{item.lines[0]} (opened: click this title to close)"
        if item.cluster is not None:
            parents[frame] = item.cluster
        for member in inside[item.id]:
            cluster = member.cluster
            if cluster == item.cluster or cluster is None:
                cluster = frame
            else:
                # the member's own clusters (scopes inside the box) come back, inside the frame
                chain = [cluster]
                while full.parents.get(chain[-1]) not in (None, item.cluster):
                    chain.append(full.parents[chain[-1]])
                for c in chain:
                    clusters.setdefault(c, full.clusters.get(c, c))
                for child, parent in zip(chain, chain[1:]):
                    parents[child] = parent
                parents[chain[-1]] = frame
            items.append(dataclasses.replace(member, cluster=cluster))
    edges = [
        e for e in full.edges if e.tail in group_of and e.head in group_of and e.kind != "anchor"
    ]
    # in the order of scene.ids (nodes hidden by the summary keep their entry)
    ids = {n: group_of.get(full.ids.get(n), box) for n, box in scene.ids.items()}
    names = ", ".join(by_id[b].lines[0] for b in opened)
    note = "; ".join(filter(None, [scene.note, f"opened: {names}"]))
    return Scene(
        scene.view,
        items,
        merge_edges(edges, group_of),
        {c: t for c, t in clusters.items()},
        scene.title,
        note,
        ids,
        scene.trace,
        scene.names,
        scene.legend,
        parents,
    )
