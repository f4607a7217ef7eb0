"""The one rule for which output a front end gets (vizad/view/frontends.py), the shared code carried
once per notebook (vizad/view/sharing.py), and a step set from Python saved into the output
when no front end shows the widget (headless builds)."""

from __future__ import annotations

import sys
import types

import pytest

import vizad as vz
from vizad.view import frontends
from vizad.errors import ArgumentError
from vizad.view import sharing
from vizad.view.widget.page import WALKTHROUGH
from vizad.view.widget.stepper import WIDGET_VIEW

COMPONENT_MARK = "globalThis.vizadComponent ??="


@pytest.fixture(autouse=True)
def _clean(monkeypatch):
    monkeypatch.delenv("VIZAD_DISPLAY", raising=False)
    monkeypatch.delenv("VSCODE_PID", raising=False)
    monkeypatch.delitem(sys.modules, "google.colab", raising=False)
    monkeypatch.setattr(frontends.config, "_display", None)
    sharing.forget()
    yield
    sharing.forget()


def test_the_rule(monkeypatch):
    assert frontends.display() == "vizad"  # JupyterLab, Notebook 7, nbconvert
    monkeypatch.setenv("VSCODE_PID", "1234")
    assert frontends.display() == "widget"
    monkeypatch.setenv("VIZAD_DISPLAY", "vizad")  # said, it wins over the detection
    assert frontends.display() == "vizad"
    vz.config.display = "widget"  # and the config over the environment
    assert frontends.display() == "widget"
    vz.config.display = None
    monkeypatch.setenv("VIZAD_DISPLAY", "html")
    with pytest.raises(ArgumentError, match="VIZAD_DISPLAY must be one of"):
        frontends.display()
    with pytest.raises(ArgumentError, match="vz.config.display must be one of"):
        vz.config.display = "colab"


def test_colab_gets_the_widget_and_its_widget_manager(monkeypatch):
    enabled = []
    colab = types.ModuleType("google.colab")
    colab.output = types.SimpleNamespace(enable_custom_widget_manager=lambda: enabled.append(1))
    monkeypatch.setitem(sys.modules, "google.colab", colab)
    monkeypatch.setattr(frontends, "_colab_ready", False)
    data, metadata = vz.Stepper(vz.examples.lecture())._repr_mimebundle_()
    assert WIDGET_VIEW in data and WALKTHROUGH in data and "text/html" in data
    assert metadata[WALKTHROUGH]["model_id"] == data[WIDGET_VIEW]["model_id"]
    vz.Stepper(vz.examples.lecture())._repr_mimebundle_()
    assert enabled == [1]  # once


def test_jupyterlab_gets_no_widget_view():
    data, _ = vz.Stepper(vz.examples.lecture())._repr_mimebundle_()
    assert WIDGET_VIEW not in data and data[WALKTHROUGH] == {"step": 1}


def test_the_component_is_carried_once():
    first = vz.Stepper(vz.examples.lecture())
    second = vz.Stepper(vz.examples.lecture())
    html = [s._repr_mimebundle_()[0]["text/html"] for s in (first, second, first)]
    assert [h.count(COMPONENT_MARK) for h in html] == [1, 0, 1]  # the carrier keeps it
    assert "data-vizad-mount" in html[1] and "<style>" not in html[1]
    assert len(html[1]) < len(html[0]) - 100_000


def test_a_rerun_of_the_carrying_cell_carries_again(monkeypatch):
    where = {"cell": ("cell-a", 1)}
    monkeypatch.setattr(sharing, "_cell", lambda: where["cell"])
    assert sharing.carries(sharing.COMPONENT)
    assert not sharing.carries(sharing.COMPONENT)  # the same run of the same cell
    where["cell"] = ("cell-b", 2)
    assert not sharing.carries(sharing.COMPONENT)
    where["cell"] = ("cell-a", 3)  # cell a again: its old output is replaced
    assert sharing.carries(sharing.COMPONENT)


def test_step_at_start_and_set_later_updates_the_output_headless(monkeypatch):
    """vz.step(..., step=k) opens at k; displayed with a display id, a step set later updates
    that output while no front end has said it shows the widget."""
    import IPython.display

    shown, updated = [], []
    monkeypatch.setattr(IPython.display, "display", lambda *a, **k: shown.append(k))
    monkeypatch.setattr(IPython.display, "update_display", lambda *a, **k: updated.append((a, k)))
    st = vz.step(vz.examples.lecture(), step=4)
    assert st.step == 4
    st._ipython_display_()
    assert shown[0]["display_id"] == f"vizad-{st.model_id}" and shown[0]["raw"]
    st.step = 6
    (data,), kwargs = updated[-1]
    assert kwargs["display_id"] == shown[0]["display_id"] and data[WALKTHROUGH] == {"step": 6}
    assert 'data-vizad-step="6"' in data["text/html"]
    # a front end shows it: the page and Python are synced, the output is not rewritten
    st._message(st, {"kind": "shown"}, [])
    st.step = 2
    assert len(updated) == 1


def test_a_drawing_laid_out_in_the_browser_follows_the_rule(monkeypatch):
    """vz.draw without dot: the HTML that lays it out in the page (the component and the
    Graphviz module carried by the first output); the widget too only for widget front ends."""
    monkeypatch.setenv("VIZAD_LAYOUT", "browser")
    x = vz.Variable("x")
    first = vz.draw(vz.sin(x) * x)._repr_mimebundle_()
    second = vz.draw(vz.cos(x))._repr_mimebundle_()
    assert set(first) == set(second) == {"text/html", "text/plain"}
    assert (
        first["text/html"].count('id="vizad-graphviz"') == 1
        and COMPONENT_MARK in first["text/html"]
    )
    assert 'id="vizad-graphviz"' not in second["text/html"]
    assert COMPONENT_MARK not in second["text/html"]
    assert '"picture": true' in second["text/html"] and len(second["text/html"]) < 20_000
    vz.config.display = "widget"
    assert WIDGET_VIEW in vz.draw(vz.cos(x))._repr_mimebundle_()
