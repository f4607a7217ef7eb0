"""Readable summaries of large graphs instead of unreadable hairballs.

First chains (each box with one input from the previous box and one consumer) collapse into one
box; if that is not enough, boxes are grouped into bands by depth (the longest path from the
inputs), per cluster. Constants are hidden. The scene's note says what was collapsed. Linear in
the size of the graph.
"""

from __future__ import annotations

from collections import Counter, defaultdict

from .scene import Edge, Item, Scene

__all__ = ["summarize"]

#: A summary aims at this many boxes and keeps at most this many edges (the heaviest ones),
#: so that it stays readable and Graphviz lays it out in well under a second.
SUMMARY_BOXES = 24
SUMMARY_EDGES = 120


def summarize(scene: Scene, max_boxes: int) -> Scene:
    """``scene`` itself if it has at most ``max_boxes`` boxes, else a summary of it."""
    if len(scene.items) <= max_boxes:
        return scene
    total = sum(1 for i in scene.items if i.kind != "constant")
    items = [i for i in scene.items if i.kind != "constant"]
    kept = {i.id for i in items}
    edges = [e for e in scene.edges if e.tail in kept and e.head in kept and e.kind != "anchor"]
    items, edges, group_of, chains, collapsed = _collapse_chains(items, edges)
    notes = [f"{total:,} nodes summarised", "constants hidden"]
    if chains:
        notes.append(f"{chains} chains collapsed ({collapsed:,} nodes)")
    if len(items) > max_boxes:
        items, edges, group_of, bands = _bands(
            items, edges, group_of, min(max_boxes, SUMMARY_BOXES)
        )
        notes.append(f"grouped by depth into {bands} bands")
    if len(edges) > SUMMARY_EDGES:
        weight = {e.id: int(e.label[1:]) if e.label else 1 for e in edges}
        heaviest = set(sorted(edges, key=lambda e: -weight[e.id])[:SUMMARY_EDGES])
        notes.append(f"{len(edges) - SUMMARY_EDGES} lighter connections hidden")
        edges = [e for e in edges if e in heaviest]
    ids = {}
    for node, item_id in scene.ids.items():
        ids[node] = group_of.get(item_id, item_id)
    return Scene(
        scene.view,
        items,
        edges,
        scene.clusters,
        scene.title,
        "; ".join(notes),
        ids,
        scene.trace,
        scene.names,
        scene.legend,
    )


def _graph(items, edges):
    succ, pred = defaultdict(set), defaultdict(set)
    for e in edges:
        if e.tail != e.head:
            succ[e.tail].add(e.head)
            pred[e.head].add(e.tail)
    return succ, pred


def _collapse_chains(items: list[Item], edges: list[Edge]):
    succ, pred = _graph(items, edges)
    by_id = {i.id: i for i in items}
    group_of: dict[str, str] = {}
    chains = collapsed = 0
    new_items: list[Item] = []
    for item in items:
        if item.id in group_of:
            continue
        starts_chain = not (
            len(pred[item.id]) == 1 and _links(next(iter(pred[item.id])), item, succ, pred, by_id)
        )
        if not starts_chain:
            continue
        chain = [item]
        while len(succ[chain[-1].id]) == 1:
            nxt = by_id[next(iter(succ[chain[-1].id]))]
            if not _links(chain[-1].id, nxt, succ, pred, by_id):
                break
            chain.append(nxt)
        if len(chain) >= 3:
            chains += 1
            collapsed += len(chain)
            box = _box(
                f"chain_{chain[0].id}",
                chain,
                f"chain of {len(chain)}: {chain[0].lines[0]} → {chain[-1].lines[0]}",
            )
            new_items.append(box)
            for member in chain:
                group_of[member.id] = box.id
        else:
            for member in chain:
                group_of[member.id] = member.id
            new_items.extend(chain)
    for item in items:  # anything not reached as part of a chain stays as it is
        if item.id not in group_of:
            group_of[item.id] = item.id
            new_items.append(item)
    order = {i.id: k for k, i in enumerate(items)}
    new_items.sort(
        key=lambda i: order[i.id if not i.id.startswith("chain_") else i.id[len("chain_") :]]
    )
    return new_items, _merge_edges(edges, group_of), group_of, chains, collapsed


