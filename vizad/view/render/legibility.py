"""Whether a picture can be read in the reader's frame, predicted without laying it out.

A step is readable when the boxes it lights (its node, the nodes it reads, its consumers) can
be shown together in the frame with their text at least READABLE_PX CSS px: the zoom that
shows them together is the frame divided by their extent, and 12 pt text is 16 px at zoom 1.
Their extent is estimated from the ranks ``dot`` puts them in (:mod:`vizad.view.render.ranks`; the
graph runs left to right) and the size of their text. The stepper picks, in order, the first
of the full picture, its repeats folded, its scopes collapsed and its summary whose steps are
readable, at least half of them (:func:`vizad.view.render.summary.legible`): a weight-shared chain,
whose weights' adjoint sums read from every time step, is shown folded, one click from the
unfolded one.

The frame is the reader's: by default JupyterLab at 1024×768 with the file browser open, whose
output area leaves the graph about 592×250 px (DEFAULT_FRAME).
"""

from __future__ import annotations

import weakref
from collections import defaultdict

from vizad.view.render.highlight import StepStates, step_states
from vizad.view.render.ranks import dot_ranks
from vizad.view.render.scene import Scene

__all__ = ["DEFAULT_FRAME", "READABLE_PX", "TEXT_PX", "step_text_px", "readable", "states_of"]

#: The graph's frame (CSS px, width × height) a picture is chosen for by default: JupyterLab
#: at 1024×768 with its file browser open (measured: 592 × 222–274 px).
DEFAULT_FRAME = (592, 250)

#: The smallest text a person reads (CSS px).
READABLE_PX = 9.0

#: The boxes' text at zoom 1 (12 pt, CSS px), and what the estimate takes a box to be made of.
TEXT_PX = 16.0
_CHAR = 8.5  # px per character of a box's text (DejaVu Sans at 12 pt, mixed with math)
_PAD_W, _PAD_H = 14.0, 10.0  # a box's margins (px)
_LINE = 19.0  # px per line of text
_HEAT = 90.0  # px of a heatmap (at most 12 rows of 7 pt cells, its caption and scale)
_RANKSEP = 43.0  # px between ranks (ranksep 0.45 in)
_NODESEP = 24.0  # px between boxes of a rank (nodesep 0.25 in)
_LABEL_RANK = 40.0  # px of a rank that holds edge labels (∂vⱼ/∂vᵢ) only
_MARGIN = 16.0  # px the stepper keeps between the frame and the boxes in view


def _box_size(item) -> tuple[float, float]:
    """The estimated size (px, at zoom 1) of a box."""
    lines = item.lines
    width = _CHAR * max((len(line) for line in lines), default=1) + 2 * _PAD_W
    height = _LINE * len(lines) + _HEAT * len(item.heatmaps) + 2 * _PAD_H
    if item.heatmaps:
        width = max(width, 24 * 7 + 2 * _PAD_W)
    return width, height


#: (a weak reference to the scene whose step states were made last, those states): read and
#: replaced whole (see :func:`states_of`).
_LAST: list[tuple] = [(lambda: None, None)]


def states_of(scene: Scene) -> StepStates:
    """``step_states(scene)``, kept for the last scene asked about: the picture that
    :func:`readable` judged and :func:`~vizad.view.render.summary.legible` chose is the one a
    Layout then lays out, whose states are then not made a second time."""
    ref, states = _LAST[0]
    if ref() is not scene:
        states = step_states(scene)
        _LAST[0] = (weakref.ref(scene), states)
    return states


def step_text_px(scene: Scene, frame: tuple[float, float] = DEFAULT_FRAME) -> list[float]:
    """Per step of ``scene``'s trace, the size (CSS px) of its boxes' text at the largest zoom
    (at most 1) that shows them all together in ``frame`` (width, height in CSS px)."""
    rank, scale = dot_ranks(scene)
    items = {i.id: i for i in scene.items}
    sizes: dict[str, tuple[float, float]] = {}

    def size(box: str) -> tuple[float, float]:
        if box not in sizes:
            sizes[box] = _box_size(items[box])
        return sizes[box]

    width_of_rank: dict[int, float] = defaultdict(float)  # the widest box of each rank
    for box, r in rank.items():
        width_of_rank[r] = max(width_of_rank[r], size(box)[0])
    low = min(rank.values(), default=0)
    # the x of each rank's left side: its boxes, then (labelled edges) a rank of labels
    x, left = 0.0, {}
    for r in range(low, max(rank.values(), default=0) + 1):
        left[r] = x
        x += width_of_rank.get(r, 0.0) + _RANKSEP
        if scale == 2:
            x += _LABEL_RANK + _RANKSEP
    fw, fh = (float(v) - 2 * _MARGIN for v in frame)
    out = []
    for step in states_of(scene).steps:
        boxes = [b for b in [step["current"], *step["consumer"], *step["involved"]] if b in rank]
        if not boxes:
            out.append(TEXT_PX)
            continue
        x0 = min(left[rank[b]] for b in boxes)
        x1 = max(left[rank[b]] + size(b)[0] for b in boxes)
        column: dict[int, float] = defaultdict(float)  # the step's boxes stacked per rank
        for b in boxes:
            column[rank[b]] += size(b)[1] + _NODESEP
        height = max(column.values()) - _NODESEP
        zoom = min(1.0, fw / max(x1 - x0, 1.0), fh / max(height, 1.0))
        out.append(TEXT_PX * zoom)
    return out


def readable(scene: Scene, frame: tuple[float, float] = DEFAULT_FRAME) -> bool:
    """Whether ``scene``'s walkthrough is readable in ``frame``: at least half of its steps
    have their boxes shown together with their text at least READABLE_PX (a drawing of nodes,
    without steps: yes). The other steps are followed at a readable zoom, the boxes that do
    not fit marked at the frame's edge (the stepper's viewport)."""
    if scene.trace is None:
        return True
    px = sorted(step_text_px(scene, frame))
    return not px or px[(len(px) - 1) // 2] >= READABLE_PX
