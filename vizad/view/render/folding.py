"""Repeated structure found, to be drawn folded: the same sequence of ops applied again (the
time steps of a recurrence, layers of equal shape, the iterations of a training loop, scopes
with equal contents) is a run of k equal blocks, drawn as one stacked box "× k".

``vz.draw(target, view, collapse="repeats")`` folds every run this module finds, in the
forward and in the extended views alike (the adjoint of a repeated block is a repeated block).
Each folded box has a stable id, ``fold_<id of its first box>`` ("fold_v11", "fold_a2"): the
same graph gives the same ids whatever else is folded, because the runs are always found on
the whole scene. A drawing's scene lists its folds (``scene.folds``: id → :class:`Fold`, with
the ids of the boxes it stands for, block by block), and ``collapse`` also takes fold ids, so
that a front end expands one fold by drawing the view again with the others::

    drawing = vz.draw(trace, "adjoint", collapse="repeats")
    layout = vz.render.Layout(trace, "adjoint", collapse="repeats")
    keep = expanded(layout.scene, "fold_a2")   # ["fold_v11"]: every fold but fold_a2
    vz.draw(trace, "adjoint", collapse=keep).source   # the DOT with fold_a2 opened

The stepper's data carries the same for each view (``data["frames"][view]["folds"]``: per fold
id, its number of blocks, the box ids of each block once opened, and ``expand``, the
``collapse=`` of the view with that fold opened), and a step inside a run lights the folded
box (the scene's ``ids`` map every node of the run to it).

How a run is found (:func:`find_folds`), in near-linear time and without recursion:

- Scopes first (the user's own grouping): sibling ``vz.scope`` clusters, one after the other,
  whose contents (their Variables too: a layer's weights) have the same signature form a run
  (two are enough).
- Then the boxes left, in the order their nodes were made (a loop makes its iterations one
  after the other), as a sequence. A box's signature is its kind, op, attributes, shape and
  scope, and for each input either how many places back in the sequence it is (an input of
  the same or the previous block) or, for anything else, only its shape. Block lengths worth
  trying are the most common distances between two boxes of equal signature; for each, one
  linear pass finds the stretches where the sequence repeats itself with that period, and the
  blocks of a stretch are cut where the most of them fit. The first block may read from
  outside what the later ones read from the previous block (h₀ is an input, hₜ is not). A run
  needs at least MIN_REPEATS blocks, each (after the first) reading the one before it.
- Runs do not overlap: the ones covering the most boxes are taken first (ties: the shorter
  block, then the earlier start), so the result is deterministic.

Blocks are counted as the forward computation runs, in every view (:attr:`Fold.at`): reverse
mode makes the adjoint's blocks from the last time step back, and a person reads blocks as time
steps, so v̄₇₃ is in v₇₃'s block (21 of rnn(45)'s 45) in the adjoint's box as in the forward's.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from vizad.engine._gc import gc_paused
from vizad.errors import ArgumentError
from vizad.engine.node import static_shape
from vizad.engine.tree import TupleShape
from vizad.view.render.scene import Item, Scene, fixed

__all__ = [
    "Fold",
    "REPEATS",
    "MIN_REPEATS",
    "find_folds",
    "fold_box",
    "wanted_folds",
    "expanded",
]

#: ``collapse=REPEATS`` folds every run of repeated blocks.
REPEATS = "repeats"
#: A run of blocks found in the sequence of boxes needs this many blocks; a run of sibling
#: scopes (the user's own grouping), two.
MIN_REPEATS = 3
MIN_SCOPE_REPEATS = 2
#: How many block lengths are tried: the most common distances between a box and the last
#: LOOK_BACK boxes equal to it.
MAX_PERIODS = 8
LOOK_BACK = 3
#: The kinds of box a block is made of (variables, constants and summaries stay outside: a
#: block reads them), and the leaves that a block of a scope holds too (a layer's weights).
FOLDABLE = ("forward", "adjoint", "tangent")
#: The kinds of box of an extension: a run holding one is counted by its forward run's blocks.
EXTENSION = ("adjoint", "tangent")
LEAVES = ("variable", "constant")
#: The prefix of a fold's id (a DOM id, like the boxes' own).
PREFIX = "fold_"


@dataclass(frozen=True)
class Fold:
    """A run of equal blocks drawn as one box: its id, the ids of the boxes of each block (in
    the order they were made), the text of its box, and where each box is in the forward
    computation (:func:`forward_order`)."""

    id: str
    blocks: tuple[tuple[str, ...], ...]
    #: Its box's lines: "× 45: v₁₁ … v₁₄₅" and what one block does ("each: mul → add → tanh").
    lines: tuple[str, ...]
    #: Per box of :attr:`members`: the block of the forward computation it is about, 1 …
    #: :attr:`of` (a person reads blocks as time steps: v̄₇₃ is in v₇₃'s block, whichever
    #: order reverse mode made the adjoint's blocks in). Empty: the blocks in the order made.
    at: tuple[int, ...] = ()
    #: How many blocks :attr:`at` counts: the forward run's (0: :attr:`repeats`).
    of: int = 0
    #: False when the blocks have no forward counterpart (a run of extension nodes whose
    #: forward nodes do not repeat): then :attr:`at` counts them in the order they were made.
    ordered: bool = True

    @property
    def repeats(self) -> int:
        """k, the number of blocks."""
        return len(self.blocks)

    @property
    def members(self) -> tuple[str, ...]:
        """The ids of every box the fold stands for."""
        return tuple(i for block in self.blocks for i in block)

    def places(self) -> list[int]:
        """Per box of :attr:`members`: its block, 1 … :attr:`count` (:attr:`at`, else the
        block it was made in)."""
        return list(self.at) or [b for b, block in enumerate(self.blocks, 1) for _ in block]

    @property
    def count(self) -> int:
        """How many blocks :meth:`places` counts."""
        return self.of or self.repeats


def wanted_folds(collapse) -> bool:
    """Whether ``collapse`` (vz.draw's argument) asks for folds: REPEATS, or names among
    which one is REPEATS or a fold's id."""
    if isinstance(collapse, str):
        return collapse == REPEATS or collapse.startswith(PREFIX)
    if isinstance(collapse, (list, tuple, set, frozenset)):
        return any(isinstance(c, str) and (c == REPEATS or c.startswith(PREFIX)) for c in collapse)
    return False


def expanded(scene: Scene, fold_id: str) -> list[str]:
    """The ``collapse=`` that draws ``scene``'s view again with ``fold_id`` opened and its
    other folds kept (ArgumentError naming the folds when ``scene`` has no such fold)."""
    if fold_id not in scene.folds:
        known = ", ".join(sorted(scene.folds)) or "none"
        raise ArgumentError(f"no fold {fold_id!r} in this drawing (its folds: {known})")
    return sorted(f for f in scene.folds if f != fold_id)


@gc_paused()  # many small tuples, all alive until the runs are found (see vizad.engine._gc)
def find_folds(scene: Scene) -> list[Fold]:
    """Every run of repeated blocks in ``scene``, in the order of their first box."""
    order = {item.id: k for k, item in enumerate(scene.items)}
    boxes = [i for i in scene.items if i.node is not None and i.kind in FOLDABLE + LEAVES]
    boxes.sort(key=lambda i: i.node.id)
    by_id = {i.id: i for i in scene.items}
    shapes = _Shapes(scene)
    runs = _scope_runs(scene, [i for i in boxes if i.kind in FOLDABLE or i.scope], shapes)
    taken = {i for run in runs for block in run for i in block}
    rest = [i for i in boxes if i.id not in taken and i.kind in FOLDABLE]
    runs += _sequence_runs(scene, rest, shapes)
    runs.sort(key=lambda run: order[run[0][0]])
    return _in_forward_order(scene, [_fold(run, by_id) for run in runs], by_id)


def fold_box(fold: Fold, members: list[Item], parents: dict[str, str]) -> Item:
    """The box of ``fold`` (kind "fold", drawn stacked): in the deepest cluster holding all its
    members, in their common scope."""
    nodes = tuple(m.node for m in members if m.node is not None)
    scope = members[0].scope
    for m in members[1:]:
        k = 0
        while k < min(len(scope), len(m.scope)) and scope[k] == m.scope[k]:
            k += 1
        scope = scope[:k]
    return Item(
        fold.id,
        "fold",
        fixed(fold.lines),
        None,
        _common_cluster([m.cluster for m in members], parents),
        nodes,
        scope,
    )


# -- the signatures of boxes ---------------------------------------------------------------
class _Shapes:
    """The shape of a node as a drawing knows it: its value's, else its static shape."""

    def __init__(self, scene: Scene):
        self.values = scene.trace.values if scene.trace is not None else {}
        self.known: dict = {}

    def __call__(self, node) -> Any:
        shape = self.known.get(node, self)
        if shape is self:
            shape = self.known[node] = self._shape(node)
        return shape

    def _shape(self, node) -> Any:
        if node in self.values:
            value = self.values[node]
            if isinstance(value, tuple):
                return ("tuple", len(value))
            return np.shape(value)
        shape = static_shape(node)
        return ("tuple", len(shape)) if isinstance(shape, TupleShape) else shape


def _attrs_key(attrs) -> tuple:
    out = []
    for key in sorted(attrs):
        value = attrs[key]
        if isinstance(value, np.ndarray):
            value = ("array", value.shape, str(value.dtype), value.tobytes())
        else:
            value = repr(value)
        out.append((key, value))
    return tuple(out)


def _own(item: Item, shapes: _Shapes, scope: tuple = ()) -> tuple:
    """What a box is, apart from where its inputs come from (``scope``: the part of its scope
    path that counts)."""
    node = item.node
    attrs = node.attrs
    if node.op.wiring_attrs:  # compared with the inputs (_wiring)
        attrs = {k: v for k, v in attrs.items() if k not in node.op.wiring_attrs}
    return (
        item.kind,
        node.op.name,
        _attrs_key(attrs),
        shapes(node),
        scope,
        len(_wiring(node)),
    )


def _wiring(node) -> list[tuple]:
    """Each argument of ``node``: (its input node, which output of it is read), or None for an
    argument that is no node (a constant an engine recorded no node for, such as h₀)."""
    places = node.op.places(node.attrs)
    if places is None:
        return [(x, None) for x in node.inputs]
    wired: list = [None] * max((p + 1 for p, _ in places), default=0)
    wired += [None] * max(0, node.attrs.get("arity", 0) - len(wired))
    for x, (p, read) in zip(node.inputs, places):
        wired[p] = (x, read)
    return wired


#: An argument that is no node: it fits a first block's read from outside (_fits_first).
MISSING = ("missing",)


# -- runs of sibling scopes ----------------------------------------------------------------
def _root(cluster: str | None, parents: dict[str, str]) -> str | None:
    """The cluster of the graph a box belongs to (forward graph, an extension, or None) from
    the scope cluster it is drawn in."""
    while cluster is not None and cluster.startswith("cluster_s"):
        cluster = parents.get(cluster)
    return cluster


def _scope_runs(scene: Scene, boxes: list[Item], shapes: _Shapes) -> list[list[list[str]]]:
    """Runs of sibling scopes with equal contents, shallowest scopes first."""
    groups: dict[tuple, list[Item]] = {}
    for item in boxes:  # in the order the nodes were made
        root = _root(item.cluster, scene.parents)
        for depth in range(1, len(item.scope) + 1):
            groups.setdefault((root, item.scope[:depth]), []).append(item)
    siblings: dict[tuple, list[tuple]] = {}
    for key in groups:  # first appearance order
        root, path = key
        siblings.setdefault((root, path[:-1], len(path)), []).append(key)
    runs: list[list[list[str]]] = []
    taken: set[str] = set()
    for (_, _, depth), keys in sorted(siblings.items(), key=lambda kv: kv[0][2]):
        blocks = [[i for i in groups[key] if i.id not in taken] for key in keys]
        signatures = []
        for k, block in enumerate(blocks):
            previous = blocks[k - 1] if k else []
            signatures.append(_block_signature(scene, block, previous, shapes, depth))
        s = 0
        while s < len(blocks):
            e = s + 1
            # the first scope may read from outside what later ones read from the one before
            if blocks[s] and e < len(blocks) and _fits_first(signatures[s], signatures[e]):
                e += 1
                while e < len(blocks) and signatures[e] == signatures[s + 1]:
                    e += 1
            if e - s >= MIN_SCOPE_REPEATS and all(blocks[s:e]):
                runs.append([[i.id for i in b] for b in blocks[s:e]])
                taken.update(i.id for b in blocks[s:e] for i in b)
            s = e
    return runs


def _block_signature(scene, block: list[Item], previous: list[Item], shapes, depth) -> tuple:
    """A block's boxes (kind, op, attributes, shape, scope below the block's own), each input
    as ("in", its place in the block, the output read), ("prev", its place in the previous
    block, its shape, the output read) or ("out", its shape)."""
    here = {item.id: k for k, item in enumerate(block)}
    before = {item.id: k for k, item in enumerate(previous)}
    out = []
    for item in block:
        inputs = []
        for arg in _wiring(item.node):
            if arg is None:
                inputs.append(MISSING)
                continue
            x, read = arg
            key = scene.ids.get(x, "")
            if key in here:
                inputs.append(("in", here[key], read))
            elif key in before:
                inputs.append(("prev", before[key], shapes(x), read))
            else:
                inputs.append(("out", shapes(x)))
        out.append((_own(item, shapes, item.scope[depth:]), tuple(inputs)))
    return tuple(out)


def _outside(signature: tuple) -> tuple:
    """``signature`` with its inputs from the previous block read as inputs from outside."""
    return tuple(
        (own, tuple(("out", x[2]) if x[0] == "prev" else x for x in inputs))
        for own, inputs in signature
    )


def _fits_first(first: tuple, second: tuple) -> bool:
    """Whether block signature ``first`` is ``second`` but for reading from outside what
    ``second`` reads from the block before it: an input node of the same shape, or no node
    at all (a constant initial state, h₀ = 0, that the engine recorded no node for)."""
    first, second = _outside(first), _outside(second)
    if len(first) != len(second):
        return False
    for (own, ins), (own2, ins2) in zip(first, second):
        if own != own2 or len(ins) != len(ins2):
            return False
        for x, y in zip(ins, ins2):
            if x != y and not (x == MISSING and y[0] == "out"):
                return False
    return True


# -- runs in the sequence of boxes ---------------------------------------------------------
def _sequence_runs(scene: Scene, seq: list[Item], shapes: _Shapes) -> list[list[list[str]]]:
    n = len(seq)
    if n < MIN_REPEATS:
        return []
    codes: dict = {}  # signatures and shapes as small ints, compared fast

    def code(key) -> int:
        return codes.setdefault(key, len(codes))

    pos = {item.id: k for k, item in enumerate(seq)}
    own = np.array([code(_own(item, shapes, item.scope)) for item in seq], dtype=np.int64)
    # an input: its position in the sequence (>= 0), or -1 - the code of its shape (outside)
    ins = [
        tuple(
            k if isinstance(k, int) else -1 - code(k if k == MISSING else ("out", k))
            for k in _positions(i, scene, pos, shapes)
        )
        for i in seq
    ]
    missing = -1 - code(MISSING)
    outside = [-1 - code(("out", shapes(item.node))) for item in seq]
    reads = [tuple(a[1] if a else None for a in _wiring(item.node)) for item in seq]
    sequence = _Sequence(own, ins, outside, reads, missing)
    candidates = []
    for p in sequence.periods():
        candidates += sequence.runs(p)
    candidates.sort(key=lambda r: (-r[1] * r[2], r[1], r[0]))  # most boxes, short, early
    taken = bytearray(n)
    runs = []
    for start, size, count in candidates:
        end = start + size * count
        if any(taken[start:end]):
            continue
        taken[start:end] = b"\x01" * (end - start)
        runs.append([[seq[start + t * size + j].id for j in range(size)] for t in range(count)])
    return runs


def _positions(item: Item, scene: Scene, pos: dict[str, int], shapes: _Shapes) -> list:
    """Each input of a box: its position in the sequence, or its shape (outside it)."""
    out: list = []
    for arg in _wiring(item.node):
        if arg is None:
            out.append(MISSING)
            continue
        k = pos.get(scene.ids.get(arg[0], ""))
        out.append(k if k is not None else shapes(arg[0]))
    return out


class _Sequence:
    """The boxes in the order they were made: each one's signature (``own``, a code), its
    inputs (positions, or -1 - a shape's code for inputs outside the sequence), the code
    of its own shape as an input from outside, and which output of each input it reads
    (compared for the inputs read by place, not for those read by shape)."""

    def __init__(self, own: np.ndarray, ins: list, outside: list[int], reads: list, missing: int):
        self.own, self.ins, self.outside, self.n = own, ins, outside, len(ins)
        self.reads, self.missing = reads, missing

    def periods(self) -> list[int]:
        """The block lengths worth trying: the commonest distances between boxes with the
        same signature and inputs the same distances back (to each of the last LOOK_BACK)."""
        last: dict = {}
        gaps: Counter = Counter()
        own, ins = self.own.tolist(), self.ins
        for k in range(self.n):
            token = (own[k], tuple(k - x if x >= 0 else x for x in ins[k]))
            seen = last.get(token)
            if seen is None:
                seen = last[token] = []
            for j in seen:  # a box made twice a block: its block is two or three gaps long
                gaps[k - j] += 1
            seen.append(k)
            if len(seen) > LOOK_BACK:
                del seen[0]
        ranked = sorted(gaps.items(), key=lambda pc: (-pc[1], pc[0]))[:MAX_PERIODS]
        return [p for p, count in ranked if count >= MIN_REPEATS - 1]

    def _input(self, k: int, x: int, far: int) -> int:
        """Input ``x`` of box ``k``: how far back (1 … far-1), else -1 - its shape's code."""
        if x >= 0:
            return k - x if 0 < k - x < far else self.outside[x]
        return x

    def _repeats(self, k: int, p: int) -> bool:
        """Whether box ``k + p`` is box ``k`` again (inputs up to two blocks back by distance,
        others by shape)."""
        far, q = 2 * p, k + p
        for i, (x, y) in enumerate(zip(self.ins[k], self.ins[q])):
            here = self._input(k, x, far)
            if here != self._input(q, y, far):
                return False
            if here >= 0 and self.reads[k][i] != self.reads[q][i]:
                return False
        return True

    def runs(self, p: int) -> list[tuple[int, int, int]]:
        """(start, p, blocks) of each run with block length ``p``: a stretch where each box
        equals the one ``p`` places later, cut into blocks where the most fit, with one more
        block in front when it differs only by reading from outside what the others read
        from the block before."""
        n = self.n
        if n <= p:
            return []
        same = self.own[: n - p] == self.own[p:]  # signatures first (numpy), then inputs
        match = bytearray(n - p)
        for k in np.flatnonzero(same).tolist():
            match[k] = self._repeats(k, p)
        runs = []
        k = 0
        while k < n - p:
            if not match[k]:
                k += 1
                continue
            s = k
            while k < n - p and match[k]:
                k += 1
            end = k + p  # boxes s … end-1 repeat with period p
            if end - s < (MIN_REPEATS - 1) * p:
                continue
            best = best_key = None
            for phase in range(p):
                b0 = s + phase
                first, count = b0, (end - b0) // p
                while first - p >= 0 and self._block_equal(first - p, p):
                    first, count = first - p, count + 1  # reads before the stretch: by shape
                if first - p >= 0 and self._loosely_equal(first - p, first, p):
                    first, count = first - p, count + 1
                # ties: cut where the fewest values pass from a block to the next (a loop's
                # carried state, not the middle of a step)
                key = (-count, self._carried(first + p, p))
                if best is None or key < best_key:
                    best, best_key = (first, p, count), key
            if best[2] >= MIN_REPEATS and self._chained(best[0] + p, p):
                runs.append(best)
        return runs or self._block_runs(p, same)

    def _block_runs(self, p: int, same: np.ndarray) -> list[tuple[int, int, int]]:
        """Runs with block length ``p`` found block by block, where :meth:`runs` found none:
        a loop of few steps whose steps each read a value made before the loop (the input
        projection of an LSTM's step t) breaks the stretch that distances find, since those
        reads are near for the first steps and far for the others; :meth:`_block_equal`
        reads them by shape. Tried only at starts where ``p`` signatures in a row repeat."""
        n = self.n
        if n < 2 * p:
            return []
        window = np.convolve(same.astype(np.int64), np.ones(p, dtype=np.int64), "valid")
        starts = set(np.flatnonzero(window == p).tolist())  # signatures repeat from here
        runs: list[tuple[int, int, int]] = []
        covered = 0
        for a in sorted(starts):
            if a < covered:
                continue
            best = best_key = None
            for b in range(a, a + p):  # each phase of a block
                if b not in starts or not self._block_equal(b, p):
                    continue
                last = b + p  # blocks b … last equal, each to the next
                while last + 2 * p <= n and last in starts and self._block_equal(last, p):
                    last += p
                first, count = b, (last - b) // p + 1
                while first - p >= 0 and self._block_equal(first - p, p):
                    first, count = first - p, count + 1
                if first - p >= 0 and self._loosely_equal(first - p, first, p):
                    first, count = first - p, count + 1
                key = (-count, self._carried(first + p, p))
                if best is None or key < best_key:
                    best, best_key = (first, p, count), key
            covered = a + p  # every phase from a tried: each start is tried once
            if best is not None and best[2] >= MIN_REPEATS and self._chained(best[0] + p, p):
                runs.append(best)
                covered = best[0] + best[1] * best[2]
        return runs

    def _block_equal(self, a: int, p: int) -> bool:
        """Whether the block at ``a`` is the block at ``a + p`` again, each reading its own
        block and the one before it at the same places, and anything older by its shape (the
        stretch found by distances misses a block whose reads from before the loop are near,
        such as the per-step slices of an input projection computed before the first step)."""
        own, ins, b = self.own, self.ins, a + p
        for j in range(p):
            if own[a + j] != own[b + j]:
                return False
            for i, (x, y) in enumerate(zip(ins[a + j], ins[b + j])):
                here = self._near(x, a, p)
                if here != self._near(y, b, p) or not self._same_read(here, a + j, b + j, i):
                    return False
        return True

    def _same_read(self, place: tuple, a: int, b: int, i: int) -> bool:
        """Whether boxes ``a`` and ``b`` read the same output of their input ``i`` (or read
        it by its shape, ``place`` ("out", …), where which output does not count)."""
        return place[0] == "out" or self.reads[a][i] == self.reads[b][i]

    def _near(self, x: int, start: int, p: int) -> tuple:
        """Input ``x`` of a box of the block at ``start``: ("near", its place from the block's
        start) when in that block or the one before it, else ("out", its shape's code)."""
        if x >= 0:
            return ("near", x - start) if start - p <= x < start + p else ("out", self.outside[x])
        return ("out", x)

    def _loosely_equal(self, a: int, b: int, p: int) -> bool:
        """Whether the block at ``a`` is the block at ``b`` but for reading from outside what
        ``b`` reads from the block before it."""
        own, ins = self.own, self.ins
        for j in range(p):
            if own[a + j] != own[b + j]:
                return False
            for i, (x, y) in enumerate(zip(ins[a + j], ins[b + j])):
                here, there = self._in_block(x, a, j), self._in_block(y, b, j)
                if here == ("out", self.missing) and there[0] == "out":
                    continue  # no node (h₀ = 0) where the later block reads the one before
                if here != there or not self._same_read(here, a + j, b + j, i):
                    return False
        return True

    def _in_block(self, x: int, start: int, j: int) -> tuple:
        """Input ``x`` of the ``j``-th box of the block at ``start``: ("in", its place in the
        block), else ("out", its shape's code)."""
        if x >= 0:
            return ("in", x - start) if start <= x < start + j else ("out", self.outside[x])
        return ("out", x)

    def _carried(self, b: int, p: int) -> int:
        """How many inputs of the block at ``b`` are read from the block before it."""
        return sum(b - p <= x < b for k in range(b, min(b + p, self.n)) for x in self.ins[k])

    def _chained(self, b: int, p: int) -> bool:
        """Whether the block at ``b`` reads something of the block before it."""
        reads = (x for k in range(b, min(b + p, self.n)) for x in self.ins[k])
        return any(b - p <= x < b for x in reads)


# -- the folds -----------------------------------------------------------------------------
def _fold(run: list[list[str]], by_id: dict[str, Item]) -> Fold:
    first, last = by_id[run[0][0]], by_id[run[-1][-1]]
    scopes = [by_id[b[0]].scope for b in run]
    k = len(run)
    if scopes[0] and len({s for s in scopes}) == k:  # a run of scopes: by their names
        kinds = {by_id[i].kind for i in run[0]} - {"forward", *LEAVES}
        word = f" ({'/'.join(sorted(kinds))})" if kinds else ""  # its adjoint: another box
        title = f"× {k}: {'/'.join(scopes[0])} … {'/'.join(scopes[-1])}{word}"
    else:
        title = f"× {k}: {first.name} … {last.name}"
    ops = [_op(by_id[i]) for i in run[0] if by_id[i].kind in FOLDABLE]  # a layer's ops
    each = " → ".join(ops) if len(ops) <= 6 else " → ".join(ops[:5]) + f" … ({len(ops)} ops)"
    return Fold(PREFIX + run[0][0], tuple(tuple(b) for b in run), (title, f"each: {each}"))


def _in_forward_order(scene: Scene, folds: list[Fold], by_id: dict[str, Item]) -> list[Fold]:
    """``folds`` with each box's block in the forward computation (:attr:`Fold.at`), so that
    every view counts the same time step alike. A forward run's blocks are made in that
    order. A box of an extension run is in the block of the forward node whose step computes
    it (v̄₇₃ and ∂v₇₄/∂v₇₃: v₇₃'s block, though reverse mode makes the adjoint's blocks from
    the last time step back); a box that no step of a folded forward node computes (v̄ᵢ→ₜ of
    a shared input, a rule's inner node) is in the block that most boxes of its own block
    are in. An extension run whose blocks do not fall in distinct blocks of one forward run
    (extension nodes that repeat where their forward nodes do not) keeps the order its
    blocks were made in, and says so (``ordered=False``)."""
    extension = [any(by_id[i].kind in EXTENSION for i in f.blocks[0]) for f in folds]
    trace = scene.trace
    if not any(extension) or trace is None:  # (a forward view: its extension never built)
        return folds
    place: dict = {}  # forward node → (its run, its block)
    for r, fold in enumerate(folds):
        if not extension[r]:
            for b, block in enumerate(fold.blocks, 1):
                place.update((by_id[i].node, (r, b)) for i in block)
    own: dict = {}  # extension node → the place of the forward node whose step computes it
    for step in trace.steps:
        p = place.get(step.node)
        if p is not None:
            for n in trace.involved(step):
                own.setdefault(n, p)
    out = []
    for fold, ext in zip(folds, extension):
        if ext:
            found = _placed([[by_id[i].node for i in block] for block in fold.blocks], own)
            if found is None:
                fold = dataclasses.replace(fold, ordered=False)
            else:
                fold = dataclasses.replace(fold, at=found[0], of=folds[found[1]].repeats)
        out.append(fold)
    return out


def _placed(blocks: list[list], own: dict) -> tuple[tuple[int, ...], int] | None:
    """The forward block of each node of ``blocks`` (an extension run's, block by block) read
    off ``own`` (node → (forward run, block)), and that forward run; None when the blocks do
    not fall in distinct blocks of one forward run."""
    numbers = []
    for nodes in blocks:
        votes: dict = {}
        for n in nodes:
            p = own.get(n)
            if p is not None:
                votes[p] = votes.get(p, 0) + 1
        if not votes:
            return None
        numbers.append(min(votes, key=lambda p: (-votes[p], p)))  # the most, then the first
    runs = {r for r, _ in numbers}
    if len(runs) > 1 or len({b for _, b in numbers}) < len(numbers):
        return None
    (r,) = runs
    at = tuple(
        own[n][1] if own.get(n, (None,))[0] == r else b
        for (_, b), nodes in zip(numbers, blocks)
        for n in nodes
    )
    return at, r


def _op(item: Item) -> str:
    return item.node.op.name


def _common_cluster(clusters: Iterable[str | None], parents: dict[str, str]) -> str | None:
    """The deepest cluster holding all of ``clusters`` (None: the top level)."""
    common: list[str | None] | None = None
    for cluster in dict.fromkeys(clusters):
        chain = []
        while cluster is not None:
            chain.append(cluster)
            cluster = parents.get(cluster)
        chain.reverse()  # outermost first
        if common is None:
            common = chain
        else:
            k = 0
            while k < min(len(common), len(chain)) and common[k] == chain[k]:
                k += 1
            common = common[:k]
    return common[-1] if common else None
