"""The stepper as a student sees it at 1024×768 in JupyterLab with the file browser open and
vizad's extension disabled (a widget-less front end: the HTML component, not connected), in
the light and the dark theme (review of issue 36): the header is one row (the title gives
way), the graph's frame keeps 200 px, a view's note is said once (not again in the graph's
label), the frame's ink reads on the theme's page, and a step inside the "× 45" fold of
rnn(45) says which block it is at (steps 1 and 73 no longer look alike), the adjoint's box
the same block as the forward's (counted in the forward order); a wide vz.draw
drawing fits the output's width and a click shows it at its actual size."""

from __future__ import annotations

import json

import pytest
from conftest import artifact, write_notebook
from test_jupyterlab import ROOT, _open_and_run
from test_live_front_ends import _lab, _open

#: The frame's text as the page shows it: #666 on a light page, #888 (as drawn) on a dark one.
INK = {"light": "rgb(102, 102, 102)", "dark": "rgb(136, 136, 136)"}

MEASURE = """(k) => {
  const root = document.querySelectorAll('.vizad-stepper')[k];
  // one row: no taller than its controls (30 px buttons); a second row makes it 50 px or more
  const one = (row) => row.getBoundingClientRect().height <= 40;
  const svg = root.querySelector('.vz-stage svg');
  return {
    headOneRow: one(root.querySelector('.vz-head-row')),
    topOneRow: one(root.querySelector('.vz-top')),
    frame: root.querySelector('.vz-viewport').getBoundingClientRect().height,
    width: root.clientWidth,
    note: root.querySelector('.vz-note').textContent,
    label: [...svg.querySelectorAll(':scope > g > text')].map((t) => t.textContent).join(' '),
    ink: [...svg.querySelectorAll('g.cluster > text')].map((t) => getComputedStyle(t).fill),
    fold: root.querySelector('.vz-stage g#fold_v11')?.textContent.replace(/\\s+/g, ' ').trim(),
    adjoint: root.querySelector('.vz-stage g#fold_a2')?.textContent.replace(/\\s+/g, ' ').trim(),
  };
}"""


#: the lecture's walkthrough: two inputs written in the header
LECTURE = """x1, x2 = vz.Variable('x1'), vz.Variable('x2')
vz.step(vz.log(x1) + x1 * x2 - vz.sin(x2), [x1, x2], {x1: 2.0, x2: 5.0})"""

#: notebook 08's Hessian-vector product: a drawing about 2,000 px wide
HVP = """import numpy as np
A = np.array([[2.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 4.0]])
v = vz.Variable('v', shape=(3,))
f = 0.5 * vz.sum(vz.reshape(vz.matmul(vz.reshape(v, (1, 3)), vz.constant(A)), (3,)) * v)
(grad,) = vz.gradients(f, [v])
u = np.array([1.0, -1.0, 2.0])
hv = vz.trace_reverse(vz.sum(grad * u), [v], {v: np.array([0.3, -0.2, 0.5])})
vz.draw(hv, 'adjoint', step=len(hv.steps) - 1)"""

DRAWING = """() => { const img = document.querySelector('.vizad-drawing img');
  const out = img.closest('.jp-OutputArea-output').getBoundingClientRect();
  const shown = img.getBoundingClientRect().width;
  return { shown, natural: img.naturalWidth, out: out.width }; }"""


@pytest.fixture(scope="module", params=["light", "dark"])
def noext_lab(request, tmp_path_factory):
    """JupyterLab in ``request.param``'s theme without vizad's extension."""
    settings = tmp_path_factory.mktemp("settings")
    themes = settings / "@jupyterlab" / "apputils-extension"
    themes.mkdir(parents=True)
    theme = {"light": "JupyterLab Light", "dark": "JupyterLab Dark"}[request.param]
    (themes / "themes.jupyterlab-settings").write_text(json.dumps({"theme": theme}))
    env = {"JUPYTERLAB_SETTINGS_DIR": str(settings)}
    for url, root in _lab(tmp_path_factory, f"noext-{request.param}", env, True):
        yield url, root, request.param


