"""Walkthroughs that survive: in JupyterLab and Notebook 7 with their default settings (widget
state not saved), a stepper run to step 6, saved, its kernel shut down and the page reloaded
shows "Step 6 of 7" and steps on, without the notebook being marked modified; with the kernel,
Python and the page stay one step. `jupyter nbconvert --to html` (with and without
--execute) gives pages that step with every non-file request blocked."""

from __future__ import annotations

import base64
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
from conftest import (
    REPO,
    artifact,
    read_json,
    kernel_connected,
    settled,
    wait_until,
    write_notebook,
)
from test_jupyterlab import ROOT, _delete_sessions, _open_and_run, _run_in_new_cell, _wait_step

MIME = "application/vnd.vizad.walkthrough+json"
CELL = "import vizad as vz\n\nstepper = vz.Stepper(vz.examples.lecture())\nstepper"


def _walkthrough_outputs(path: Path) -> list[dict]:
    nb = read_json(path)
    return [o for c in nb["cells"] for o in c.get("outputs", []) if MIME in o.get("data", {})]


def _modified(page) -> bool:
    """Whether JupyterLab / Notebook 7 hold unsaved changes: closing the page then asks
    whether to leave (both apps' "beforeunload" handler). A dismissed question keeps the page
    open; a page without changes closes."""
    asked = []

    def on_dialog(dialog):
        asked.append(dialog.type)
        dialog.dismiss()

    page.on("dialog", on_dialog)
    page.locator(f"{ROOT} .vz-title").click()  # Chromium asks only after a user gesture
    settled(page)
    try:
        with page.expect_event("close", timeout=5_000):
            page.close(run_before_unload=True)
    except PlaywrightTimeoutError:
        pass
    assert asked or page.is_closed(), "the page neither closed nor asked"
    page.remove_listener("dialog", on_dialog)
    return asked == ["beforeunload"]


def _counter(page) -> str:
    return page.locator(f"{ROOT} .vz-counter").inner_text()


def _press(page, key: str, k: int) -> None:
    page.locator(f"{ROOT} .vz-counter").click()  # the component has the keys
    page.keyboard.press(key)
    _wait_step(page, k, timeout=20_000)


