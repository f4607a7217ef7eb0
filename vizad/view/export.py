"""A walkthrough as one self-contained HTML file: the stepper's own browser component
(``widget/static/stepper/`` and its CSS, inlined) and its data, no CDN, no kernel, no
network. For course websites and slides."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeGuard

from vizad.view.assets import (
    boot_code,
    boot_elements,
    component_module,
    graphviz_module,
    graphviz_script,
    page_policy,
    style,
)
from vizad.errors import ArgumentError, ArgumentTypeError
from vizad.view.files import check_output, write_output
from vizad.view.render.options import (
    SCALE,
    DrawOptions,
    check_scale,
    draw_options,
    takes_draw_options,
)
from vizad.trace.text import escape
from vizad.trace import Trace
from vizad.view.widget.data import CHECK_LIMIT, check_failures, walkthrough_data
from vizad.view.widget.page import data_script, needs_graphviz

if TYPE_CHECKING:
    from vizad.view.widget.stepper import Stepper

__all__ = ["export_html", "page_html", "myst_directive", "MYST_MODULE", "MYST_STYLE"]

_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta http-equiv="Content-Security-Policy" content="{policy}">
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>
body{{margin:16px;font-family:system-ui,-apple-system,"Segoe UI",sans-serif;color:#1a1a1a;background:#fff}}
@media (prefers-color-scheme: dark){{body{{color:#e8e8e8;background:#1e1e1e}}}}
h1{{font-size:20px;margin:0 0 8px}}
{css}
</style></head><body>
<h1>{title}</h1>
<div id="vz-root"></div>
{data}
{mount}
</body></html>
"""


@takes_draw_options
def export_html(
    target: Trace | Stepper,
    path: str | Path,
    *,
    title: str | None = None,
    view: str | None = None,
    quiz: bool | None = None,
    check: bool | None = None,
    scale: float = SCALE,
    options: DrawOptions | None = None,
    memory: bool | None = None,
    **drawing: Any,
) -> Path:
    """Write ``target`` (a trace or a Stepper) as one self-contained HTML page with every
    frame and an inline stepper (buttons, slider, play, views). Returns the path. Without the
    ``dot`` program the page carries Graphviz compiled to WebAssembly (~0.8 MB) and lays the
    views out when it opens. A regular file is written whole or not at all (a temporary file
    in the same directory, then renamed); a symbolic link is followed, a FIFO or a character
    device written to directly, a directory or a disk refused (see :mod:`vizad.view.files`).
    ``quiz=True`` (the default for a quiz Stepper) makes the
    page a quiz: each step's result is typed before it shows, and the page's data is encoded
    so that the answers are not in its source as text (good enough for class, not for an
    exam: the page itself can decode them). ``check`` marks the steps whose rule fails
    ``trace.check()`` in red, as the stepper does; by default, like ``vz.Stepper``, a trace
    of at most 400 steps is checked (checking is most of the time of exporting a large one; a
    Stepper's page shows what the Stepper checked). The drawing options (the fields of
    :class:`~vizad.view.render.DrawOptions`, by keyword or as ``options=``) draw the views of
    a trace as vz.draw and vz.step do; a Stepper's page shows its views as the Stepper drew
    them. ``scale`` is the page's presentation scale
    (graph and panel enlarged together, as ``vz.step(..., scale=)``; the page's "scale" menu
    changes it); a Stepper's page opens at the Stepper's scale unless another is given.
    ``memory=True`` (the default for a Stepper made with it) carries the memory timeline and
    the checkpoint editor, which work in the page without Python.

    Examples:
        >>> x1, x2 = vz.Variable("x1"), vz.Variable("x2")
        >>> y = vz.log(x1) + x1 * x2 - vz.sin(x2)
        >>> import pathlib, tempfile
        >>> trace = vz.trace_reverse(y, [x1, x2], {x1: 2.0, x2: 5.0})
        >>> page = vz.export_html(trace, pathlib.Path(tempfile.mkdtemp()) / "lecture.html")
        >>> page.name, page.stat().st_size > 0
        ('lecture.html', True)
    """
    check_output(path, "export_html")  # before the work: a path that cannot be written
    how = draw_options(options, drawing, "export_html")
    page = page_html(
        target,
        title=title,
        view=view,
        quiz=quiz,
        check=check,
        scale=scale,
        options=how,
        memory=memory,
    )
    return write_output(path, page, "export_html")


def page_html(
    target: Trace | Stepper,
    *,
    title: str | None = None,
    view: str | None = None,
    quiz: bool | None = None,
    check: bool | None = None,
    scale: float = SCALE,
    options: DrawOptions | None = None,
    memory: bool | None = None,
) -> str:
    """The self-contained HTML page of :func:`export_html`, as a string."""
    trace, view, data, scale, quiz = _walkthrough(
        target, view, quiz, check, scale, options, "export_html", memory
    )
    n = len(trace.steps)
    what = trace.label(trace.output)
    title = title or f"vizad walkthrough of {what} ({trace.computed_by}, {n} steps)"
    graphviz = needs_graphviz(data)
    page = _PAGE.format(
        # the page's one inline script: the component and boot.js (boot_elements below)
        policy=escape(page_policy([boot_code(True)], graphviz)),
        title=escape(title),
        css=style(),
        data=data_script(data, "vz-data", hidden=quiz, packed=True)
        + (graphviz_script("vz-graphviz") if graphviz else ""),
        mount=boot_elements(
            {
                "root": "vz-root",
                "data": "vz-data",
                "focus": True,
                "scale": scale,
                "notebook": False,  # a page: it says nothing of Python
                **({"graphviz": True, "graphvizId": "vz-graphviz"} if graphviz else {}),
            },
            component=True,
        ),
    )
    return page