def _go(page, k: int, which: int = 0) -> None:
    """Step ``k`` in the ``which``-th stepper of the page."""
    page.evaluate(
        "([k, w]) => { const r = document.querySelectorAll('.vizad-stepper')[w]"
        ".querySelector('.vz-slider');"
        " r.value = String(k); r.dispatchEvent(new Event('input', {bubbles: true})); }",
        [k, which],
    )
    page.wait_for_function(
        "([k, w]) => document.querySelectorAll('.vizad-stepper')[w].querySelector('.vz-counter')"
        ".textContent.startsWith(`Step ${k} of`)",
        arg=[k, which],
    )


def test_the_header_is_one_row_and_a_fold_says_where(browser, noext_lab, page_errors):
    url, root, theme = noext_lab
    notebook = root / "rnn45.ipynb"
    cells = ["import vizad as vz\n\nvz.step(vz.examples.rnn(45))", HVP, LECTURE]
    write_notebook(notebook, cells)
    context, page, where = _open(browser, page_errors, url, notebook)
    page.set_viewport_size({"width": 1024, "height": 768})
    _open_and_run(page, where, f"noext-{theme}")
    assert page.locator(".jp-FileBrowser").is_visible()  # the file browser open
    page.wait_for_function("() => document.querySelectorAll('.vizad-stepper').length === 2")
    page.wait_for_function(  # the HTML component: each says it is not connected (once it knows)
        f"() => document.querySelectorAll('{ROOT} .vz-offline').length === 2", timeout=30_000
    )
    page.locator(ROOT).first.scroll_into_view_if_needed()
    seen = {}
    for k in (1, 73):
        _go(page, k)
        seen[k] = page.evaluate(MEASURE, 0)
        page.screenshot(path=artifact(f"noext-{theme}-rnn45-step{k}.png"))
    first, middle = seen[1], seen[73]
    assert 540 <= first["width"] <= 640, first  # the output's width at 1024×768
    assert first["headOneRow"] and first["topOneRow"], first
    assert first["frame"] >= 200 and middle["frame"] >= 200, (first, middle)
    assert "repeated steps drawn once per run" in first["note"]
    assert "repeated steps" not in first["label"] and "Adjoint graph" in first["label"]
    assert first["ink"] and set(first["ink"]) == {INK[theme]}, first["ink"]
    assert "now: v₁₄₅, block 45 of 45" in first["fold"], first["fold"]
    assert "now: v₇₃, block 21 of 45" in middle["fold"], middle["fold"]
    # the adjoint's box counts its blocks as the forward computation does (made from the last
    # time step back): at step 73 it names the same block; at step 1 (the seed) nothing of it
    assert "now: v̄₇₃, block 21 of 45" in middle["adjoint"], middle["adjoint"]
    assert "now:" not in first["adjoint"] and "each:" in first["adjoint"], first
    # the drawing: whole in the output, then (a click) at its actual size, the output scrolling
    page.wait_for_selector(".vizad-drawing img")
    fitted = page.evaluate(DRAWING)
    assert fitted["natural"] > 2.5 * fitted["out"] and fitted["shown"] <= fitted["out"], fitted
    page.locator(".vizad-drawing img").click()
    page.wait_for_function(
        "() => document.querySelector('.vizad-drawing img').getBoundingClientRect().width > 1000"
    )
    whole = page.evaluate(DRAWING)
    assert whole["shown"] == pytest.approx(whole["natural"], abs=1), whole
    page.screenshot(path=artifact(f"noext-{theme}-drawing-actual-size.png"))
    # the lecture's header: its two inputs (read-only: the offline row says why) in one row
    page.locator(ROOT).nth(1).scroll_into_view_if_needed()
    _go(page, 4, which=1)
    lecture = page.evaluate(MEASURE, 1)
    page.screenshot(path=artifact(f"noext-{theme}-lecture-step4.png"))
    assert lecture["headOneRow"] and lecture["topOneRow"] and lecture["frame"] >= 200, lecture
    context.close()
    assert not page_errors.errors, "\n".join(page_errors.errors)
