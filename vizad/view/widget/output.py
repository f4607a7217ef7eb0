"""A stepper's output, by the one rule of :mod:`vizad.view.frontends`: vizad's own MIME type
(the step shown, saved with the notebook; the widget model's id in its metadata), which
vizad's JupyterLab / Notebook 7 extension renders as the live widget while the kernel holds
it and from the HTML otherwise; that HTML, the component with its data for every other
renderer (nbconvert, a notebook reopened anywhere), which starts as a static picture of the
step (vizad.view.widget.snapshot: an ``<img>`` and the panel, kept where scripts do not run,
untrusted outputs included). The picture is stored once, in that HTML: no ``image/svg+xml``
beside it, which every renderer that shows HTML (JupyterLab, Notebook 7, nbconvert, VS Code,
Colab, GitHub's preview) passes over. The widget-view MIME type only where the front end has
a widget manager and no vizad renderer (Colab, VS Code, ``vz.config.display = "widget"``):
elsewhere nbconvert would prefer it to the HTML whenever widget state is stored, and show a
blank output without its CDN.

Shown with a display id (the widget model's), a stepper whose step is set later while no
front end shows it (a notebook executed headless: nbconvert --execute, nbclient, Jupyter
Book, MyST) updates its output, so that the notebook is saved at the author's step.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from vizad.trace.panel import CONTRIBUTIONS_HEAD, step_panel
from vizad.view import frontends, sharing
from vizad.view.render.palette import diverging
from vizad.view.widget.page import WALKTHROUGH, fragment, needs_graphviz
from vizad.view.widget.snapshot import snapshot_html

if TYPE_CHECKING:
    from vizad.view.widget.stepper import Stepper

__all__ = ["WIDGET_VIEW", "SAVED_VIEWS", "output_bundle", "saved_data", "show", "update"]

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
#: Walkthroughs with at most this many steps carry every view in their output's HTML, so that
#: a notebook reopened without its kernel switches views too (bigger ones: those laid out).
SAVED_VIEWS = 100


def output_bundle(stepper: Stepper, bundle: Any) -> tuple[dict, dict]:
    """The output of ``stepper`` (see the module's docstring), from the widget's own
    ``bundle`` (anywidget's: the widget-view MIME type)."""
    data, metadata = bundle if isinstance(bundle, tuple) else (bundle, {})
    view = data.pop(WIDGET_VIEW, None)
    if view is not None:
        data[WALKTHROUGH] = {"step": stepper.step}
        metadata = {**metadata, WALKTHROUGH: {"model_id": view["model_id"]}}
        if frontends.display() == "widget":
            data[WIDGET_VIEW] = view
    trace = stepper.trace
    layout = stepper.layout_of(stepper.view)
    svg = None if stepper.quiz or layout.in_browser else layout.svg(stepper.step)
    panel = None  # a quiz's picture and data give no answer away
    if not stepper.quiz:
        k = stepper.step - 1
        panel = step_panel(trace, k, stepper.failures, decimals=stepper.decimals, colour=diverging)
    snapshot = snapshot_html(
        trace.describe(), svg, panel, getattr(trace, "contributions_head", CONTRIBUTIONS_HEAD)
    )
    saved = saved_data(stepper)
    needed = {sharing.COMPONENT} | ({sharing.GRAPHVIZ} if needs_graphviz(saved) else set())
    carries = stepper._carries
    carries |= {kind for kind in needed - carries if sharing.carries(kind)}
    data["text/html"] = fragment(
        saved,
        layout.scope,
        snapshot,
        stepper.step,
        hidden=stepper.quiz,
        component=sharing.COMPONENT in carries,
        graphviz=sharing.GRAPHVIZ in carries and sharing.GRAPHVIZ in needed,
    )
    return data, metadata


def saved_data(stepper: Stepper) -> dict:
    """The component's data as the output's HTML carries it (a notebook reopened without
    its kernel, nbconvert): every view when the walkthrough has at most SAVED_VIEWS steps
    (laid out now if need be), else the views laid out so far."""
    views = stepper.trace.views if stepper.n_steps <= SAVED_VIEWS else stepper.laid_out
    return {**stepper.data, "frames": stepper._views.saved(views)}


def display_id(stepper: Stepper) -> str:
    return f"vizad-{stepper.model_id}"


def show(stepper: Stepper, **kwargs: Any) -> None:
    """Show ``stepper``'s output with its display id."""
    from IPython.display import display

    data, metadata = stepper._repr_mimebundle_(**kwargs)
    display(data, metadata=metadata, raw=True, display_id=display_id(stepper))


def update(stepper: Stepper) -> None:
    """Rewrite ``stepper``'s output shown with its display id (at its step now)."""
    from IPython.display import update_display

    data, metadata = stepper._repr_mimebundle_()
    update_display(data, metadata=metadata, raw=True, display_id=display_id(stepper))
