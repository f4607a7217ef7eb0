"""Drawings of hostile names in a real browser: the exported pages (laid out by ``dot`` and by
Graphviz in the page) and the live JupyterLab widget, drawn from 50 names that try to add a
node, an edge, a link or a script (tests/hostile_names.py; eager tensors, micrograd labels,
needle ops, the 599W skeleton, PyTorch parameters). Every box and edge of every view is
clicked and hovered: no script runs (a flag no dialog, no navigation), no element carries a
link or an event handler, and every name is there as text."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import vizad as vz
from vizad.view.render.dot import visible

from conftest import artifact, write_notebook
from test_jupyterlab import _delete_sessions, _open_and_run

TESTS = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(TESTS))
import hostile_names  # noqa: E402

pytestmark = pytest.mark.hostile_names
ROOT = ".vizad-stepper"
#: What no element of a drawing may carry.
UNSAFE = (
    "() => [...document.querySelectorAll('.vizad-stepper .vz-stage *')].flatMap(e =>"
    " [...e.attributes].filter(a => /^on/i.test(a.name) || /href$/i.test(a.name) ||"
    " /^\\s*(javascript|data):/i.test(a.value)).map(a => e.tagName + ' ' + a.name))"
    ".concat([...document.querySelectorAll('.vizad-stepper script, .vizad-stepper"
    " foreignObject')].map(e => e.tagName))"
)


#: Click every box and edge of the stage, and every element in them (a link would be
#: followed), and hover each: the tooltips' text.
CLICK_ALL = """root => {
  let tips = "";
  for (const g of root.querySelectorAll(".vz-stage g.node, .vz-stage g.edge")) {
    for (const e of [g, ...g.querySelectorAll("*")]) {
      e.dispatchEvent(new MouseEvent("click", { bubbles: true, cancelable: true, view: window }));
    }
    g.dispatchEvent(new MouseEvent("mouseover", { bubbles: true, clientX: 10, clientY: 10 }));
    const tip = root.querySelector(".vz-tip");
    if (tip && tip.style.display !== "none") tips += "\\n" + tip.textContent;
  }
  return tips;
}"""


def _squeeze(text: str) -> str:
    return "".join(text.split())


def _walk(page, root, names: list[str], what: str) -> None:
    """Every view of the stepper at ``root``: each box and edge clicked and hovered; then
    nothing ran and every name is shown (in a box, or in its tooltip when cut there)."""
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    url = page.url
    seen = ""
    views = [b.get_attribute("data-view") for b in root.locator(".vz-view").all()]
    for view in views:
        root.locator(f".vz-view[data-view='{view}']").click()
        page.wait_for_function(
            "(r) => r.dataset.layout === 'done' && r.querySelector('.vz-stage svg')",
            arg=root.element_handle(),
            timeout=60_000,
        )
        seen += root.locator(".vz-stage").inner_text() + root.locator(".vz-stage").evaluate(
            "s => s.textContent"
        )
        seen += root.evaluate(CLICK_ALL)
        frame = root.locator(".vz-viewport").bounding_box()  # and a click with the mouse
        page.mouse.click(frame["x"] + frame["width"] / 2, frame["y"] + frame["height"] / 2)
        assert page.evaluate(UNSAFE) == [], (what, view)
    assert page.evaluate(f"() => window['{hostile_names.FLAG}']") is None, what
    assert dialogs == [] and page.url == url, (what, dialogs, page.url)
    # an op's name is read as TeX, where ' is a prime: shown ′
    shown = _squeeze(seen).replace("′", "'")
    missing = [n for n in names if _squeeze(visible(n)).replace("′", "'") not in shown]
    assert not missing, (what, missing)


@pytest.mark.parametrize("layout", ["dot", "browser"])
def test_pages_of_hostile_names_run_no_script(browser, tmp_path, page_errors, monkeypatch, layout):
    monkeypatch.setenv("VIZAD_LAYOUT", layout)
    page = page_errors(browser.new_page(viewport={"width": 1280, "height": 900}))
    for source, names in hostile_names.by_source().items():
        path = vz.export_html(hostile_names.SOURCES[source](names), tmp_path / f"{source}.html")
        page.goto(path.as_uri())
        page.wait_for_selector(f"{ROOT} .vz-panel")
        _walk(page, page.locator(ROOT).first, names, f"{source} page ({layout})")
        if source == "eager":
            page.screenshot(path=artifact(f"hostile-names-{layout}.png"))
    page.close()
    assert not page_errors.errors, "\n".join(page_errors.errors)


def test_the_live_widget_of_hostile_names_runs_no_script(browser, jupyterlab, page_errors):
    url, root = jupyterlab
    sources = list(hostile_names.SOURCES)
    cells = [
        f"import sys\nsys.path.insert(0, {str(TESTS)!r})\nimport vizad as vz\n"
        "import hostile_names as h\nnames = h.by_source()"
    ] + [f"vz.step(h.SOURCES[{s!r}](names[{s!r}]))" for s in sources]
    write_notebook(root / "hostile.ipynb", cells)
    _delete_sessions(url)
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = page_errors(context.new_page())
    _open_and_run(page, f"{url}/lab/tree/hostile.ipynb?reset", "hostile")
    page.wait_for_function(
        f"() => document.querySelectorAll('{ROOT} .vz-stage svg').length === {len(sources)}",
        timeout=120_000,
    )
    for k, (source, names) in enumerate(hostile_names.by_source().items()):
        stepper = page.locator(ROOT).nth(k)
        stepper.scroll_into_view_if_needed()
        _walk(page, stepper, names, f"{source} in JupyterLab")
    page.screenshot(path=artifact("hostile-names-jupyterlab.png"))
    context.close()
    assert not page_errors.errors, "\n".join(page_errors.errors)
