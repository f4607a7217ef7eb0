"""Opening collapsed boxes: a summarised (or scope-collapsed, or folded) scene with some of its
boxes shown as what they stand for, and everything else as it was.

Whatever made a box (a collapsed scope, a chain, a band of a summary, a fold of repeated
blocks), the scene's ``ids`` say which nodes it stands for. Opening box B lays the boxes of the
unsummarised scene whose nodes B stands for into a frame of their own (titled like B), and
merges the edges of the unsummarised scene onto what is shown: the rest of the picture stays
collapsed, so that only what was opened is laid out anew. Linear in the size of the graph.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from vizad.view.render.scene import Edge, Item, Scene

__all__ = ["collapsed_boxes", "open_boxes", "BoxOpener", "OPEN_PREFIX", "OPEN_LIMIT"]

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
    return BoxOpener(full, scene).open(opened)


class BoxOpener:
    """:func:`open_boxes` of one scene, for many sets of boxes: what every opening shares
    (which shown box each box of ``full`` is drawn in, the edges between the shown boxes
    merged) is made once, and each opening redoes only the boxes and edges of what it opens,
    so that a page carrying 64 boxes opened does not rebuild the whole picture 64 times."""

    def __init__(self, full: Scene, scene: Scene):
        self.full, self.scene = full, scene
        self._by_id = {i.id: i for i in scene.items}
        self._can = set(collapsed_boxes(scene))
        shown = self._by_id
        # box of full → the shown box it is drawn in; a collapsed box → its boxes of full
        group: dict[str, str] = {}
        self._inside: dict[str, list[Item]] = {}
        for item in full.items:
            if item.id in shown:
                group[item.id] = item.id
                continue
            rep = scene.ids.get(item.node) if item.node is not None else None
            if rep is None:
                continue  # hidden by the summary (a constant), and still hidden
            group[item.id] = rep
            self._inside.setdefault(rep, []).append(item)
        self._group = group
        # in the order of scene.ids (nodes hidden by the summary keep their entry)
        self._ids = {n: group.get(full.ids.get(n), box) for n, box in scene.ids.items()}
        # a collapsed box → the nodes drawn in its boxes once it is opened
        self._nodes: dict[str, list] = {}
        for n in scene.ids:
            drawn = full.ids.get(n)
            if drawn in group and group[drawn] != drawn:
                self._nodes.setdefault(group[drawn], []).append(n)
        # the edges between shown boxes, in order, and those touching each collapsed box
        self._edges = [
            e for e in full.edges if e.tail in group and e.head in group and e.kind != "anchor"
        ]
        self._touching: dict[str, list[int]] = {}
        for k, e in enumerate(self._edges):  # an edge moves when an end of it is opened
            for box in {group[x] for x in (e.tail, e.head) if group[x] != x}:
                self._touching.setdefault(box, []).append(k)
        # the edges merged with nothing opened: key → (its first edge's place, count, edge)
        self._merged = _merge_counts(self._edges, range(len(self._edges)), group)
        # the edge drawn for each of them, the shown scene's own where it is equal (an
        # opening redraws the edges that touch no opened box as they were: the same objects)
        shown = {e.id: e for e in scene.edges}
        self._drawn: dict[tuple, Edge] = {}
        for key, (_, n, e, _) in self._merged.items():
            edge = _merged_edge(key, n, e)
            self._drawn[key] = edge if shown.get(edge.id) != edge else shown[edge.id]

    def open(self, opened: Iterable[str]) -> Scene:
        """The scene with the collapsed boxes ``opened`` shown opened (:func:`open_boxes`)."""
        scene, full, by_id = self.scene, self.full, self._by_id
        opened = list(dict.fromkeys(opened))
        wrong = [b for b in opened if b not in self._can]
        if wrong:
            raise ValueError(f"not a collapsed box of this scene: {', '.join(wrong)}")
        if not opened:
            return scene
        inside = {b: self._inside.get(b, []) for b in opened}
        group_of = dict(self._group)
        ids = dict(self._ids)
        for b in opened:
            for member in inside[b]:
                group_of[member.id] = member.id
            for n in self._nodes.get(b, ()):
                ids[n] = full.ids[n]
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
                    # the member's own clusters (scopes inside the box) come back, inside the
                    # frame
                    chain = [cluster]
                    while full.parents.get(chain[-1]) not in (None, item.cluster):
                        chain.append(full.parents[chain[-1]])
                    for c in chain:
                        clusters.setdefault(c, full.clusters.get(c, c))
                    for child, parent in zip(chain, chain[1:]):
                        parents[child] = parent
                    parents[chain[-1]] = frame
                items.append(member.moved(cluster))
        names = ", ".join(by_id[b].lines[0] for b in opened)
        note = "; ".join(filter(None, [scene.note, f"opened: {names}"]))
        return Scene(
            scene.view,
            items,
            self._merged_edges(opened, group_of),
            {c: t for c, t in clusters.items()},
            scene.title,
            note,
            ids,
            scene.trace,
            scene.names,
            scene.legend,
            parents,
        )

    def _merged_edges(self, opened: list[str], group_of: dict[str, str]) -> list[Edge]:
        """merge_edges(the edges between shown boxes, group_of): the merged edges that touch
        no opened box as with nothing opened, those that do merged again, in the order of
        their first edges."""
        changed = sorted({k for b in opened for k in self._touching.get(b, ())})
        keep = set(opened)
        drawn = self._drawn
        merged = [
            (m[0], drawn[key])
            for key, m in self._merged.items()
            if key[0] not in keep and key[1] not in keep
        ]
        again = _merge_counts(self._edges, changed, group_of).values()
        merged += [(k, _merged_edge(key, n, e)) for k, n, e, key in again]
        merged.sort(key=lambda m: m[0])
        return [edge for _, edge in merged]


def _merge_counts(edges: list[Edge], places: Iterable[int], group_of: dict[str, str]) -> dict:
    """For the edges at ``places`` (in order) of ``edges``: (shown tail, shown head) →
    [the place of its first edge, how many, that edge, the key] (edges inside one box
    dropped), what :func:`~vizad.view.render.summary.merge_edges` merges."""
    out: dict[tuple, list] = {}
    for k in places:
        e = edges[k]
        key = (group_of[e.tail], group_of[e.head])
        if key[0] == key[1]:
            continue
        found = out.get(key)
        if found is None:
            out[key] = [k, 1, e, key]
        else:
            found[1] += 1
    return out


def _merged_edge(key: tuple[str, str], n: int, e: Edge) -> Edge:
    """The edge drawn for ``n`` edges between the boxes ``key`` (the first of them ``e``): as
    :func:`~vizad.view.render.summary.merge_edges` draws it."""
    if n == 1 and e.tail == key[0] and e.head == key[1]:
        return e
    return Edge(f"e_{key[0]}_{key[1]}", key[0], key[1], "summary", f"×{n}" if n > 1 else "")
