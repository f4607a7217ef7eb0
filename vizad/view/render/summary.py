"""Readable summaries of large graphs instead of unreadable hairballs.

First chains (each box with one input from the previous box and one consumer) collapse into one
box; if that is not enough, boxes are grouped into bands by depth (the longest path from the
inputs), per cluster. Constants are hidden. The scene's note says what was collapsed. Linear in
the size of the graph.
"""

from __future__ import annotations

import dataclasses
from collections import Counter, defaultdict
from collections.abc import Iterable

from vizad.engine._gc import gc_paused
from vizad.errors import ArgumentError, ArgumentTypeError
from vizad.view.render.scene import Edge, Item, Scene, fixed
from vizad.view.render.folding import PREFIX, REPEATS, fold_box, find_folds, wanted_folds
from vizad.view.render.legibility import readable
from vizad.view.render.scene_builder import build_scene

__all__ = [
    "summarize",
    "collapse_scopes",
    "fold_repeats",
    "collapse_groups",
    "scene_for",
    "legible",
    "merge_edges",
]

#: A summary aims at this many boxes and keeps at most this many edges (the heaviest ones),
#: so that it stays readable and Graphviz lays it out in well under a second.
SUMMARY_BOXES = 24
SUMMARY_EDGES = 120


def scene_for(
    target,
    view: str | None,
    decimals: int,
    *,
    detail: bool = False,
    reads: bool = False,
    collapse=None,
    max_boxes: int = 400,
    frame: tuple[float, float] | None = None,
    full: Scene | None = None,
) -> Scene:
    """What a drawing or a layout shows: the scene of ``target`` in ``view``, its scopes in
    ``collapse`` folded (and its runs of repeated blocks, for ``"repeats"`` or fold ids), and
    summarised if it still has more than ``max_boxes`` boxes. With a reader's ``frame``
    (width, height in CSS px) and no ``collapse`` (None): the first picture whose steps can
    be read in it (:func:`legible`); ``collapse=()``: nothing folded or collapsed, whatever
    the frame. ``full``: that scene unsummarised (:func:`build_scene` of the same arguments),
    when it is already built."""
    with gc_paused():  # many small objects, all alive until summarised (see vizad.engine._gc)
        scene = full or build_scene(target, view, decimals, detail=detail, reads=reads)
        if collapse is None and frame is not None:
            return legible(scene, max_boxes, frame)
        if isinstance(collapse, (list, tuple)) and not collapse:
            return summarize(scene, max_boxes)  # nothing collapsed: asked for, not chosen
        if collapse is not None:
            scopes = collapse
            if wanted_folds(collapse):  # runs first: found on the whole scene, ids stable
                many = not isinstance(collapse, str)
                entries = list(collapse) if many else [collapse]
                folds = [c for c in entries if isinstance(c, str) and c.startswith(PREFIX)]
                folds += [REPEATS] if REPEATS in entries else []
                folds = [c for c in folds if c == REPEATS or c not in _scope_names(scene)]
                scene = fold_repeats(scene, folds)
                scopes = [c for c in entries if c not in folds] or None
            if scopes is not None:
                scene = collapse_scopes(scene, scopes)
        return summarize(scene, max_boxes)


def legible(scene: Scene, max_boxes: int, frame: tuple[float, float]) -> Scene:
    """The first of ``scene`` in full, its repeats folded, its scopes collapsed and its summary
    that is readable in ``frame`` (:func:`~vizad.view.render.legibility.readable`) and, but for
    the summary, fits ``max_boxes``; when none is, the first that fits (the summary if none
    does). The same scene, frame and max_boxes give the same picture."""
    first = None
    for k, make in enumerate(
        (
            lambda: scene,
            lambda: fold_repeats(scene),
            lambda: collapse_scopes(scene, 1) if any(i.scope for i in scene.items) else None,
            lambda: summarize(scene, max_boxes),
        )
    ):
        made = make()
        if made is None or (k and (made is scene or len(made.items) >= len(scene.items))):
            continue  # nothing folded or collapsed: the same picture
        if k < 3 and not fits(made, max_boxes):
            continue  # too many boxes (or too many edges at one box) to lay out in full
        if readable(made, frame):
            return made
        first = first or made
    return first or summarize(scene, max_boxes)


