"""A tutorial's slides (``python -m vizad slides``) work with every network request blocked
(issue 45): opened from disk with each request that is not a file aborted and recorded, none
is attempted; vizad's deck runs (the right arrow changes the slide), KaTeX sets the
mathematics, every slide fits the window or scrolls, and the stepper's output in the deck
mounts and steps. tests/browser/test_slide_deck.py tries the deck's keys, addresses and
accessibility on a small notebook."""

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


#: Where the current slide is: its box (the deck's design size, scaled) whole in the window
#: above the bar, the slide inside its box, and its last cell reached by scrolling it (a slide
#: taller than its box scrolls: nothing is cut).
FITS = """() => {
  const slide = vizadDeck.current(), box = slide.closest('.vz-slides').getBoundingClientRect();
  const bar = document.querySelector('.vz-deck-bar').getBoundingClientRect();
  const within = (a, f) => a.left >= f.left - 1 && a.top >= f.top - 1
    && a.right <= f.right + 1 && a.bottom <= f.bottom + 1;
  const room = { left: 0, top: 0, right: innerWidth, bottom: bar.top };
  const tall = slide.scrollHeight > slide.clientHeight + 1;
  slide.scrollTop = slide.scrollHeight;
  const end = slide.lastElementChild.getBoundingClientRect().bottom;
  const reached = end <= slide.getBoundingClientRect().bottom + 1;
  slide.scrollTop = 0;
  const in_box = within(slide.getBoundingClientRect(), box);
  return { inside: within(box, room), in_box, reached, tall };
}"""


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
    page.wait_for_function("() => window.vizadDeck", timeout=30_000)
    page.evaluate("vizadDeck.ready")
    assert page.evaluate("[vizadDeck.index(), vizadDeck.count()]") == [0, 6]
    first = page.evaluate("vizadDeck.current().textContent.trim().slice(0, 60)")
    page.evaluate("() => { window.__moved = false; vizadDeck.on('change', () => __moved = true); }")
    page.keyboard.press("ArrowRight")
    page.wait_for_function("() => __moved && vizadDeck.index() === 1")
    second = page.evaluate("vizadDeck.current().textContent.trim().slice(0, 60)")
    assert second != first
    # the mathematics is set by KaTeX, inlined (no MathJax from a CDN)
    assert page.locator(".katex").count() > 0
    assert page.locator(".katex-error").count() == 0
    page.screenshot(path=str(artifact("offline-slides.png")))
    # every slide: the deck's box whole in the window, above the bar; a slide taller than the
    # box scrolls inside it (nothing cut)
    tall = 0
    for k in range(page.evaluate("vizadDeck.count()")):
        page.evaluate("k => vizadDeck.go(k)", k)
        where = page.evaluate(FITS)
        tall += where.pop("tall")
        assert where == {"inside": True, "in_box": True, "reached": True}, k
    assert tall >= 1  # a slide scrolled to its end (its first, with the trace's table)
    # the stepper's output mounts from its own HTML, and steps on its slide
    page.locator(".vizad-stepper").first.wait_for(state="attached", timeout=30_000)
    page.evaluate("vizadDeck.go(vizadDeck.indexOf(document.querySelector('.vizad-stepper')))")
    assert page.evaluate("vizadDeck.current().contains(document.querySelector('.vizad-stepper'))")
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


def test_the_deck_takes_nothing_from_its_links_or_its_address(browser, tmp_path):
    """reveal.js wrote a link's data-preview-link/-image/-video into an iframe, img or video as
    HTML text, and took any of its settings from the page's query (``?previewLinks=true``).
    vizad's deck reads neither: opened with reveal.js's settings in its query, narrow, the
    deck shows the slide its address names, a link to ``#/2`` moves to slide 2, and no
    overlay, frame or preview is made."""
    import nbformat

    notebook = tmp_path / "links.ipynb"
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell(
            '# Links\n\n<a id="p" href="#/2" data-preview-link>a link</a> '
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
    query = "?previewLinks=true&showNotes=true&view=scroll&controls=false"
    page.goto(out.as_uri() + query + "#/1")
    page.wait_for_function("() => window.vizadDeck", timeout=30_000)
    assert page.evaluate("[vizadDeck.index(), location.search, location.hash]") == [
        0, query, "#/1"
    ]  # fmt: skip
    assert page.locator(".vz-deck-bar button").count() == 2
    page.locator("#p").click()
    page.wait_for_function("() => vizadDeck.index() === 1")
    assert page.locator("iframe, video, .r-overlay, [class*='preview']").count() == 0
    assert page.locator("img").count() == 1  # the slide's own, no copy of x.png
    context.close()
    assert attempted == []
