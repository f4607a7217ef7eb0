"""A shipped tutorial opened on a new machine is untrusted: JupyterLab shows its stepper's
static picture (vizad/view/widget/snapshot.py) through its HTML sanitizer, no script, no
stylesheet. At 1024×768 in JupyterLab's default layout (the file browser open) that picture is
readable (its smallest drawn text ≥ 9 px: fitted to the output while fitting keeps it so,
else at that size in a frame that scrolls) and its note says how to trust the notebook and
that running the cell shows the live stepper (issue 44, item 5)."""

from __future__ import annotations

import json
import shutil
import urllib.request
from pathlib import Path

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from conftest import artifact, settled

NOTEBOOKS = Path(__file__).parents[2] / "notebooks"

#: The smallest drawn text of each picture of an output, in CSS px as shown: the picture's
#: SVG (decoded from the <img>) laid out inline at the image's shown size, each text's font
#: size times its scale to the screen.
SMALLEST_TEXT = """(output) => [...output.querySelectorAll("img[src^='data:image/svg+xml']")]
  .map((img) => {
    const bytes = Uint8Array.from(atob(img.src.split(',')[1]), (c) => c.charCodeAt(0));
    const svg = new DOMParser().parseFromString(new TextDecoder().decode(bytes),
                                                'image/svg+xml').documentElement;
    const box = img.getBoundingClientRect();
    const host = document.createElement('div');
    host.style.cssText = 'position:fixed;left:-20000px;top:0';
    svg.removeAttribute('style');
    svg.setAttribute('width', String(box.width));
    svg.setAttribute('height', String(box.height));
    host.append(document.importNode(svg, true));
    document.body.append(host);
    const sizes = [...host.querySelectorAll('text')].filter((t) => t.textContent.trim())
      .map((t) => parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a);
    host.remove();
    return { smallest: Math.min(...sizes), texts: sizes.length, width: box.width,
             frame: img.parentElement.getBoundingClientRect().width };
  })"""


def _delete_sessions(url: str) -> None:
    for s in json.load(urllib.request.urlopen(f"{url}/api/sessions")):
        req = urllib.request.Request(f"{url}/api/sessions/{s['id']}", method="DELETE")
        urllib.request.urlopen(req)


def _first_picture(page):
    """Scroll the notebook until a stepper's static picture is in the page; its output."""
    page.mouse.move(640, 450)  # over the notebook
    for _ in range(80):
        output = page.locator(".jp-OutputArea-output:has(.vizad-stepper img)")
        if output.count() and output.first.inner_text().strip():
            output.first.scroll_into_view_if_needed()
            settled(page, 4)
            return output.first
        page.mouse.wheel(0, 500)
        settled(page, 3)
    raise AssertionError("no stepper picture in the notebook")


def _stepper_notebook(path: Path, name: str) -> None:
    """A notebook of one stepper's output as vizad makes it (the shipped tutorials carry such
    outputs; `make notebooks` stores them), unsigned: untrusted on any machine."""
    import nbformat

    import vizad as vz
    from vizad.view import sharing

    sharing.forget()  # each notebook's output carries the component (as its first would)
    traces = {
        "lecture": vz.examples.lecture,
        "mlp": vz.examples.mlp,
        "rnn45": lambda: vz.examples.rnn(45),
    }
    stepper = vz.Stepper(traces[name]())
    stepper.step = 2
    bundle, metadata = stepper._repr_mimebundle_()
    bundle.pop("application/vnd.jupyter.widget-view+json", None)  # no widget state saved
    cell = nbformat.v4.new_code_cell("vz.Stepper(trace)", execution_count=1)
    cell.outputs = [nbformat.v4.new_output("display_data", bundle, metadata=metadata)]
    nb = nbformat.v4.new_notebook()
    nb.cells = [cell]
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    nbformat.write(nb, path)


def _open_untrusted(browser, page_errors, url: str, name: str):
    context = browser.new_context(viewport={"width": 1024, "height": 768})
    page = page_errors(context.new_page())
    page.goto(f"{url}/lab/tree/{name}?reset")
    page.wait_for_selector(".jp-Notebook", timeout=60_000)
    page.wait_for_selector(".jp-OutputArea-output", timeout=30_000)
    assert page.locator(".jp-FileBrowser").is_visible()  # JupyterLab's default layout
    return context, page


