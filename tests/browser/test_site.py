"""The JupyterLite site of the tutorials (`make site`, built into build/site/ before the tests
by `make test`): served from a plain static file server with every request off this machine
blocked (Pyodide's CDN included, so no kernel ever starts), each tutorial's stored walkthroughs
open at their saved steps and step with the keys — what a student sees of a course site before
the kernel has loaded, or with no network at all."""

from __future__ import annotations

import functools
import http.server
import json
import threading
from pathlib import Path

import pytest

from built import require
from conftest import REPO, artifact

SITE = REPO / "build" / "site"
MIME = "application/vnd.vizad.walkthrough+json"
ROOT = ".vizad-walkthrough .vizad-stepper"
NOTEBOOK = ".jp-NotebookPanel:not(.lm-mod-hidden)"


def saved_steps(notebook: Path) -> list[int]:
    """The saved step of every walkthrough stored in a notebook, in order."""
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    outputs = [o for c in cells if c["cell_type"] == "code" for o in c.get("outputs", [])]
    return [o["data"][MIME]["step"] for o in outputs if MIME in o.get("data", {})]


WALKTHROUGHS = {
    nb.name: saved_steps(nb)
    for nb in sorted((REPO / "notebooks").glob("*.ipynb"))
    if saved_steps(nb)
}


@pytest.fixture(scope="module")
def site():
    require(SITE / "index.html", "make site")
    handler = functools.partial(_QuietHandler, directory=str(SITE))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 (the base class's name)
        pass


def test_the_site_holds_vizad_its_extension_and_every_tutorial():
    config = json.loads((SITE / "jupyter-lite.json").read_text())["jupyter-config-data"]
    extensions = {e["name"] for e in config["federated_extensions"]}
    assert {"vizad", "@jupyter-widgets/jupyterlab-manager", "anywidget"} <= extensions
    wheels = {p.name.split("-")[0] for p in (SITE / "pypi").glob("*.whl")}
    assert {"vizad", "graphviz", "anywidget", "ipywidgets"} <= wheels
    for source in sorted((REPO / "notebooks").glob("*.ipynb")):
        served = json.loads((SITE / "files" / source.name).read_text(encoding="utf-8"))
        first = served["cells"][0]
        assert "%pip install -q vizad" in first["source"], source.name
        code = [c for c in served["cells"] if c["cell_type"] == "code"]
        assert all(c["metadata"]["trusted"] for c in code), source.name
        # strings joined: JupyterLite serves files as they are, and a list would be shown
        # with commas between its lines
        for cell in code:
            for output in cell.get("outputs", []):
                assert all(isinstance(v, str | dict) for v in output.get("data", {}).values())
        assert saved_steps(SITE / "files" / source.name) == saved_steps(source)


@pytest.mark.parametrize("name", sorted(WALKTHROUGHS))
def test_each_stored_walkthrough_steps_in_the_site_without_a_kernel(
    browser, site, page_errors, name
):
    context = browser.new_context(viewport={"width": 1024, "height": 768})
    off_machine: list[str] = []

    def block(route):
        off_machine.append(route.request.url)
        route.abort()

    context.route(lambda url: not url.startswith(site), block)
    page = page_errors(context.new_page())
    page.goto(f"{site}/lab/index.html?path={name}")
    page.wait_for_selector(f"{NOTEBOOK} .jp-Notebook .jp-Cell", timeout=60_000)
    expected = WALKTHROUGHS[name]
    for k, step in enumerate(expected):
        root = _scroll_to_walkthrough(page, k)
        counter = root.locator(".vz-counter")
        total = int(counter.inner_text().split(" of ")[1].split(":")[0])
        assert counter.inner_text().startswith(f"Step {step} of {total}"), counter.inner_text()
        forward = step < total
        counter.click()  # the component has the keys
        page.keyboard.press("ArrowRight" if forward else "ArrowLeft")
        moved = step + 1 if forward else step - 1
        page.wait_for_function(
            "([el, text]) => el.innerText.startsWith(text)",
            arg=[counter.element_handle(), f"Step {moved} of {total}"],
        )
    page.screenshot(path=artifact(f"site-{name}.png"))
    context.close()
    # the Pyodide kernel's own requests to its CDN are refused (no network here): its errors
    # are expected; nothing else may fail
    assert any("pyodide" in url for url in off_machine), off_machine
    ours = [
        e
        for e in page_errors.errors
        if "pyodide" not in e.lower() and "Failed to load resource" not in e
    ]
    assert not ours, "\n".join(ours)


def _scroll_to_walkthrough(page, k: int):
    """The k-th walkthrough of the open notebook, once rendered (the site renders every cell
    when the notebook is idle: windowingMode "defer"), scrolled into view."""
    root = page.locator(f"{NOTEBOOK} {ROOT}").nth(k)
    root.locator(".vz-counter").wait_for(state="attached", timeout=60_000)
    root.scroll_into_view_if_needed()
    return root


def test_a_kernel_that_did_not_start_says_why_and_what_to_do(browser, site, page_errors):
    """With Pyodide's CDN out of reach the kernel never starts: JupyterLab shows a red ⊗ and
    "Unknown"; vizad's extension (frontend/labextension/src/site.js) says above the notebook
    what did not load and what to do (issue 44, item 5)."""
    context = browser.new_context(viewport={"width": 1024, "height": 768})
    context.route(lambda url: not url.startswith(site), lambda route: route.abort())
    page = page_errors(context.new_page())
    page.goto(f"{site}/lab/index.html?path=05_reverse_mode.ipynb")
    page.wait_for_selector(f"{NOTEBOOK} .jp-Notebook .jp-Cell", timeout=60_000)
    note = page.locator(f"{NOTEBOOK} .vz-kernel-note")
    note.wait_for(state="visible", timeout=60_000)
    text = note.inner_text()
    page.screenshot(path=artifact("site-kernel-did-not-start.png"))
    assert text.startswith("The Python kernel did not start."), text
    assert "could not be loaded from https://" in text and "pyodide" in text, text
    assert "reload the page" in text and "make site PYODIDE=" in text, text
    assert note.get_attribute("role") == "alert"
    box = note.bounding_box()  # shown whole above the notebook, not overlapped
    cell = page.locator(f"{NOTEBOOK} .jp-Cell").first.bounding_box()
    assert box["height"] > 30 and box["y"] + box["height"] <= cell["y"] + 1, (box, cell)
    context.close()
    ours = [e for e in page_errors.errors if "pyodide" not in e.lower()]
    assert not ours, "\n".join(ours)
