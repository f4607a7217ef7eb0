"""The component once per kernel process (issue 50 item 3), live in JupyterLab: the first
stepper's widget model carries the component's module and CSS, the others' a shim
(static/shim.js) that renders with the component loaded in the page. Each stepper shows and
steps on its own; with the carrier closed and the page reloaded, the shims get what the page
lacks from the kernel (the CSS; the component, unless an output's HTML loaded it), and step
again, styled."""

from __future__ import annotations

import json
import urllib.request

from conftest import kernel_connected, wait_until, write_notebook

ROOT = ".vizad-stepper"
CELLS = [
    "import vizad as vz\nfirst = vz.step(vz.examples.lecture())  # the carrier, not shown",
    "second = vz.step(vz.examples.lecture())\nsecond",
    "third = vz.step(vz.examples.lecture(), step=3)\nthird",
    "assert first._esm != second._esm == third._esm\nfirst.close()",
]


def _delete_sessions(url: str) -> None:
    for s in json.load(urllib.request.urlopen(f"{url}/api/sessions")):
        req = urllib.request.Request(f"{url}/api/sessions/{s['id']}", method="DELETE")
        urllib.request.urlopen(req)


def _run_all(page, url: str) -> None:
    for attempt in range(3):  # a click before the kernel is connected can be lost
        kernel_connected(url)
        page.locator(".lm-MenuBar-item", has_text="Run").click()
        page.locator(".lm-Menu-item[data-command='runmenu:run-all']").click()
        try:
            _two_steppers(page)
            return
        except Exception:
            if attempt == 2:
                raise


def _two_steppers(page, timeout: float = 30_000) -> None:
    page.wait_for_function(
        f"() => document.querySelectorAll('{ROOT} .vz-stage svg').length === 2", timeout=timeout
    )


def _steps(page, at: int) -> None:
    """Each stepper at its own step (the second at ``at``), and each steps by its own
    buttons."""
    # text_content, not inner_text: the state, not the rendering (in one full run the first
    # counter's innerText was '' after the second stepper stepped: its output not rendered at
    # that moment, presumably scrolled out of JupyterLab's windowed notebook)
    counters = page.locator(f"{ROOT} .vz-counter")
    assert counters.nth(0).text_content().startswith("Step 1 of 7")
    assert counters.nth(1).text_content().startswith(f"Step {at} of 7")
    page.locator(ROOT).nth(1).locator(".vz-next").click()
    page.wait_for_function(
        f"() => document.querySelectorAll('{ROOT} .vz-counter')[1]"
        f".textContent.startsWith('Step {at + 1} of 7')"
    )
    assert counters.nth(0).text_content().startswith("Step 1 of 7")
    # styled: the component's CSS (static/stepper.css) is in the page, for each stepper
    accents = page.evaluate(
        f"() => [...document.querySelectorAll('{ROOT}')]"
        ".map((e) => getComputedStyle(e).getPropertyValue('--vz-accent').trim())"
    )
    assert accents == ["#0072b2", "#0072b2"], accents


def test_later_steppers_use_the_component_sent_once(browser, jupyterlab, page_errors):
    url, root = jupyterlab
    write_notebook(root / "component-once.ipynb", CELLS)
    _delete_sessions(url)
    context = browser.new_context(viewport={"width": 1024, "height": 900})
    page = page_errors(context.new_page())
    page.goto(f"{url}/lab/tree/component-once.ipynb?reset")
    page.wait_for_selector(".jp-Notebook", timeout=60_000)
    _run_all(page, url)
    _steps(page, 3)
    # the carrier was closed (the last cell): reloaded, the page has no copy of the
    # component but the kernel's answer to the shims
    page.wait_for_function(
        "() => [...document.querySelectorAll('.jp-InputArea-prompt')]"
        ".every((p) => !p.textContent.includes('*'))"
    )
    page.keyboard.press("Control+s")  # the outputs saved, the kernel kept
    notebook = root / "component-once.ipynb"
    cells = lambda: json.loads(notebook.read_text())["cells"]  # noqa: E731
    wait_until(lambda: sum(bool(c.get("outputs")) for c in cells()) >= 2, what="saved")
    page.reload()
    page.wait_for_selector(".jp-Notebook", timeout=60_000)
    kernel_connected(url)
    # the outputs' HTML first, then the kernel's widgets once the manager restores them
    # (frontend/labextension), the shims with the component and the kernel's copy of the CSS
    page.wait_for_function(
        f"() => document.querySelectorAll('.vizad-walkthrough[data-shown=live] {ROOT} "
        ".vz-stage svg').length === 2",
        timeout=90_000,
    )
    assert page.locator(f"{ROOT} .vz-offline").count() == 0
    assert page.evaluate("() => document.getElementById('vizad-stepper-style') !== null")
    _steps(page, 4)
    context.close()
    assert not page_errors.errors, "\n".join(page_errors.errors)


def test_a_saved_notebook_reopened_without_its_kernel_steps_its_widgets(
    browser, jupyterlab, page_errors
):
    """Saved with its widget state (the fixture's JupyterLab saves it) and reopened with the
    kernel gone: the models restored from the notebook, the carrier's among them, give the
    shims the component and its CSS; both steppers show and step."""
    url, root = jupyterlab
    write_notebook(root / "reopen-once.ipynb", CELLS[:3])
    _delete_sessions(url)
    context = browser.new_context(viewport={"width": 1024, "height": 900})
    page = page_errors(context.new_page())
    page.goto(f"{url}/lab/tree/reopen-once.ipynb?reset")
    page.wait_for_selector(".jp-Notebook", timeout=60_000)
    _run_all(page, url)
    page.keyboard.press("Control+s")
    notebook = root / "reopen-once.ipynb"
    saved = lambda: json.loads(notebook.read_text())  # noqa: E731
    wait_until(lambda: sum(bool(c.get("outputs")) for c in saved()["cells"]) >= 2, what="saved")
    state = saved()["metadata"]["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]
    modules = sorted(len(m["state"]["_esm"]) for m in state.values() if "_esm" in m["state"])
    assert len(modules) == 3 and modules[1] == modules[0] < 5000 < modules[2]  # one carrier
    _delete_sessions(url)  # the kernel is gone
    page.close()
    page = page_errors(context.new_page())
    page.goto(f"{url}/lab/tree/reopen-once.ipynb")
    page.wait_for_selector(".jp-Notebook", timeout=60_000)
    _two_steppers(page, timeout=60_000)
    _steps(page, 3)
    context.close()
    assert not page_errors.errors, "\n".join(page_errors.errors)