@pytest.mark.parametrize("name", ["lecture", "mlp", "rnn45"])
def test_untrusted_picture_is_readable_and_says_how_to_trust(
    browser, jupyterlab, page_errors, name
):
    url, root = jupyterlab
    _stepper_notebook(root / f"untrusted-{name}.ipynb", name)
    _delete_sessions(url)
    context, page = _open_untrusted(browser, page_errors, url, f"untrusted-{name}.ipynb")
    output = _first_picture(page)
    assert output.locator("script").count() == 0  # the sanitizer's: no script runs
    pictures = output.evaluate(SMALLEST_TEXT)
    page.screenshot(path=artifact(f"untrusted-{name}.png"))
    print(f"\n{name}: {pictures}")
    assert len(pictures) == 1 and pictures[0]["texts"] > 0, pictures
    shown = pictures[0]
    assert shown["smallest"] >= 9 - 0.01, shown
    # fitted to the output when that keeps the text readable, else wider, in a frame that
    # scrolls (never wider than the output itself)
    assert shown["frame"] <= output.evaluate("(o) => o.getBoundingClientRect().width"), shown
    if shown["smallest"] > 9.5:
        assert shown["width"] >= shown["frame"] - 1, shown
    assert page.locator(".vz-kernel-note").count() == 0  # a JupyterLite site's only
    note = output.locator(".vz-trust")
    assert note.is_visible()
    text = note.inner_text()
    assert "Trust Notebook" in text and "jupyter trust notebook.ipynb" in text, text
    assert "command palette (Ctrl+Shift+C)" in text, text
    assert "run the cell" in text and "live stepper" in text, text
    # the command the note names is there, and trusting shows the live component
    item = page.locator(".lm-CommandPalette-item", has_text="Trust Notebook")
    for attempt in range(3):  # the shortcut goes to the focused notebook: once it has focus
        page.locator(".jp-Notebook .jp-InputArea-prompt").first.click()
        page.keyboard.press("Control+Shift+C")
        search = page.locator(".lm-CommandPalette-input")
        try:
            search.wait_for(state="visible", timeout=5_000)
            search.fill("Trust Notebook")
            item.first.wait_for(timeout=5_000)
            break
        except PlaywrightTimeoutError:
            page.keyboard.press("Escape")
            if attempt == 2:
                page.screenshot(path=artifact(f"untrusted-{name}-palette.png"))
                raise
    if name == "lecture":
        item.first.click()
        page.locator(".jp-Dialog button", has_text="Trust").click()
        page.wait_for_timeout(1000)  # the server has signed it
        page.reload()  # "and reopen it"
        page.wait_for_selector(".vizad-stepper .vz-stage svg", timeout=60_000)
        page.wait_for_selector(".vizad-stepper .vz-counter")
        assert page.locator(".vizad-stepper .vz-counter").inner_text().startswith("Step 2 of 7")
        page.screenshot(path=artifact("untrusted-lecture-trusted.png"))
    else:
        page.keyboard.press("Escape")
    context.close()
    assert not page_errors.errors, "\n".join(page_errors.errors)


def test_notebook7_has_the_trust_item_the_note_names(browser, notebook7, page_errors):
    url, root = notebook7
    _stepper_notebook(root / "untrusted.ipynb", "lecture")
    context = browser.new_context(viewport={"width": 1024, "height": 768})
    page = page_errors(context.new_page())
    page.goto(f"{url}/notebooks/untrusted.ipynb")
    page.wait_for_selector(".jp-OutputArea-output .vz-trust", timeout=60_000)
    assert "File menu" in page.locator(".vz-trust").inner_text()
    page.locator(".lm-MenuBar-item", has_text="File").click()
    page.locator(".lm-Menu-item", has_text="Trust Notebook").click()
    page.locator(".jp-Dialog button", has_text="Trust").click()
    page.get_by_text("Trusted", exact=True).wait_for()
    page.wait_for_timeout(1000)  # the server has signed it
    page.reload()  # "and reopen it"
    page.wait_for_selector(".vizad-stepper .vz-stage svg", timeout=60_000)
    page.screenshot(path=artifact("untrusted-notebook7-trusted.png"))
    context.close()
    # Notebook 7 raises this on every load, with or without vizad (a plugin's settings schema
    # is missing; see test_jupyterlab.py's test_stepper_in_notebook7)
    ours = [e for e in page_errors.errors if "(reading 'schema')" not in e]
    assert not ours, "\n".join(ours)


def test_the_shipped_tutorial_picture_before_make_notebooks(browser, jupyterlab, page_errors):
    """The shipped tutorial's picture as stored (its outputs change with `make notebooks`):
    measured, reported, not asserted."""
    url, root = jupyterlab
    shutil.copy(NOTEBOOKS / "05_reverse_mode.ipynb", root / "shipped-05.ipynb")
    _delete_sessions(url)
    context, page = _open_untrusted(browser, page_errors, url, "shipped-05.ipynb")
    output = _first_picture(page)
    print(f"\nshipped 05_reverse_mode: {output.evaluate(SMALLEST_TEXT)}")
    context.close()