def _scope_names(scene: Scene) -> set[str]:
    """The scope names and paths of ``scene`` (what ``collapse`` may name)."""
    known = {"/".join(i.scope[:k]) for i in scene.items for k in range(1, len(i.scope) + 1)}
    return known | {p.rsplit("/", 1)[-1] for p in known}


#: A box with more edges than this makes Graphviz's ordering of the ranks explode (a sum of
#: one input read 85 times: 171 boxes, one add_n with 84 inputs, 12 s in dot; 60 edges:
#: 0.7 s): a scene with such a box is summarised whatever its number of boxes.
MAX_DEGREE = 60


def max_degree(scene: Scene) -> int:
    """The most edges at one box of ``scene`` (what makes a layout expensive)."""
    degree: Counter = Counter()
    for e in scene.edges:
        degree[e.tail] += 1
        degree[e.head] += 1
    return max(degree.values(), default=0)


def fits(scene: Scene, max_boxes: int) -> bool:
    """Whether ``scene`` has at most ``max_boxes`` boxes and no box with more than MAX_DEGREE
    edges (what Graphviz lays out in well under a few seconds): then it is not summarised."""
    return len(scene.items) <= max_boxes and max_degree(scene) <= MAX_DEGREE


def summarize(scene: Scene, max_boxes: int) -> Scene:
    """``scene`` itself if it :func:`fits` ``max_boxes``, else a summary.

    Examples:
        >>> from vizad.view import render
        >>> scene = render.build_scene(vz.examples.rnn(steps=20), "forward")
        >>> summary = render.summarize(scene, max_boxes=30)
        >>> len(scene.items), len(summary.items) <= 30
        (70, True)
    """
    if fits(scene, max_boxes):
        return scene
    dense = max_degree(scene) > MAX_DEGREE
    if any(i.scope for i in scene.items):  # scopes first: they are the user's own grouping
        scene = collapse_scopes(scene, 1)
        if len(scene.items) <= max_boxes and max_degree(scene) <= MAX_DEGREE:
            return scene
    total = sum(1 for i in scene.items if i.kind != "constant")
    items = [i for i in scene.items if i.kind != "constant"]
    kept = {i.id for i in items}
    edges = [e for e in scene.edges if e.tail in kept and e.head in kept and e.kind != "anchor"]
    items, edges, group_of, chains, collapsed = _collapse_chains(items, edges)
    notes = [scene.note] if scene.note else []
    notes += [f"{total:,} nodes summarised", "constants hidden"]
    if chains:
        notes.append(f"{chains} chains collapsed ({collapsed:,} nodes)")
    if len(items) > max_boxes or (dense and len(items) > SUMMARY_BOXES):
        items, edges, group_of, bands = _bands(
            items, edges, group_of, min(max_boxes, SUMMARY_BOXES)
        )
        notes.append(f"grouped by depth into {bands} bands")
    if len(edges) > SUMMARY_EDGES:
        # a merged edge's label is ×n (how many it stands for); others weigh 1 (their labels,
        # such as the backprop view's ∂vⱼ/∂vᵢ, are not counts)
        weight = {e.id: int(e.label[1:]) if e.label.startswith("×") else 1 for e in edges}
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
        scene.parents,
        {f: fold for f, fold in scene.folds.items() if f in kept},
    )


