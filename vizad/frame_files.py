"""Frames for slides: one picture file per step of a walkthrough, for Beamer, PowerPoint or
Google Slides (``vz.export_frames``, ``python -m vizad frames``)."""

from __future__ import annotations

from pathlib import Path

from .errors import ArgumentError
from .files import check_output, write_output
from .render import MAX_BOXES, drawing_of
from .render.budget import LAYOUT_BUDGET, lay_out
from .render.dot import run_dot_format
from .render.summary import scene_for
from .text import latex_to_text

__all__ = ["export_frames", "FRAME_FORMATS"]

#: The formats export_frames writes (by Graphviz's dot program).
FRAME_FORMATS = ("svg", "pdf", "png")


def export_frames(
    trace,
    directory: str | Path,
    *,
    format: str = "svg",
    view: str | None = None,
    scale: float = 1.0,
    caption: bool = True,
    timeout: float = 30.0,
    max_boxes: int = MAX_BOXES,
    collapse=None,
    detail: bool = False,
    budget: float | None = LAYOUT_BUDGET,
) -> list[Path]:
    """Write one file per step of ``trace`` into ``directory`` (made if missing):
    ``step-01.svg`` … (the number padded to the same width for every step, so the names sort
    in step order), each the ``view`` with that step highlighted and, with ``caption``, the
    step's derivation line under the title. Steps share one layout (Graphviz places the boxes
    the same way in every frame: only colours change). ``scale`` enlarges PNG frames (96 dpi ×
    scale); SVG and PDF are vector pictures. Each file is written as :mod:`vizad.files` says
    (whole or not at all; links followed; FIFOs and devices written to, never replaced).
    ``max_boxes``, ``collapse`` and ``detail`` draw the view as vz.draw does. The first frame
    is laid out within the layout ``budget`` (vizad.render.budget: in full, bounded or
    summarised, the picture saying which; None: in full) and the other frames draw the same
    choice, each run of ``dot`` bounded by ``timeout`` seconds. Returns the paths, in step
    order."""
    if format not in FRAME_FORMATS:
        raise ArgumentError(f"export_frames: format must be one of {FRAME_FORMATS}, got {format!r}")
    if not isinstance(scale, (int, float)) or not 0.1 <= scale <= 10:
        raise ArgumentError(f"export_frames: scale must be a number from 0.1 to 10, got {scale!r}")
    view = trace.view(view)
    directory = Path(directory)
    if directory.exists() and not directory.is_dir():
        raise ArgumentError(
            f"export_frames: {directory} is a file, not a directory; give a directory (made "
            "if missing)"
        )
    directory.mkdir(parents=True, exist_ok=True)
    n = len(trace.steps)
    if not n:
        raise ArgumentError("export_frames: this trace has no steps")
    width = len(str(n))
    names = [directory / f"step-{k:0{width}d}.{format}" for k in range(1, n + 1)]
    for path in names:  # before the work: a frame's path that cannot be written
        check_output(path, "export_frames")
    scene = scene_for(trace, view, 3, detail=detail, collapse=collapse, max_boxes=max_boxes)

    def frame(chosen, k: int, limit: float | None) -> bytes:
        line = latex_to_text(trace.line(trace.steps[k - 1])) if caption else ""
        drawing = drawing_of(chosen, step=k, caption=line)
        if format == "png":
            drawing.attr("graph", dpi=str(round(96 * scale)))
        return run_dot_format(drawing.source, format, timeout if limit is None else limit)

    # the first frame chooses the rung of the budget (a layout that runs long is stopped and
    # the next rung drawn); every frame draws the same rung, so that boxes stay in place
    chosen, data = lay_out(scene, lambda rung, limit: frame(rung, 1, limit), budget)
    paths = [write_output(names[0], data, "export_frames")]
    for k, path in enumerate(names[1:], 2):
        paths.append(write_output(path, frame(chosen, k, None), "export_frames"))
    return paths