#: The files :func:`myst_directive` writes beside a MyST page: the component and its CSS.
MYST_MODULE = "vizad-stepper.mjs"
MYST_STYLE = "vizad-stepper.css"


@takes_draw_options
def myst_directive(
    target: Trace | Stepper,
    folder: str | Path,
    *,
    step: int | None = None,
    view: str | None = None,
    check: bool | None = None,
    scale: float = SCALE,
    options: DrawOptions | None = None,
    **drawing: Any,
) -> str:
    """A stepper in a MyST / Jupyter Book 2 page (mystmd's ``{anywidget}`` directive), with
    no kernel: writes the component (``vizad-stepper.mjs``) and its CSS
    (``vizad-stepper.css``) into ``folder``, the page's folder, and returns the directive to
    put in the page. Its JSON body is the walkthrough's data (every view) opening at ``step``
    (the author's; a Stepper's own step by default, else 1). ``view``, ``check``, ``scale``
    and the drawing options as for :func:`export_html`. A quiz is not offered (its answers
    would be in the page's source as text).

    Examples:
        >>> x1, x2 = vz.Variable("x1"), vz.Variable("x2")
        >>> y = vz.log(x1) + x1 * x2 - vz.sin(x2)
        >>> import pathlib, tempfile
        >>> trace = vz.trace_reverse(y, [x1, x2], {x1: 2.0, x2: 5.0})
        >>> folder = pathlib.Path(tempfile.mkdtemp())
        >>> text = myst_directive(trace, folder, step=6)
        >>> text.splitlines()[:2]
        ['```{anywidget} ./vizad-stepper.mjs', ':css: ./vizad-stepper.css']
        >>> sorted(p.name for p in folder.iterdir())
        ['vizad-stepper.css', 'vizad-stepper.mjs']
    """
    how = draw_options(options, drawing, "myst_directive")
    if getattr(target, "quiz", False):
        raise ArgumentError(
            "myst_directive: a quiz's answers would be in the page's source as text; use "
            "vz.export_html(stepper, path), whose page encodes them"
        )
    trace, view, data, scale, _ = _walkthrough(
        target, view, False, check, scale, how, "myst_directive"
    )
    n = len(trace.steps)
    if step is None:
        step = target.step if _is_stepper(target) else 1
    if isinstance(step, bool) or not isinstance(step, int) or not 1 <= step <= n:
        raise ArgumentError(f"myst_directive: step must be a whole number 1 … {n}, got {step!r}")
    model = {"data": data, "step": step, "view": view, "scale": scale, "connected": False}
    if needs_graphviz(data):  # no dot here: the page lays the views out itself
        model["_graphviz"] = graphviz_module()
    folder = Path(folder)
    write_output(folder / MYST_MODULE, component_module(), "myst_directive")
    write_output(folder / MYST_STYLE, style(), "myst_directive")
    # one line of JSON; a backtick only in its strings, written \u0060: nothing closes the fence
    body = json.dumps(model, ensure_ascii=False, sort_keys=True).replace("`", "\\u0060")
    return f"```{{anywidget}} ./{MYST_MODULE}\n:css: ./{MYST_STYLE}\n{body}\n```\n"


def _walkthrough(
    target: Trace | Stepper,
    view: str | None,
    quiz: bool | None,
    check: bool | None,
    scale: float,
    options: DrawOptions | None,
    who: str,
    memory: bool | None = None,
) -> tuple[Trace, str, dict, float, bool]:
    """What a page without a kernel shows of ``target``: its trace, view, the component's
    data (every view, each collapsed box opened too), scale and whether it is a quiz; ``who``
    names the caller in its errors."""
    scale = check_scale(scale, who)
    options = DrawOptions() if options is None else options
    if _is_stepper(target):
        target._live()  # a closed stepper: ClosedError
        if check is not None:
            raise ArgumentError(
                f"{who}: check= is for a trace; a Stepper's page shows what the Stepper "
                "checked (vz.Stepper(trace, check=True))"
            )
        given = options.given()
        if given:
            raise ArgumentError(
                f"{who}: {', '.join(given)} draw a trace's views; a Stepper's page shows "
                f"its views as the Stepper drew them (vz.Stepper(trace, {given[0]}…))"
            )
        trace, failures, options = target.trace, dict(target.failures), target.options
        if scale == SCALE:  # none given: the Stepper's own
            scale = target.scale
        view, layouts = target.view, {v: target.layout_of(v) for v in trace.views}
    elif isinstance(target, Trace):
        trace, layouts = target, None
        if check is None:
            check = len(trace.steps) <= CHECK_LIMIT
        failures = check_failures(trace) if check else {}
    else:
        raise ArgumentTypeError(f"{who} takes a trace or a Stepper, got {type(target).__name__}")
    view = trace.view(view)
    if not trace.steps:
        raise ArgumentError(
            "this trace has no steps to export: the output does not depend on "
            "the inputs it was traced with respect to"
        )
    if quiz is None:
        quiz = bool(getattr(target, "quiz", False))
    if memory is None:  # a Stepper's own (a trace's .memory is its method)
        memory = bool(target.memory) if _is_stepper(target) else False
    # each collapsed box comes opened too, for the page to lay out when it is clicked
    data = walkthrough_data(
        trace,
        view=view,
        failures=failures,
        layouts=layouts,
        quiz=quiz,
        openings=True,
        options=options,
        memory=memory,
    )
    return trace, view, data, scale, quiz


def _is_stepper(target: object) -> TypeGuard[Stepper]:
    """Whether ``target`` is a Stepper, without importing the widget libraries for a trace:
    there is none unless its module was imported."""
    stepper = sys.modules.get("vizad.view.widget.stepper")
    return stepper is not None and isinstance(target, stepper.Stepper)
