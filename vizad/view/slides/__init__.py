"""A notebook as slides that need no network (``vz.view.slides.export_slides``,
``python -m vizad slides NOTEBOOK``, ``make slides``): nbconvert's slides exporter with vizad's
template (``template/``), which inlines vizad's own deck (frontend/deck/: one slide at a time,
keys, buttons, its address; every element made with DOM calls), KaTeX for the mathematics and
their style (``deck.js``, ``deck.css``: built by frontend/build-slides.mjs, KaTeX from the
version pinned in frontend/package-lock.json, committed) instead of loading reveal.js, jQuery,
require.js, MathJax and the widget manager from CDNs. A stepper's output carries its own
component (its HTML), so it steps in the deck as in a saved notebook. One file, opened from
disk, on a projector with no network."""

from __future__ import annotations

from pathlib import Path

from vizad.errors import ArgumentError
from vizad.view.files import check_output, write_output

__all__ = ["export_slides", "slides_html"]

HERE = Path(__file__).resolve().parent


def _deck() -> dict[str, str]:
    """The bundled script and style sheet of the deck."""
    return {
        "js": (HERE / "deck.js").read_text(encoding="utf-8"),
        "css": (HERE / "deck.css").read_text(encoding="utf-8"),
    }


def slides_html(notebook: str | Path) -> str:
    """The slides of the notebook at ``notebook`` (its outputs as stored), as one HTML page
    that fetches nothing. Each cell's ``slideshow`` metadata says where slides start, as in
    ``jupyter nbconvert --to slides``."""
    try:
        import nbformat
        from nbconvert import SlidesExporter
    except ImportError as exc:  # pragma: no cover - nbconvert comes with Jupyter
        raise ArgumentError(
            "slides need nbconvert (pip install nbconvert, or vizad's notebook extras)"
        ) from exc
    path = Path(notebook)
    if not path.is_file():
        raise ArgumentError(f"slides: no notebook at {path}")
    try:
        nb = nbformat.read(path, as_version=4)
    except Exception as exc:  # nbformat's many reading errors: one message
        raise ArgumentError(f"slides: {path} is not a notebook ({exc})") from None
    exporter = SlidesExporter(
        extra_template_basedirs=[str(HERE)],
        template_name="template",
    )
    resources = {"metadata": {"name": path.stem}, "vizad_deck": _deck()}
    body, _ = exporter.from_notebook_node(nb, resources=resources)
    return body


def export_slides(notebook: str | Path, path: str | Path | None = None) -> Path:
    """Write the slides of ``notebook`` (see :func:`slides_html`) to ``path`` (default: the
    notebook's name with ``.slides.html`` beside it), written as :mod:`vizad.view.files`
    says. Returns the path."""
    out = Path(path) if path is not None else Path(notebook).with_suffix(".slides.html")
    check_output(out, "export_slides")
    return write_output(out, slides_html(notebook), "export_slides")
