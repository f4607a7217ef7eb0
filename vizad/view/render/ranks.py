"""The ranks (columns, left to right) that Graphviz's ``dot`` places a scene's boxes in, as
estimated without laying it out: what the layout budget (:mod:`vizad.view.render.budget`) and the
legibility of a picture (:mod:`vizad.view.render.legibility`) are predicted from."""

from __future__ import annotations

from collections import defaultdict, deque

from vizad.view.render.scene import Scene

__all__ = ["dot_ranks"]


def dot_ranks(scene: Scene) -> tuple[dict[str, int], int]:
    """(box id → its rank, the ranks an edge's span counts for): each box one rank after its
    latest input, a box without inputs just before its first consumer; with labelled edges,
    dot puts each label on a rank of its own (every edge spans twice the ranks: 2, else 1).
    Linear in the size of the scene; no recursion."""
    ids = [i.id for i in scene.items]
    succ: dict[str, list[str]] = defaultdict(list)
    indegree = dict.fromkeys(ids, 0)
    edges = [e for e in scene.edges if e.tail in indegree and e.head in indegree]
    for e in edges:
        succ[e.tail].append(e.head)
        indegree[e.head] += 1
    rank = dict.fromkeys(ids, 0)
    ready = deque(i for i in ids if indegree[i] == 0)
    left = dict(indegree)
    while ready:  # Kahn's order: one pass
        i = ready.popleft()
        for j in succ[i]:
            rank[j] = max(rank[j], rank[i] + 1)
            left[j] -= 1
            if left[j] == 0:
                ready.append(j)
    for i in ids:  # a box without inputs sits just before its first consumer
        if indegree[i] == 0 and succ[i]:
            rank[i] = min(rank[j] for j in succ[i]) - 1
    return rank, 2 if any(e.label for e in edges) else 1
