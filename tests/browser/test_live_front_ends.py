"""Live in every front end (issue 35), in headless Chromium: a notebook executed headless opens
at the author's step (``st.step = 6`` in a later cell) in nbconvert's page offline; the HTML
fallback without ``dot`` lays the graph out in the page and steps offline; a notebook of 20
walkthroughs carries the component once, and every walkthrough in it steps."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import CHROMIUM, HOW_TO_ENABLE, REPO, _server, artifact, without_dot, write_notebook
from test_jupyterlab import ROOT, _delete_sessions, _open_and_run, _run_in_new_cell, _wait_step

LECTURE = "import vizad as vz\n\nst = vz.Stepper(vz.examples.lecture())\nst"
COMPONENT_MARK = "globalThis.vizadComponent ??="
#: the component's CSS as an output carries it (the widget state, if stored, holds the code
#: and the CSS too, as JSON)
STYLE_MARK = "<style>/* vizad"


def _carried(notebook: Path) -> int:
    """How many of the notebook's outputs carry the component."""
    nb = json.loads(notebook.read_text())
    htmls = [
        "".join(o.get("data", {}).get("text/html", ""))
        for c in nb["cells"]
        for o in c.get("outputs", [])
    ]
    return sum(COMPONENT_MARK in h for h in htmls)


def _execute(
    notebook: Path, env: dict[str, str] | None = None, python: str = sys.executable
) -> Path:
    """``notebook`` executed headless (nbconvert's nbclient, as Jupyter Book and MyST do),
    with this checkout's vizad and ``env``, by the environment of ``python`` (its kernel
    too); then converted to HTML."""
    env = dict(os.environ if env is None else env)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    jupyter = [python, "-m", "jupyter", "nbconvert"]
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


def _says_not_connected(note) -> None:
    """``note`` is the component's "not connected" note: plain words, ``stepper.step`` as code
    (no literal backticks)."""
    text = "not connected to Python: stepping here does not change stepper.step"
    assert note.inner_text() == text, note.inner_text()
    assert note.locator("code").inner_text() == "stepper.step"


