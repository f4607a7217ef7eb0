"""Live in every front end (issue 35), in headless Chromium: a notebook executed headless opens
at the author's step (``st.step = 6`` in a later cell) in nbconvert's page offline; the HTML
fallback without ``dot`` lays the graph out in the page and steps offline; a notebook of 20
walkthroughs carries the component once, and every walkthrough in it steps."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from conftest import REPO, artifact, without_dot, write_notebook
from test_jupyterlab import ROOT

LECTURE = "import vizad as vz\n\nst = vz.Stepper(vz.examples.lecture())\nst"
COMPONENT_MARK = "globalThis.vizadComponent ??="


def _execute(notebook: Path, env: dict[str, str] | None = None) -> Path:
    """``notebook`` executed headless (nbconvert's nbclient, as Jupyter Book and MyST do),
    with this checkout's vizad and ``env``; then converted to HTML."""
    env = dict(os.environ if env is None else env)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    jupyter = [sys.executable, "-m", "jupyter", "nbconvert"]
    run = {"cwd": notebook.parent, "check": True, "capture_output": True, "env": env}
    subprocess.run([*jupyter, "--to", "notebook", "--execute", "--inplace", notebook.name], **run)
    subprocess.run([*jupyter, "--to", "html", notebook.name], **run)
    return notebook.with_suffix(".html")


def _offline_page(browser, page_errors, html: Path):
    """``html`` opened with every request but file: ones aborted."""
    context = browser.new_context(viewport={"width": 1100, "height": 800})
    context.route(
        "**/*", lambda r: r.continue_() if r.request.url.startswith("file:") else r.abort()
    )
    page = page_errors(context.new_page())
    page.goto(html.as_uri())
    return context, page


def _counters(page) -> list[str]:
    return page.locator(f"{ROOT} .vz-counter").all_inner_texts()


def _ours(page_errors) -> list[str]:
    # nbconvert's page asks CDNs for require.js and MathJax: blocked, "Failed to load resource"
    errors = [e for e in page_errors.errors if "Failed to load resource" not in e]
    page_errors.errors.clear()
    return errors


def test_headless_build_opens_at_the_authors_step(browser, page_errors, tmp_path):
    """``st.step = 6`` in the second cell updates the first cell's output by its display id:
    the executed notebook and its nbconvert page open at "Step 6 of 7", step offline, and say
    they are not connected to Python."""
    notebook = tmp_path / "authored.ipynb"
    write_notebook(
        notebook, [LECTURE, "st.step = 6", "st2 = vz.step(vz.examples.lecture(), step=4)\nst2"]
    )
    html = _execute(notebook)
    text = notebook.read_text()
    assert text.count('data-vizad-step=\\"6\\"') == 1 and text.count('data-vizad-step=\\"4\\"') == 1
    context, page = _offline_page(browser, page_errors, html)
    page.wait_for_function(
        "() => document.querySelectorAll('.vizad-stepper .vz-counter').length === 2"
    )
    counters = _counters(page)
    assert counters[0].startswith("Step 6 of 7") and counters[1].startswith("Step 4 of 7"), counters
    note = page.locator(f"{ROOT} .vz-offline").first
    assert (
        note.inner_text() == "not connected to Python: stepping here does not change `stepper.step`"
    )
    assert page.locator(f"{ROOT} .vz-offline").count() == 2  # once per walkthrough
    page.locator(f"{ROOT} .vz-counter").first.click()
    page.keyboard.press("ArrowRight")
    page.wait_for_function(
        "() => document.querySelector('.vizad-stepper .vz-counter').textContent"
        ".startsWith('Step 7 of 7')"
    )
    page.screenshot(path=artifact("headless-authored-step.png"))
    context.close()
    assert not _ours(page_errors)


def test_html_fallback_without_dot_lays_out_and_steps(browser, page_errors, tmp_path):
    """No ``dot`` on the kernel's PATH and VIZAD_LAYOUT=browser: the output's HTML carries the
    Graphviz module once, and nbconvert's page lays both walkthroughs out in the browser and
    steps them offline."""
    notebook = tmp_path / "nodot.ipynb"
    write_notebook(
        notebook,
        [
            "import shutil\nassert shutil.which('dot') is None\n" + LECTURE,
            "fw = vz.step(vz.examples.lecture_forward(), step=2)\nfw",
        ],
    )
    html = _execute(notebook, {**without_dot(), "VIZAD_LAYOUT": "browser"})
    text = html.read_text()
    assert text.count('id="vizad-graphviz"') == 1 and text.count(COMPONENT_MARK) == 1
    context, page = _offline_page(browser, page_errors, html)
    page.wait_for_function(
        "() => [...document.querySelectorAll('.vizad-stepper')]"
        ".filter((r) => r.dataset.layout === 'done' && r.querySelector('.vz-stage svg'))"
        ".length === 2",
        timeout=60_000,
    )
    assert page.locator(f"{ROOT} .vz-stage svg g.node").count() > 10
    counters = _counters(page)
    assert counters[0].startswith("Step 1 of 7") and counters[1].startswith("Step 2 of"), counters
    page.locator(f"{ROOT} .vz-counter").first.click()
    page.keyboard.press("ArrowRight")
    page.wait_for_function(
        "() => document.querySelector('.vizad-stepper .vz-counter').textContent"
        ".startsWith('Step 2 of 7')"
    )
    page.screenshot(path=artifact("fallback-without-dot.png"))
    context.close()
    assert not _ours(page_errors)


def test_twenty_walkthroughs_carry_the_component_once(browser, page_errors, tmp_path):
    """A lecture notebook of 20 walkthroughs: one copy of the component in the notebook, each
    output its data and picture; in nbconvert's page all 20 mount and step."""
    notebook = tmp_path / "twenty.ipynb"
    cells = ["import vizad as vz"] + [
        f"s{k} = vz.step(vz.examples.lecture(), step={k % 7 + 1})\ns{k}" for k in range(20)
    ]
    write_notebook(notebook, cells)
    html = _execute(notebook)
    assert notebook.read_text().count(COMPONENT_MARK) == 1
    assert html.read_text().count(COMPONENT_MARK) == 1
    context, page = _offline_page(browser, page_errors, html)
    page.wait_for_function(
        "() => document.querySelectorAll('.vizad-stepper .vz-stage svg').length === 20",
        timeout=60_000,
    )
    counters = _counters(page)
    assert [int(re.match(r"Step (\d) of 7", c).group(1)) for c in counters] == [
        k % 7 + 1 for k in range(20)
    ]
    page.locator(f"{ROOT} .vz-counter").nth(19).click()
    page.keyboard.press("ArrowRight")
    page.wait_for_function(
        "() => document.querySelectorAll('.vizad-stepper .vz-counter')[19].textContent"
        ".startsWith('Step 7 of 7')"
    )
    context.close()
    assert not _ours(page_errors)