def _convert(notebook: Path, *options: str) -> Path:
    """`jupyter nbconvert --to html` of ``notebook`` (its kernels import this checkout)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    subprocess.run(
        [sys.executable, "-m", "jupyter", "nbconvert", "--to", "html", *options, notebook.name],
        cwd=notebook.parent,
        check=True,
        capture_output=True,
        env=env,
    )
    return notebook.with_suffix(".html")


def _steps_offline(browser, page_errors, html: Path, start: int, name: str) -> None:
    """Open ``html`` with every request but file: ones aborted: the walkthrough shows step
    ``start``, and → and ← step it."""
    context = browser.new_context(viewport={"width": 1024, "height": 768})
    blocked = []

    def route(r):
        if r.request.url.startswith("file:"):
            r.continue_()
        else:
            blocked.append(r.request.url)
            r.abort()

    context.route("**/*", route)
    page = page_errors(context.new_page())
    page.goto(html.as_uri())
    page.wait_for_selector(f"{ROOT} .vz-panel", timeout=20_000)
    _wait_step(page, start)
    page.keyboard.press("Escape")
    nxt = min(start + 1, 7)
    _press(page, "ArrowRight", nxt)
    assert (
        page.locator(f"{ROOT} .vz-sum").inner_text().strip().endswith("= 5.5" if nxt == 7 else "")
    )
    _press(page, "ArrowLeft", nxt - 1)
    page.screenshot(path=artifact(f"{name}.png"))
    context.close()
    # nbconvert's page asks CDNs for require.js, MathJax and (with widget state) the widget
    # manager: blocked, each a "Failed to load resource" in the console; nothing else
    ours = [e for e in page_errors.errors if "Failed to load resource" not in e]
    page_errors.errors.clear()
    assert not ours, "\n".join(ours)
    print(f"\n{name}: {html.stat().st_size / 1e3:.0f} kB, blocked {len(blocked)} requests")


def _static_picture_shows(browser, html: str, page_path: Path, app: str) -> None:
    """The output's HTML where scripts never run (GitHub, nbviewer): the saved step's picture
    (v₂ highlighted, as the component drew it) and panel."""
    picture = re.search(r'src="data:image/svg\+xml;base64,([^"]+)"', html).group(1)
    svg = base64.b64decode(picture).decode()
    current = re.search(r'<g id="v2"[^>]*>.*?</g>', svg, re.S).group(0)
    assert "fill:rgb(240, 228, 66)" in current.replace("fill: ", "fill:"), current[:400]
    page_path.write_text(f"<!doctype html><meta charset='utf-8'><body>{html}</body>")
    context = browser.new_context(
        java_script_enabled=False, viewport={"width": 1024, "height": 768}
    )
    page = context.new_page()
    page.goto(page_path.as_uri())
    head = page.locator(".vz-panel .vz-head").inner_text()
    assert head.startswith("Step 6 of 7: v₂"), head
    assert "1.716" in page.locator(".vz-panel .vz-sum").inner_text()
    img = page.locator("img[src^='data:image/svg+xml']")
    assert img.evaluate("(i) => i.naturalWidth") > 300
    # the picture the lab extension wrote at step 6 (DOM calls, frontend/labextension/src):
    # one, readable (snapshot.py's rule), saying how to trust the notebook, as Python's does
    from vizad.view.widget.snapshot import STATIC_NOTE, picture_style

    assert html.count('class="vizad-stepper"') == 1 and html.count("vz-trust") == 1
    assert page.locator(".vz-trust").inner_text() == STATIC_NOTE
    style = img.get_attribute("style")
    assert re.fullmatch(r"width:100%;min-width:\d+px;max-width:\d+px;height:auto", style), style
    assert img.get_attribute("alt").startswith("Reverse trace of v")
    assert page.locator(".vz-title").inner_text() == img.get_attribute("alt")
    least = int(re.search(r"min-width:(\d+)px", style)[1])
    assert abs(least - int(re.search(r"min-width:(\d+)px", picture_style(svg))[1])) <= 2
    page.screenshot(path=artifact(f"saved-{app}-static.png"), full_page=True)
    context.close()


def _run_save_reload(browser, url: str, root: Path, app: str, page_errors) -> Path:
    """Run the walkthrough, move it from Python and from the page to step 6, save, shut the
    kernel down, reload: step 6 shown, not modified, → gives step 7. Returns the notebook."""
    notebook = root / f"saved-{app}.ipynb"
    write_notebook(notebook, [CELL])
    fresh = notebook.stat().st_size
    _delete_sessions(url)
    context = browser.new_context(viewport={"width": 1024, "height": 768})
    page = page_errors(context.new_page())
    where = (
        f"{url}/lab/tree/{notebook.name}?reset"
        if app == "lab"
        else f"{url}/notebooks/{notebook.name}"
    )
    _open_and_run(page, where, f"saved-{app}")
    _wait_step(page, 1)
    assert page.locator(".vizad-walkthrough").get_attribute("data-shown") == "live"
    # the live widget: Python moves the page, the page moves Python
    _run_in_new_cell(page, "stepper.step = 4")
    _wait_step(page, 4, timeout=20_000)
    _press(page, "ArrowRight", 5)
    _press(page, "ArrowRight", 6)
    _run_in_new_cell(page, "print('python step', stepper.step)")
    page.wait_for_selector("text=python step 6", timeout=20_000)
    page.locator(f"{ROOT} .vz-counter").click()
    page.keyboard.press("Control+s")
    wait_until(
        lambda: (s := _walkthrough_outputs(notebook)) and s[0]["data"][MIME]["step"] == 6,
        what="the notebook saved at step 6",
    )
    saved = _walkthrough_outputs(notebook)
    assert len(saved) == 1 and saved[0]["data"][MIME] == {"step": 6}, saved
    html = "".join(saved[0]["data"]["text/html"])  # stored as a list of lines
    assert 'data-vizad-step="6"' in html
    assert "application/vnd.jupyter.widget-view+json" not in saved[0]["data"]
    assert "widgets" not in read_json(notebook)["metadata"]  # default settings
    _static_picture_shows(browser, html, root / f"github-{app}.html", app)
    html_kb = len(html.encode()) / 1e3
    print(
        f"\n{app}: notebook {fresh / 1e3:.1f} kB before running, "
        f"{notebook.stat().st_size / 1e3:.0f} kB saved (the output's HTML: {html_kb:.0f} kB)"
    )
    # reloaded while the kernel runs: the output goes back to the live widget (its model
    # restored from the kernel): Python moves the page again, and the page Python
    page.reload()
    page.wait_for_selector(f"{ROOT} .vz-counter", timeout=60_000)
    _wait_step(page, 6)
    page.wait_for_selector(".vizad-walkthrough[data-shown='live']", timeout=30_000)
    _run_in_new_cell(page, "stepper.step = 2")
    _wait_step(page, 2, timeout=20_000)
    for k in range(3, 7):
        _press(page, "ArrowRight", k)
    _run_in_new_cell(page, "print('python after reload', stepper.step)")
    page.wait_for_selector("text=python after reload 6", timeout=20_000)
    page.locator(f"{ROOT} .vz-counter").click()
    written = notebook.stat().st_mtime_ns
    page.keyboard.press("Control+s")
    wait_until(lambda: notebook.stat().st_mtime_ns != written, what="the notebook saved again")
    assert _walkthrough_outputs(notebook)[0]["data"][MIME] == {"step": 6}  # parsed once whole
    _delete_sessions(url)  # the kernel is shut down
    page.reload()
    page.wait_for_selector(".jp-Notebook", timeout=60_000)
    page.wait_for_selector(f"{ROOT} .vz-counter", timeout=30_000)
    _wait_step(page, 6)
    # the new kernel's widget manager restores (nothing of ours) and nothing is written
    kernel_connected(url)
    settled(page, 10)
    assert page.locator(".vizad-walkthrough").get_attribute("data-shown") == "page"
    page.screenshot(path=artifact(f"saved-{app}-reopened.png"))
    assert _counter(page).startswith("Step 6 of 7")
    assert not page.get_by_text("model not found").count()
    assert not _modified(page), "opening marked the notebook modified"
    page = page_errors(context.new_page())  # the page closed: open the notebook once more
    page.goto(where.replace("?reset", ""))
    page.wait_for_selector(f"{ROOT} .vz-counter", timeout=60_000)
    _wait_step(page, 6)
    _press(page, "ArrowRight", 7)
    assert page.locator(f"{ROOT} .vz-sum").inner_text().strip().endswith("= 5.5")
    page.locator(".jp-OutputArea-output", has=page.locator(ROOT)).screenshot(
        path=artifact(f"saved-{app}-step7.png")
    )
    # stepping is a change of the notebook (the step to reopen at)
    assert _modified(page), "stepping did not mark the notebook modified"
    context.close()
    # Notebook 7 raises this on every load, with or without vizad (a plugin's settings schema
    # is missing; see test_jupyterlab.py's test_stepper_in_notebook7)
    ours = [e for e in page_errors.errors if "(reading 'schema')" not in e or app == "lab"]
    assert not ours, "\n".join(ours)
    return notebook


def test_saved_walkthrough_in_jupyterlab(browser, jupyterlab_defaults, page_errors, tmp_path):
    url, root = jupyterlab_defaults
    notebook = _run_save_reload(browser, url, root, "lab", page_errors)
    # the saved notebook in nbconvert's page opens at the saved step and steps offline
    copy = tmp_path / "saved.ipynb"
    copy.write_text(notebook.read_text())
    _steps_offline(browser, page_errors, _convert(copy), 6, "nbconvert-saved")


def test_saved_walkthrough_in_notebook7(browser, notebook7, page_errors):
    url, root = notebook7
    _run_save_reload(browser, url, root, "notebook7", page_errors)


@pytest.mark.slow
def test_nbconvert_html_steps_offline(browser, page_errors, tmp_path):
    """--execute stores the widget state; the page still shows the output's own HTML (the
    component inlined), never the widget manager that a CDN would load."""
    notebook = tmp_path / "lecture.ipynb"
    write_notebook(notebook, [CELL])
    html = _convert(notebook, "--execute")
    assert "application/vnd.vizad.walkthrough" not in html.read_text()  # the HTML was chosen
    _steps_offline(browser, page_errors, html, 1, "nbconvert-execute")
    # a notebook executed and saved with its widget state, converted without --execute
    env = dict(os.environ, PYTHONPATH=str(REPO))
    subprocess.run(
        [
            sys.executable,
            "-m",
            "jupyter",
            "nbconvert",
            "--to",
            "notebook",
            "--execute",
            "--output",
            "executed.ipynb",
            notebook.name,
        ],  # fmt: skip
        cwd=tmp_path,
        check=True,
        capture_output=True,
        env=env,
    )
    executed = tmp_path / "executed.ipynb"
    assert "widgets" in json.loads(executed.read_text())["metadata"]
    _steps_offline(browser, page_errors, _convert(executed), 1, "nbconvert-widget-state")