def test_exported_page_says_nothing_of_python(browser, page_errors, tmp_path):
    """A page exported on purpose (vz.export_html, a quiz page too) has no Python to be out
    of sync with: no "not connected" note, no ``stepper.score`` in the score's tooltip; it
    steps. A notebook output's HTML of the same walkthrough does say it (the test above)."""
    import vizad as vz

    for quiz in (False, True):
        path = vz.export_html(vz.examples.lecture(), tmp_path / f"page-{quiz}.html", quiz=quiz)
        context, page = _offline_page(browser, page_errors, path)
        page.wait_for_selector(".vizad-stepper .vz-counter")
        assert page.locator(".vizad-stepper .vz-counter").inner_text().startswith("Step 1 of 7")
        assert page.locator(".vz-offline").count() == 0
        assert "stepper.step" not in page.locator("body").inner_text()
        if quiz:
            score = page.locator(".vz-score").get_attribute("title") or ""
            assert "kept in this page only" in score and "stepper" not in score, score
        else:
            page.locator(".vz-next").click()
            page.wait_for_function(
                "() => document.querySelector('.vz-counter').textContent.startsWith('Step 2')"
            )
        page.screenshot(path=artifact(f"exported-no-note-{quiz}.png"))
        context.close()
    assert not page_errors.errors, "\n".join(page_errors.errors)


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
    _says_not_connected(page.locator(f"{ROOT} .vz-offline").first)
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
    Graphviz module once, and nbconvert's page lays both walkthroughs and a vz.draw drawing
    out in the browser and steps them offline."""
    notebook = tmp_path / "nodot.ipynb"
    write_notebook(
        notebook,
        [
            "import shutil\nassert shutil.which('dot') is None\n" + LECTURE,
            "fw = vz.step(vz.examples.lecture_forward(), step=2)\nfw",
            'vz.draw(vz.examples.lecture(), "adjoint")',  # a drawing: the same rule
        ],
    )
    html = _execute(notebook, {**without_dot(), "VIZAD_LAYOUT": "browser"})
    text = html.read_text()
    assert text.count('id="vizad-graphviz"') == 1 and text.count(STYLE_MARK) == 1
    assert _carried(notebook) == 1
    context, page = _offline_page(browser, page_errors, html)
    page.wait_for_function(
        "() => [...document.querySelectorAll('.vizad-stepper')]"
        ".filter((r) => r.dataset.layout === 'done' && r.querySelector('.vz-stage svg'))"
        ".length === 2",
        timeout=60_000,
    )
    assert page.locator(f"{ROOT} .vz-stage svg g.node").count() > 10
    page.wait_for_selector(".vizad-picture[data-layout='done'] svg g.node", timeout=60_000)
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
    output its data and its picture once; in nbconvert's page all 20 mount and step."""
    notebook = tmp_path / "twenty.ipynb"
    cells = ["import vizad as vz"] + [
        f"s{k} = vz.step(vz.examples.lecture(), step={k % 7 + 1})\ns{k}" for k in range(20)
    ]
    write_notebook(notebook, cells)
    html = _execute(notebook)
    assert _carried(notebook) == 1 and html.read_text().count(STYLE_MARK) == 1
    # each output's picture once: the HTML's <img>, no image/svg+xml beside it
    outputs = [
        o["data"]
        for c in json.loads(notebook.read_text())["cells"]
        for o in c.get("outputs", [])
        if "text/html" in o.get("data", {})
    ]
    assert len(outputs) == 20 and not any("image/svg+xml" in o for o in outputs)
    assert all("".join(o["text/html"]).count('src="data:image/svg+xml') == 1 for o in outputs)
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


# -- JupyterLab as a widget-only front end (vizad's extension disabled: VS Code, Colab) -----


def _lab(tmp_path_factory, name: str, env: dict[str, str], disable_vizad: bool):
    """A JupyterLab server (see conftest._server) with its own data folder (notebooks signed
    there are trusted) and, if asked, vizad's extension disabled in its own settings."""
    if not Path(CHROMIUM).exists():
        pytest.skip(HOW_TO_ENABLE)
    root = tmp_path_factory.mktemp(name)
    if disable_vizad:
        labconfig = root / "config" / "labconfig"
        labconfig.mkdir(parents=True)
        disabled = {"vizad": True, "vizad:walkthrough": True}
        (labconfig / "page_config.json").write_text(json.dumps({"disabledExtensions": disabled}))
    env = {**os.environ, **env, "JUPYTER_DATA_DIR": str(root / "data")}
    with _server("jupyterlab", root, env) as url:
        yield url, root


@pytest.fixture(scope="module")
def widget_only_lab(tmp_path_factory):
    """JupyterLab without vizad's renderer, its kernels told by VIZAD_DISPLAY that the front
    end has a widget manager only (as VS Code's and Colab's are detected)."""
    yield from _lab(tmp_path_factory, "widget-only", {"VIZAD_DISPLAY": "widget"}, True)


@pytest.fixture(scope="module")
def lab_data_dir(tmp_path_factory):
    """JupyterLab with vizad's extension, its own data folder (for trusted notebooks)."""
    yield from _lab(tmp_path_factory, "lab-data", {}, False)


def _open(browser, page_errors, url: str, notebook: Path):
    _delete_sessions(url)
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    page = page_errors(context.new_page())
    return context, page, f"{url}/lab/tree/{notebook.name}?reset"


def _python_says(page, code: str, text: str) -> None:
    _run_in_new_cell(page, code)
    page.wait_for_selector(f"text={text}", timeout=30_000)