def collapse_scopes(scene: Scene, collapse: int | str | Iterable[str]) -> Scene:
    """``scene`` with vz.scope() clusters folded into one box each: ``collapse`` is a depth
    (1: every top-level scope) or scope names ("layer1", or a path "model/layer1").

    Examples:
        >>> from vizad.view import render
        >>> trace = vz.examples.mlp(batch=2, features=2, hidden=3, outputs=1)
        >>> scene = render.build_scene(trace, "forward")
        >>> folded = render.collapse_scopes(scene, 1)
        >>> len(scene.items), len(folded.items)
        (12, 5)
    """
    if isinstance(collapse, bool) or not isinstance(collapse, (int, str, list, tuple, set)):
        raise ArgumentTypeError(
            f"collapse must be a depth (int) or scope names, got {type(collapse).__name__}"
        )
    if isinstance(collapse, int):
        if collapse < 1:
            raise ArgumentError(f"collapse: the depth must be at least 1, got {collapse}")
        depth = collapse

        def prefix(path):
            return path[:depth] if len(path) >= depth else None

    else:
        wanted = {collapse} if isinstance(collapse, str) else set(collapse)
        known = _scope_names(scene)
        unknown = sorted(w for w in wanted if w not in known)
        if unknown:
            raise ArgumentError(
                f"collapse: no scope named {', '.join(map(repr, unknown))} in this drawing "
                f"(its scopes: {', '.join(sorted(p for p in known if p)) or 'none'})"
            )

        def prefix(path):
            for k in range(1, len(path) + 1):
                if "/".join(path[:k]) in wanted or path[k - 1] in wanted:
                    return path[:k]
            return None

    groups: dict[tuple, list[Item]] = {}
    cluster_of: dict[tuple, str | None] = {}
    for item in scene.items:
        p = prefix(item.scope) if item.scope else None
        if p is None:
            continue
        cluster = item.cluster  # up from the item's scope cluster to the collapsed scope's
        for _ in range(len(item.scope) - len(p)):
            cluster = scene.parents.get(cluster)
        key = (cluster, p)
        groups.setdefault(key, []).append(item)
        cluster_of[key] = scene.parents.get(cluster)
    boxes = []
    for k, (key, members) in enumerate(groups.items(), start=1):
        word = "forward" if members[0].kind in ("variable", "forward", "constant") else "extension"
        kind = members[0].kind
        word = {"adjoint": "adjoint", "tangent": "tangent"}.get(kind, word)
        title = f"{'/'.join(key[1])}: {len(members)} {word} nodes"
        box = dataclasses.replace(
            _box(f"scope_{k}", members, title), cluster=cluster_of[key], scope=key[1][:-1]
        )
        boxes.append((box, members))
    names = ", ".join(sorted({"/".join(key[1]) for key in groups}))
    return collapse_groups(scene, boxes, f"scopes collapsed: {names}")


def fold_repeats(scene: Scene, collapse=REPEATS) -> Scene:
    """``scene`` with runs of repeated blocks drawn as one stacked box "× k" each
    (:mod:`vizad.view.render.folding`): every run for ``collapse="repeats"``, else the runs whose
    fold ids ``collapse`` names (ArgumentError for a fold id it does not have)."""
    folds = find_folds(scene)
    wanted = {collapse} if isinstance(collapse, str) else set(collapse)
    if REPEATS not in wanted:
        known = {f.id for f in folds}
        unknown = sorted(w for w in wanted if w not in known)
        if unknown:
            raise ArgumentError(
                f"collapse: no run of repeated blocks {', '.join(map(repr, unknown))} in this "
                f"drawing (its folds: {', '.join(sorted(known)) or 'none'})"
            )
        folds = [f for f in folds if f.id in wanted]
    by_id = {i.id: i for i in scene.items}
    boxes = []
    for fold in folds:
        members = [by_id[i] for i in fold.members]
        boxes.append((fold_box(fold, members, scene.parents), members))
    note = ", ".join(f"{f.lines[0].split(':')[0]}" for f in folds)
    folded = collapse_groups(
        scene, boxes, f"repeated steps drawn once per run: {note}" if folds else ""
    )
    folded.folds = {**scene.folds, **{f.id: f for f in folds}}
    return folded


