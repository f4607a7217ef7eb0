"""A tutorial's slides (``python -m vizad slides``) work with every network request blocked
(issue 45): opened from disk with each request that is not a file aborted and recorded, none
is attempted; reveal.js runs (the right arrow changes the slide), KaTeX sets the mathematics,
and the stepper's output in the deck mounts and steps."""

from __future__ import annotations

import subprocess
import sys

import pytest
from conftest import REPO, artifact

NOTEBOOK = REPO / "notebooks" / "05_reverse_mode.ipynb"


@pytest.fixture(scope="module")
def deck(tmp_path_factory):
    out = tmp_path_factory.mktemp("slides") / "05.slides.html"
    subprocess.run(
        [sys.executable, "-m", "vizad", "slides", str(NOTEBOOK), "-o", str(out)],
        check=True, capture_output=True, cwd=REPO,
    )  # fmt: skip
    return out


def _blocked(context) -> list[str]:
    """Abort every request that is not a file:, data: or blob: URL, and record it."""
    attempted: list[str] = []

    def route(r):
        url = r.request.url
        if url.startswith(("file:", "data:", "blob:")):
            r.continue_()
        else:
            attempted.append(url)
            r.abort()

    context.route("**/*", route)
    context.on("requestfailed", lambda q: attempted.append(f"failed: {q.url}"))
    return attempted


def test_the_deck_steps_with_every_request_blocked(browser, deck, page_errors):
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    attempted = _blocked(context)
    page = page_errors(context.new_page())
    page.goto(deck.as_uri())
    page.wait_for_function("() => window.Reveal && Reveal.isReady()", timeout=30_000)
    assert page.evaluate("Reveal.getIndices().h") == 0
    first = page.evaluate("Reveal.getCurrentSlide().textContent.trim().slice(0, 60)")
    page.evaluate("window.__moved = false; Reveal.on('slidetransitionend', () => __moved = true)")
    page.keyboard.press("ArrowRight")
    page.wait_for_function("() => __moved && Reveal.getIndices().h + Reveal.getIndices().v === 1")
    second = page.evaluate("Reveal.getCurrentSlide().textContent.trim().slice(0, 60)")
    assert second != first
    # the mathematics is set by KaTeX, inlined (no MathJax from a CDN)
    assert page.locator(".katex").count() > 0
    assert page.locator(".katex-error").count() == 0
    page.screenshot(path=str(artifact("offline-slides.png")))
    # the stepper's output mounts from its own HTML, and steps on its slide
    page.locator(".vizad-stepper").first.wait_for(state="attached", timeout=30_000)
    page.evaluate(
        "() => { const s = document.querySelector('.vizad-stepper').closest('section');"
        " const i = Reveal.getIndices(s); Reveal.slide(i.h, i.v); }"
    )
    counter = page.locator(".vizad-stepper .vz-counter").first
    counter.wait_for(state="visible")
    before = counter.text_content()
    assert before.startswith("Step ")
    page.locator(".vizad-stepper .vz-next").first.click()
    page.wait_for_function(
        "b => document.querySelector('.vizad-stepper .vz-counter').textContent !== b", arg=before
    )
    page.screenshot(path=str(artifact("offline-slides-stepper.png")))
    context.close()
    assert attempted == []
    assert not page_errors.errors, "\n".join(page_errors.errors)


def test_nbconvert_slides_alone_reach_for_cdns(browser, tmp_path):
    """What the deck above is measured against: nbconvert's own slides ask for reveal.js and
    require.js from CDNs (so a test that sees no request is seeing vizad's template)."""
    subprocess.run(
        [sys.executable, "-m", "jupyter", "nbconvert", "--to", "slides", str(NOTEBOOK),
         "--output-dir", str(tmp_path)],
        check=True, capture_output=True,
    )  # fmt: skip
    context = browser.new_context()
    attempted = _blocked(context)
    page = context.new_page()
    page.goto(next(tmp_path.glob("*.slides.html")).as_uri())
    page.wait_for_timeout(500)
    context.close()
    assert any("reveal" in url for url in attempted)


def test_the_deck_builds_no_overlay_from_its_content_or_its_address(browser, tmp_path):
    """reveal.js writes a link's data-preview-link/-image/-video into an iframe, img or video
    as HTML text, and speaker notes and the scroll view's copy of the slides likewise; it also
    takes any setting from the page's query (``?previewLinks=true`` after the deck's own). A
    vizad deck removes those attributes, keeps those views off, and takes no setting from its
    address but print-pdf: opened with the settings in its query, at a width where reveal.js
    would switch to its scroll view, it is still the deck."""
    import nbformat

    notebook = tmp_path / "links.ipynb"
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell(
            '# Links\n\n<a id="p" href="#/1" data-preview-link>a link</a> '
            '<img id="i" alt="" data-preview-image="x.png" src="data:,">'
        ),
        nbformat.v4.new_markdown_cell("# Second\n\ntext"),
    ]
    for cell in nb.cells:
        cell.metadata["slideshow"] = {"slide_type": "slide"}
    nbformat.write(nb, notebook)
    out = tmp_path / "links.slides.html"
    subprocess.run(
        [sys.executable, "-m", "vizad", "slides", str(notebook), "-o", str(out)],
        check=True, capture_output=True, cwd=REPO,
    )  # fmt: skip
    context = browser.new_context(viewport={"width": 400, "height": 700})
    attempted = _blocked(context)
    page = context.new_page()
    page.goto(out.as_uri() + "?previewLinks=true&showNotes=true&view=scroll&controls=false")
    page.wait_for_function("() => window.Reveal && Reveal.isReady()", timeout=30_000)
    config = page.evaluate(
        "() => { const c = Reveal.getConfig(); return [c.previewLinks, c.showNotes, c.view,"
        " c.controls, Reveal.isScrollView(), location.search] }"
    )
    assert config == [False, False, None, True, False, ""]
    assert page.evaluate(
        "() => [...document.querySelectorAll('#p, #i')].map(e => e.getAttributeNames()"
        ".filter(n => n.startsWith('data-preview')).length)"
    ) == [0, 0]
    page.locator("#p").click()
    page.wait_for_function("() => Reveal.getIndices().h === 1")
    assert page.locator(".r-overlay, .r-overlay-preview, iframe").count() == 0
    context.close()
    assert attempted == []