def test_widget_only_front_end_syncs_both_ways(browser, widget_only_lab, page_errors):
    """With the widget-view MIME type (VIZAD_DISPLAY=widget) a front end without vizad's
    renderer shows the live widget: clicks move stepper.step, stepper.step = 6 moves the page,
    inputs set in Python and a quiz answered in Python show on the page. Without it
    (vz.config.display = "vizad") the HTML component says it is not connected."""
    url, root = widget_only_lab
    notebook = root / "widget-only.ipynb"
    write_notebook(
        notebook, ["import vizad as vz\n\nstepper = vz.Stepper(vz.examples.lecture())\nstepper"]
    )
    context, page, where = _open(browser, page_errors, url, notebook)
    _open_and_run(page, where, "widget-only")
    assert page.locator(".vizad-walkthrough").count() == 0  # vizad's renderer is off
    assert page.locator(f"{ROOT} .vz-offline").count() == 0
    page.locator(f"{ROOT} .vz-next").click()
    page.locator(f"{ROOT} .vz-next").click()
    _wait_step(page, 3)
    _python_says(page, "print('python step', stepper.step)", "python step 3")
    _run_in_new_cell(page, "stepper.step = 6")
    _wait_step(page, 6, timeout=20_000)
    _run_in_new_cell(page, "stepper.inputs = {'x1': 3.0, 'x2': 5.0}")
    page.wait_for_function(
        "() => document.querySelector('.vizad-stepper .vz-input[data-name=\"x1\"]')?.value === '3'",
        timeout=30_000,
    )
    _run_in_new_cell(page, "q = vz.step(vz.examples.lecture(), quiz=True)\nq")
    page.wait_for_function(
        "() => document.querySelectorAll('.vizad-stepper .vz-score').length === 2", timeout=30_000
    )
    _run_in_new_cell(page, "verdict = q.answer(q.question.shown)")
    page.wait_for_function(
        "() => [...document.querySelectorAll('.vizad-stepper .vz-score')]"
        ".some((s) => s.textContent.startsWith('score 1/1'))",
        timeout=30_000,
    )
    page.screenshot(path=artifact("widget-only-live.png"), full_page=True)
    # the other rule: vizad's MIME type and the HTML, which this front end shows unconnected
    _run_in_new_cell(
        page, "vz.config.display = 'vizad'\nplain = vz.Stepper(vz.examples.lecture())\nplain"
    )
    note = page.locator(f"{ROOT} .vz-offline")
    note.first.wait_for(timeout=30_000)
    assert note.count() == 1
    _says_not_connected(note)
    offline = page.locator(ROOT, has=page.locator(".vz-offline"))
    inputs_note = offline.locator(".vz-input-note").text_content()
    assert inputs_note == "read-only: not connected to Python", inputs_note
    note.scroll_into_view_if_needed()
    page.screenshot(path=artifact("widget-only-not-connected.png"))
    assert not page.get_by_text("model not found").count()
    context.close()
    assert not page_errors.errors, "\n".join(page_errors.errors)


def _signed(notebook: Path, root: Path) -> None:
    """Trust ``notebook`` in the server's own data folder (as "Trust Notebook" would)."""
    import nbformat
    from nbformat.sign import NotebookNotary

    nb = nbformat.read(notebook, as_version=4)
    NotebookNotary(data_dir=str(root / "data")).sign(nb)


