"""Frames for slides: one picture file per step of a walkthrough, for Beamer, PowerPoint or
Google Slides (``vz.export_frames``, ``python -m vizad frames``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from vizad.errors import ArgumentError
from vizad.view.files import check_output, write_output
from vizad.view.render import drawing_of, scene_drawn
from vizad.view.render.budget import lay_out, wall_after
from vizad.view.render.dot import run_dot_format, titled
from vizad.view.render.options import DrawOptions, draw_options, takes_draw_options
from vizad.view.render.scene import Scene
from vizad.trace import Trace
from vizad.trace.text import latex_to_text

__all__ = ["export_frames", "FRAME_FORMATS"]

#: The formats export_frames writes (by Graphviz's dot program).
FRAME_FORMATS = ("svg", "pdf", "png")


@takes_draw_options
def export_frames(
    trace: Trace,
    directory: str | Path,
    *,
    format: str = "svg",
    view: str | None = None,
    scale: float = 1.0,
    caption: bool = True,
    timeout: float = 30.0,
    show_pending: bool = False,
    options: DrawOptions | None = None,
    **drawing: Any,
) -> list[Path]:
    """Write one file per step of ``trace`` into ``directory`` (made if missing):
    ``step-01.svg`` … (the number padded to the same width for every step, so the names sort
    in step order), each the ``view`` with that step highlighted and, with ``caption``, the
    step's derivation line under the title. The values of the steps after it are written
    "= ?" (``show_pending=True`` shows them): a frame never gives away what comes next.
    Steps share one layout (Graphviz places the boxes
    the same way in every frame: only colours change). ``scale`` enlarges PNG frames (96 dpi ×
    scale); SVG and PDF are vector pictures. Each file is written as :mod:`vizad.view.files` says
    (whole or not at all; links followed; FIFOs and devices written to, never replaced).
    The drawing options (the fields of :class:`~vizad.view.render.DrawOptions`, by keyword or
    as ``options=``) draw the view as vz.draw does. The last frame is laid out first, within
    the layout ``budget`` (vizad.view.render.budget: in full, bounded or summarised, the
    picture saying which; None: in full), and every frame draws the same choice, each run of
    ``dot`` bounded by ``timeout`` seconds. Returns the paths, in step
    order.

    Examples:
        >>> x1, x2 = vz.Variable("x1"), vz.Variable("x2")
        >>> y = vz.log(x1) + x1 * x2 - vz.sin(x2)
        >>> import pathlib, tempfile
        >>> trace = vz.trace_reverse(y, [x1, x2], {x1: 2.0, x2: 5.0})
        >>> folder = pathlib.Path(tempfile.mkdtemp())
        >>> paths = vz.export_frames(trace, folder)
        >>> [p.name for p in paths][:3]
        ['step-1.svg', 'step-2.svg', 'step-3.svg']
    """
    how = draw_options(options, drawing, "export_frames")
    if format not in FRAME_FORMATS:
        raise ArgumentError(
            f"export_frames: format must be one of {FRAME_FORMATS}, got {format!r}; give one"
        )
    if not isinstance(scale, (int, float)) or not 0.1 <= scale <= 10:
        raise ArgumentError(
            f"export_frames: scale must be a number from 0.1 to 10, got {scale!r}; give one"
        )
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
    scene = scene_drawn(trace, view, how)

    # the last frame, which shows every value, is laid out first: it chooses the rung of the
    # budget (a layout that runs long is stopped and the next rung drawn), and gives each box
    # its size, kept in every frame that writes "?" for the values to come, so that every
    # frame has the same layout
    def last(rung: Scene, cpu: float | None) -> bytes:
        source = drawing_of(rung, step=n).source
        if cpu is None:
            return run_dot_format(source, "json0", timeout, "laying out frames")
        return run_dot_format(source, "json0", wall_after(cpu), "laying out frames", cpu)

    chosen, laid = lay_out(scene, last, how.budget)
    sizes = {} if show_pending else _box_sizes(laid)
    paths = []
    for k, path in enumerate(names, 1):
        text = latex_to_text(trace.line(trace.steps[k - 1])) if caption else ""
        drawing = drawing_of(chosen, step=k, caption=text, show_pending=show_pending)
        for box, (w, h) in sizes.items():
            drawing.node(box, width=w, height=h, fixedsize="true")
        if format == "png":
            drawing.attr("graph", dpi=str(round(96 * scale)))
        data = run_dot_format(drawing.source, format, timeout)
        if format == "svg":  # boxes titled by their names, not vizad's ids
            data = titled(data.decode(), drawing._vizad_titles).encode()
        paths.append(write_output(path, data, "export_frames"))
    return paths


def _box_sizes(json0: bytes) -> dict[str, tuple[str, str]]:
    """Each box's size (inches, as Graphviz gives it) in a drawing laid out by ``dot`` (its
    ``json0`` output)."""
    laid = json.loads(json0)
    return {
        o["name"]: (o["width"], o["height"])
        for o in laid.get("objects", ())
        if "width" in o and "nodes" not in o  # boxes, not clusters
    }
