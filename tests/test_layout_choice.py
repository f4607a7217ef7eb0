"""Where graphs are laid out: by Graphviz's ``dot`` program in Python when it is installed,
else (or with VIZAD_LAYOUT=browser) by Graphviz compiled to WebAssembly in the browser, from
the same DOT. The browser side is tested in tests/browser/test_browser_layout.py."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import vizad as vz
from vizad.view.widget.page import page_data
from vizad.view.assets import STATIC, graphviz_module
from vizad.view.render.dot import BROWSER_FONT, browser_source, layout_in_browser
from vizad.view.render.palette import FONT
from vizad.view.widget.stepper import Stepper

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture
def no_dot(monkeypatch):
    monkeypatch.delenv("VIZAD_LAYOUT", raising=False)
    monkeypatch.setenv("PATH", "/nonexistent")


@pytest.fixture
def browser(monkeypatch):
    monkeypatch.setenv("VIZAD_LAYOUT", "browser")


def test_the_choice(monkeypatch):
    monkeypatch.delenv("VIZAD_LAYOUT", raising=False)
    assert not layout_in_browser()  # dot is installed here
    for value, expected in [
        ("browser", True),
        ("dot", False),
        ("auto", False),
        (" Browser ", True),
    ]:
        monkeypatch.setenv("VIZAD_LAYOUT", value)
        assert layout_in_browser() is expected, value
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.setenv("VIZAD_LAYOUT", "auto")
    assert layout_in_browser()
    monkeypatch.setenv("VIZAD_LAYOUT", "dot")
    assert not layout_in_browser()
    with pytest.raises(vz.errors.GraphvizNotFoundError, match="apt-get install graphviz"):
        vz.render.Layout(vz.examples.lecture(), "forward")  # told to use dot, which is missing
    monkeypatch.setenv("VIZAD_LAYOUT", "wasm")
    with pytest.raises(
        vz.errors.ArgumentError, match="VIZAD_LAYOUT must be 'auto', 'dot' or 'browser'"
    ):
        layout_in_browser()


def test_without_dot(no_dot):
    drawing = vz.draw(vz.examples.lecture(), "adjoint")
    assert "digraph vizad" in drawing.source  # building DOT needs no Graphviz
    # files still need dot, and say how to install it
    with pytest.raises(
        vz.errors.GraphvizNotFoundError, match="apt-get install graphviz.*conda.*brew"
    ):
        drawing.pipe(format="svg")
    with pytest.raises(vz.errors.GraphvizNotFoundError, match="laid out in the browser"):
        drawing.render("/tmp/never", format="png")
    # the notebook display is a picture the browser lays out: HTML (vizad.view.frontends' rule; the
    # widget too where the front end has a widget manager only, see tests/test_frontends.py)
    bundle = drawing._repr_mimebundle_()
    assert "mountPicture" in bundle["text/html"] or '"picture": true' in bundle["text/html"]
    assert bundle["text/plain"].startswith("<vizad drawing: Adjoint graph of v₇")
    layout = vz.render.Layout(vz.examples.lecture(), "adjoint")
    assert layout.in_browser and "browser" in repr(layout)
    assert f'fontname="{BROWSER_FONT}"' in layout.dot_source
    assert f'fontname="{FONT}"' not in layout.dot_source
    with pytest.raises(vz.errors.GraphvizNotFoundError, match="the browser lays this one out"):
        layout.svg(1)
    assert "#F0E442" in layout.css(1)  # the step states need no layout
    assert '"picture": true' in layout._repr_mimebundle_()["text/html"]


def test_browser_source_renames_the_font_only():
    # a user name made of the font attribute itself stays as it was
    hostile = f'fontname="{FONT}"'
    x = vz.Variable(hostile)
    source = vz.draw(vz.sin(x) * x).source
    swapped = browser_source(source)
    assert swapped.count(f'fontname="{BROWSER_FONT}"') == source.count(f'fontname="{FONT}"') > 2
    assert "fontname=&quot;DejaVu Sans,Helvetica" in swapped  # the name, in its escaped label


def _without_layout(frames: dict) -> dict:
    return {v: {k: f[k] for k in f if k not in ("svg", "dot", "scope")} for v, f in frames.items()}


def test_stepper_sends_dot_and_the_graphviz_module(browser):
    trace = vz.examples.mlp()
    stepper = Stepper(trace)
    frames = stepper.data["frames"]
    assert all("dot" in f and "svg" not in f for f in frames.values())
    assert stepper._graphviz == graphviz_module() and len(stepper._graphviz) > 500_000
    # everything but the layout is what the dot program's stepper sends
    with pytest.MonkeyPatch.context() as m:
        m.setenv("VIZAD_LAYOUT", "dot")
        laid = Stepper(trace)
    assert laid._graphviz == ""
    assert _without_layout(laid.data["frames"]) == _without_layout(frames)
    assert laid.data["steps"] == stepper.data["steps"]
    # the HTML for saved notebooks: the step's panel and the data, for the page to lay out;
    # the 0.8 MB module once per notebook (the first output that needs it carries it)
    from vizad.view import sharing

    sharing.forget()
    first = stepper._repr_mimebundle_()[0]["text/html"]
    second = Stepper(trace)._repr_mimebundle_()[0]["text/html"]
    assert "laid out in the browser" in first and first.count('id="vizad-graphviz"') == 1
    assert len(first) > 800_000 and "image/svg+xml" not in stepper._repr_mimebundle_()[0]
    assert 'id="vizad-graphviz"' not in second and "vizadComponent ??=" not in second
    assert len(second) < len(first) - 800_000 and "v₁₂" in second


def test_exported_page_carries_the_module_only_when_needed(tmp_path, monkeypatch):
    monkeypatch.delenv("VIZAD_LAYOUT", raising=False)
    plain = vz.export_html(vz.examples.lecture(), tmp_path / "dot.html").read_text()
    assert "vz-graphviz" not in plain and len(plain) < 300_000
    monkeypatch.setenv("VIZAD_LAYOUT", "browser")
    page = vz.export_html(vz.examples.lecture(), tmp_path / "browser.html").read_text()
    module = re.search(
        r'<script type="application/json" id="vz-graphviz">(.*?)</script>', page, re.S
    )
    assert json.loads(module.group(1)) == graphviz_module()
    assert '"graphvizId": "vz-graphviz"' in page
    data = page_data(page)
    assert all("dot" in f for f in data["frames"].values())


def test_the_bundle_is_the_pinned_build():
    lock = json.loads((REPO / "frontend" / "package-lock.json").read_text())
    pinned = lock["packages"]["node_modules/@hpcc-js/wasm-graphviz"]["version"]
    package = json.loads((REPO / "frontend" / "package.json").read_text())
    assert package["devDependencies"]["@hpcc-js/wasm-graphviz"] == pinned  # exact pins
    module = (STATIC / "graphviz.js").read_text()
    assert module.startswith("// vizad's Graphviz module: built by `make frontend`")
    assert f"@hpcc-js/wasm-graphviz {pinned} " in module.splitlines()[0]
    assert "import(" not in module  # one file: nothing loaded at run time
    assert len(module.encode()) <= 3 * 2**20
    licences = (STATIC / "graphviz.LICENSES.txt").read_text()
    for name in ("Apache License", "Eclipse Public License - v 1.0", "Expat", pinned):
        assert name in licences