def _links(tail_id: str, head: Item, succ, pred, by_id) -> bool:
    """Whether ``head`` continues a chain from ``tail_id``: one edge between them, nothing
    else in or out, and the same cluster and kind."""
    tail = by_id[tail_id]
    return (
        len(succ[tail_id]) == 1
        and len(pred[head.id]) == 1
        and tail.cluster == head.cluster
        and tail.kind == head.kind
        and head.kind != "summary"
    )


def _box(box_id: str, members: list[Item], title: str) -> Item:
    ops = Counter(_op_name(m) for m in members)
    counts = ", ".join(f"{op} ×{n}" for op, n in ops.most_common(3))
    if len(ops) > 3:
        counts += ", …"
    nodes = tuple(m.node for m in members if m.node is not None) + tuple(
        n for m in members for n in m.members
    )
    return Item(box_id, "summary", (title, counts), None, members[0].cluster, nodes)


def _short(cluster: str) -> str:
    """``forward`` from ``cluster_forward``, ``extension 2`` from ``cluster_ext2``."""
    word = cluster.replace("cluster_", "")
    return f"extension {word[3:]}" if word.startswith("ext") else word


def _op_name(item: Item) -> str:
    if item.kind == "summary":
        return "chains"
    return item.node.op.name if item.node is not None else item.kind


def _merge_edges(edges: list[Edge], group_of: dict[str, str]) -> list[Edge]:
    counts: Counter = Counter()
    first: dict[tuple, Edge] = {}
    for e in edges:
        key = (group_of[e.tail], group_of[e.head])
        if key[0] == key[1]:
            continue
        counts[key] += 1
        first.setdefault(key, e)
    out = []
    for key, e in first.items():
        n = counts[key]
        if n == 1 and e.tail == key[0] and e.head == key[1]:
            out.append(e)
        else:
            out.append(
                Edge(f"e_{key[0]}_{key[1]}", key[0], key[1], "summary", f"×{n}" if n > 1 else "")
            )
    return out


def _bands(items: list[Item], edges: list[Edge], group_of: dict[str, str], max_boxes: int):
    """Group boxes by depth into bands, per cluster, at most about ``max_boxes`` in all."""
    preds = defaultdict(list)
    for e in edges:
        preds[e.head].append(e.tail)
    depth: dict[str, int] = {}
    for item in items:  # items are in topological order
        depth[item.id] = 1 + max((depth[p] for p in preds[item.id] if p in depth), default=-1)
    clusters = sorted({i.cluster or "" for i in items})
    per_cluster = max(2, max_boxes // len(clusters))
    deepest = max(depth.values()) + 1
    groups: dict[tuple, list[Item]] = defaultdict(list)
    for item in items:
        band = depth[item.id] * per_cluster // deepest
        groups[(item.cluster or "", band)].append(item)
    regroup: dict[str, str] = {}
    boxes = []
    for (cluster, band), members in sorted(
        groups.items(), key=lambda kv: (clusters.index(kv[0][0]), kv[0][1])
    ):
        if len(members) == 1:
            boxes.append(members[0])
            regroup[members[0].id] = members[0].id
            continue
        lo, hi = min(depth[m.id] for m in members), max(depth[m.id] for m in members)
        size = sum(len(m.members) or 1 for m in members)
        box = _box(
            f"band_{cluster.replace('cluster_', '') or 'main'}_{band}",
            members,
            f"{size} nodes at depth {lo}–{hi}" + (f" ({_short(cluster)})" if cluster else ""),
        )
        boxes.append(box)
        for m in members:
            regroup[m.id] = box.id
    final = {k: regroup[v] for k, v in group_of.items()}
    return boxes, _merge_edges(edges, regroup), final, len(boxes)