def collapse_groups(scene: Scene, groups: list[tuple[Item, list[Item]]], note: str) -> Scene:
    """``scene`` with each group of boxes drawn as one box: ``groups`` is (box, members) pairs
    (the box placed in its cluster already); edges between groups are merged (labelled ×n),
    clusters left empty are dropped, and ``note`` is added to the scene's note. The one
    mechanism behind collapsed scopes and folded repeats."""
    if not groups:
        return scene
    group_of = {}
    for box, members in groups:
        for m in members:
            group_of[m.id] = box.id
    kept = [i for i in scene.items if i.id not in group_of]
    group_of.update({i.id: i.id for i in kept})
    boxes = [box for box, _ in groups]
    anchors = [e for e in scene.edges if e.kind == "anchor"]
    edges = merge_edges([e for e in scene.edges if e.kind != "anchor"], group_of)
    seen = {(e.tail, e.head) for e in edges}
    for e in anchors:
        tail, head = group_of.get(e.tail, e.tail), group_of.get(e.head, e.head)
        if tail != head and (tail, head) not in seen:
            seen.add((tail, head))
            edges.append(Edge(f"e_{tail}_{head}_a", tail, head, "anchor"))
    order = {i.id: n for n, i in enumerate(scene.items)}
    first = {box.id: min(order[m.id] for m in members) for box, members in groups}
    items = sorted(kept + boxes, key=lambda i: order.get(i.id, first.get(i.id, 0)))
    # the clusters that still hold a box (or hold a cluster that does)
    used: set = set()
    for item in items:
        cluster = item.cluster
        while cluster is not None and cluster not in used:
            used.add(cluster)
            cluster = scene.parents.get(cluster)
    clusters = {c: t for c, t in scene.clusters.items() if c in used}
    return Scene(
        scene.view,
        items,
        edges,
        clusters,
        scene.title,
        "; ".join(filter(None, [scene.note, note])),
        {n: group_of.get(i, i) for n, i in scene.ids.items()},
        scene.trace,
        scene.names,
        scene.legend,
        {c: p for c, p in scene.parents.items() if c in clusters},
        {f: fold for f, fold in scene.folds.items() if f in group_of},
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
                f"chain of {len(chain)}: {chain[0].name} → {chain[-1].name}",
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
    return new_items, merge_edges(edges, group_of), group_of, chains, collapsed


def _links(tail_id: str, head: Item, succ, pred, by_id) -> bool:
    """Whether ``head`` continues a chain from ``tail_id``: one edge between them, nothing
    else in or out, and the same cluster and kind."""
    tail = by_id[tail_id]
    return (
        len(succ[tail_id]) == 1
        and len(pred[head.id]) == 1
        and tail.cluster == head.cluster
        and tail.kind == head.kind
        and head.kind not in ("summary", "fold")
    )


def _box(box_id: str, members: list[Item], title: str) -> Item:
    ops = Counter(_op_name(m) for m in members)
    counts = ", ".join(f"{op} ×{n}" for op, n in ops.most_common(3))
    if len(ops) > 3:
        counts += ", …"
    nodes = tuple(m.node for m in members if m.node is not None) + tuple(
        n for m in members for n in m.members
    )
    return Item(box_id, "summary", fixed((title, counts)), None, members[0].cluster, nodes)


def _short(cluster: str) -> str:
    """``forward`` from ``cluster_forward``, ``extension 2`` from ``cluster_ext2``."""
    word = cluster.replace("cluster_", "")
    return f"extension {word[3:]}" if word.startswith("ext") else word


def _op_name(item: Item) -> str:
    if item.kind == "summary":
        return "chains"
    return item.node.op.name if item.node is not None else item.kind


def merge_edges(edges: list[Edge], group_of: dict[str, str]) -> list[Edge]:
    """``edges`` between the boxes of ``group_of`` (box id → the box shown for it): edges
    inside one box dropped, parallel ones merged into one labelled ×n."""
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
    return boxes, merge_edges(edges, regroup), final, len(boxes)