def test_headless_notebooks_reopen_at_the_saved_step_in_jupyterlab(
    browser, lab_data_dir, page_errors
):
    """Executed headless with ``st.step = 6`` in the second cell, for JupyterLab (vizad's MIME
    type) and for VS Code or Colab (with the widget-view MIME type too): opened in JupyterLab
    with vizad's extension and a fresh kernel, both show "Step 6 of 7" from the saved output
    (never "model not found") and step."""
    url, root = lab_data_dir
    for display in ("widget", "vizad"):
        notebook = root / f"headless-{display}.ipynb"
        write_notebook(notebook, [LECTURE, "st.step = 6"])
        _execute(notebook, {**os.environ, "VIZAD_DISPLAY": display})
        outputs = json.loads(notebook.read_text())["cells"][0]["outputs"]
        assert ("application/vnd.jupyter.widget-view+json" in outputs[0]["data"]) == (
            display == "widget"
        )
        _signed(notebook, root)
        context, page, where = _open(browser, page_errors, url, notebook)
        page.goto(where)
        page.wait_for_selector(".vizad-walkthrough[data-shown='page']", timeout=60_000)
        page.wait_for_selector(f"{ROOT} .vz-counter", timeout=30_000)
        _wait_step(page, 6)
        # the new kernel's widget manager restores the widget state nbclient stored (the
        # model, at step 6, not connected to the kernel): shown from it, or from the HTML
        page.wait_for_timeout(8000)
        shown = page.locator(".vizad-walkthrough").get_attribute("data-shown")
        assert shown in ("page", "live"), shown
        _wait_step(page, 6)
        assert not page.get_by_text("model not found").count()
        page.screenshot(path=artifact(f"headless-{display}-in-jupyterlab.png"))
        page.locator(f"{ROOT} .vz-counter").click()
        page.keyboard.press("ArrowRight")
        _wait_step(page, 7)
        context.close()
    assert not page_errors.errors, "\n".join(page_errors.errors)


def test_extension_falls_back_without_the_private_field(browser, lab_data_dir, page_errors):
    """A widget manager whose renderer has no ``_manager`` field (hidden by the extension's
    test hook): the cell's output is the HTML component, saying it is not connected, never a
    blank or an error."""
    url, root = lab_data_dir
    notebook = root / "no-field.ipynb"
    write_notebook(notebook, [LECTURE])
    context, page, where = _open(browser, page_errors, url, notebook)
    page.add_init_script("globalThis.__vizadHideManagerField = true")
    _open_and_run(page, where, "no-field")
    assert page.locator(".vizad-walkthrough").get_attribute("data-shown") == "page"
    page.locator(f"{ROOT} .vz-offline").wait_for()
    page.locator(f"{ROOT} .vz-next").click()
    _wait_step(page, 2)
    page.screenshot(path=artifact("extension-without-manager-field.png"))
    context.close()
    assert not page_errors.errors, "\n".join(page_errors.errors)


def test_a_fold_in_a_notebook_output_opens_or_says_why(browser, page_errors, tmp_path):
    """A notebook output's HTML without Python (nbconvert's page, a front end without vizad's
    extension or a widget manager): a click on a fold ("× 20") either opens it (when the output
    carries the boxes inside) or says, in plain words, that opening it needs Python; never
    nothing (review of issue 36, defect 9)."""
    notebook = tmp_path / "fold.ipynb"
    write_notebook(notebook, ["import vizad as vz\nvz.step(vz.examples.rnn(20))"])
    context, page = _offline_page(browser, page_errors, _execute(notebook))
    page.wait_for_selector(f"{ROOT} .vz-stage svg g.node", timeout=60_000)
    fold = page.locator(f"{ROOT} .vz-stage g.node", has_text="× 20").first
    fold.scroll_into_view_if_needed()
    fold.click()
    page.wait_for_function(
        """() => document.querySelector('.vizad-stepper .vz-stage g.cluster.vz-opened-frame')
            || [...document.querySelectorAll('.vizad-stepper [role=status]')]
                 .some((e) => e.textContent.includes('needs Python'))""",
        timeout=30_000,
    )
    note = page.locator(f"{ROOT} .vz-sealed-note")
    if note.count():
        text = note.inner_text()
        assert text == "opening this block needs Python: run the cell", text
        page.screenshot(path=artifact("fold-sealed-note.png"))
        page.locator(f"{ROOT} .vz-viewport").click(position={"x": 5, "y": 5})
        assert note.count() == 0  # gone at the next click
    context.close()
    assert not _ours(page_errors)
