"""vizad's own slide deck (frontend/deck/, inlined by ``python -m vizad slides``) in Chromium, on
a small notebook of five slides: a sub-slide with two fragments, a slide with a field and an
editable box, speaker notes, links and a cell's own <section>, a slide taller than the deck.
The keys (→ ← Space Shift+Space PageUp Home End, fragments one by one), the address (#/3,
read at load and on a change, replaced so that Back leaves the deck), the slide number and the
announcement as text, hidden slides out of reach, keys typed into a field left to it, the
buttons (and axe-core on the bar), the fit to the window, no motion when asked for less, one
slide a page in print.
tests/browser/test_offline_slides.py opens a tutorial's deck with the network blocked."""

from __future__ import annotations

import re
import subprocess
import sys

import nbformat
import pytest
from axe import axe, summary
from conftest import REPO, artifact

CELLS = [
    ("slide", "# One\n\nThe first slide, with $x^2 + y$."),
    ("subslide", "## Two\n\nA sub-slide."),
    ("fragment", '<p id="f1">first fragment</p>'),
    ("fragment", '<p id="f2">second fragment</p>'),
    (
        "slide",
        '# Three\n\n<input id="field" value="typed"> <div id="editable" contenteditable="true">'
        "edit me</div>",
    ),
    ("notes", '<p id="notes">for the speaker only</p>'),
    ("slide", '# Four\n\n<a id="to-one" href="#/1">one</a> <a id="to-two" href="#Two">two</a>'),
    ("-", '<section id="own">a section of a cell\'s own, not a slide</section>'),
    ("slide", "# Five\n\n" + "\n\n".join(f"line {i}" for i in range(60)) + '\n\n<p id="end">.</p>'),
]  # fmt: skip


@pytest.fixture(scope="module")
def deck(tmp_path_factory):
    folder = tmp_path_factory.mktemp("deck")
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell(text) for _, text in CELLS]
    for cell, (kind, _) in zip(nb.cells, CELLS):
        cell.metadata["slideshow"] = {"slide_type": kind}
    nbformat.write(nb, folder / "deck.ipynb")
    out = folder / "deck.slides.html"
    subprocess.run(
        [sys.executable, "-m", "vizad", "slides", str(folder / "deck.ipynb"), "-o", str(out)],
        check=True, capture_output=True, cwd=REPO,
    )  # fmt: skip
    return out


@pytest.fixture
def open_deck(browser, deck, page_errors):
    """Opens the deck (at ``address``, a hash) in a 1024×768 page; the page errors checked at
    the end."""
    pages = []

    def open_(address: str = "", **options):
        page = page_errors(browser.new_page(viewport={"width": 1024, "height": 768}, **options))
        page.goto(deck.as_uri() + address)
        page.wait_for_function("() => window.vizadDeck", timeout=30_000)
        page.evaluate("vizadDeck.ready")
        pages.append(page)
        return page

    yield open_
    for page in pages:
        page.close()
    assert not page_errors.errors, "\n".join(page_errors.errors)


#: Where the deck is: slide (from 0), fragments shown, the address, the number shown, the
#: fragments' visibility, the sections shown and hidden.
WHERE = """() => ({
  at: [vizadDeck.index(), vizadDeck.fragment()],
  hash: location.hash,
  number: document.querySelector('.vz-deck-number').textContent,
  fragments: ['f1', 'f2'].map((id) =>
    getComputedStyle(document.getElementById(id).closest('.fragment')).visibility),
})"""


def where(page) -> dict:
    return page.evaluate(WHERE)


def press(page, key: str) -> None:
    page.keyboard.press(key)


def test_keys_walk_the_slides_and_their_fragments(open_deck):
    page = open_deck()
    history = page.evaluate("history.length")
    assert where(page) == {
        "at": [0, 0], "hash": "#/1", "number": "1 / 5", "fragments": ["hidden", "hidden"]
    }  # fmt: skip
    assert page.evaluate("vizadDeck.count()") == 5
    steps = [
        ("ArrowRight", [1, 0], "#/2", ["hidden", "hidden"]),
        ("ArrowRight", [1, 1], "#/2/1", ["visible", "hidden"]),  # a fragment at a time
        ("Space", [1, 2], "#/2/2", ["visible", "visible"]),
        ("PageDown", [2, 0], "#/3", ["visible", "visible"]),
        ("ArrowLeft", [1, 2], "#/2/2", ["visible", "visible"]),  # back: all shown
        ("Shift+Space", [1, 1], "#/2/1", ["visible", "hidden"]),  # hidden again going back
        ("PageUp", [1, 0], "#/2", ["hidden", "hidden"]),
        ("ArrowUp", [0, 0], "#/1", ["hidden", "hidden"]),
        ("ArrowUp", [0, 0], "#/1", ["hidden", "hidden"]),  # nothing before the first
        ("End", [4, 0], "#/5", ["visible", "visible"]),
        ("ArrowDown", [4, 0], "#/5", ["visible", "visible"]),  # nothing after the last
        ("Home", [0, 0], "#/1", ["hidden", "hidden"]),
    ]
    for key, at, hash_, fragments in steps:
        press(page, key)
        now = where(page)
        assert (now["at"], now["hash"], now["fragments"]) == (at, hash_, fragments), key
        assert now["number"] == f"{at[0] + 1} / 5"
    # the address was replaced at each move: Back leaves the deck, it does not walk it
    assert page.evaluate("history.length") == history
    # a browser's shortcut is left to it
    press(page, "Alt+ArrowRight")
    assert where(page)["at"] == [0, 0]


def test_the_address_names_the_slide(open_deck):
    page = open_deck("#/4")
    assert where(page)["at"] == [3, 0] and where(page)["number"] == "4 / 5"
    page = open_deck("#/2/1")
    assert where(page)["at"] == [1, 1] and where(page)["fragments"] == ["visible", "hidden"]
    page = open_deck("#3")
    assert where(page)["at"] == [2, 0] and where(page)["hash"] == "#/3"
    page = open_deck("#/99")  # past the end: the last slide
    assert where(page)["at"] == [4, 0]
    # a change of address moves; a link to a slide, or to a heading's anchor
    page.evaluate("location.hash = '#/4'")
    page.wait_for_function("() => vizadDeck.index() === 3")
    page.locator("#to-two").click()
    page.wait_for_function("() => vizadDeck.index() === 1")
    assert where(page)["hash"] == "#/2/2"  # the heading's slide, its fragments shown
    page.evaluate("location.hash = '#/4'")
    page.wait_for_function("() => vizadDeck.index() === 3")
    page.locator("#to-one").click()
    page.wait_for_function("() => vizadDeck.index() === 0")
    # the API, and its 'change' event after a move
    page.evaluate("() => { window.__seen = []; vizadDeck.on('change', (d) => __seen.push(d)); }")
    page.evaluate("vizadDeck.go(2)")
    page.evaluate("vizadDeck.next()")
    page.evaluate("vizadDeck.prev()")
    assert page.evaluate("__seen") == [
        {"index": 2, "fragment": 0, "count": 5},
        {"index": 3, "fragment": 0, "count": 5},
        {"index": 2, "fragment": 0, "count": 5},
    ]
    assert page.evaluate("vizadDeck.current().querySelector('h1').id") == "Three"
    # a <section> in a cell is the cell's, shown on its slide
    assert page.evaluate("vizadDeck.indexOf(document.getElementById('own'))") == 3


def test_only_the_current_slide_is_reached_and_moves_are_announced(open_deck):
    page = open_deck("#/3")
    slides = page.evaluate(
        "() => [...document.querySelectorAll('.vz-slide')].map((s) => [s.hidden,"
        " s.getAttribute('aria-hidden'), s.getAttribute('role'), s.getAttribute('aria-label')])"
    )
    assert slides == [
        [True, "true", "group", "slide 1 of 5"],
        [True, "true", "group", "slide 2 of 5"],
        [False, None, "group", "slide 3 of 5"],
        [True, "true", "group", "slide 4 of 5"],
        [True, "true", "group", "slide 5 of 5"],
    ]
    # nbconvert's stacks (a slide and its sub-slides): only the current slide's is shown
    stacks = page.evaluate(
        "() => [...document.querySelectorAll('.vz-slides > section')].map((s) => s.hidden)"
    )
    assert stacks == [True, False, True, True]
    assert page.locator("#field").is_visible() and not page.locator("#to-one").is_visible()
    assert not page.locator("#notes").is_visible()  # speaker notes are not shown
    # Tab goes through the field, the editable box and the bar's buttons: never a hidden slide
    reached = []
    for _ in range(6):
        page.keyboard.press("Tab")
        reached.append(
            page.evaluate("document.activeElement.id || document.activeElement.className")
        )
    assert "to-one" not in reached and "to-two" not in reached
    assert {"field", "editable", "vz-deck-prev", "vz-deck-next"} <= set(reached)
    # the buttons: labelled, disabled at the ends
    labels = page.evaluate(
        "[...document.querySelectorAll('.vz-deck-bar button')].map((b) => b.getAttribute("
        "'aria-label'))"
    )
    assert labels == ["previous slide", "next slide"]
    live = page.locator(".vz-deck-status")
    assert live.get_attribute("aria-live") == "polite" and live.text_content() == ""
    page.locator(".vz-deck-next").click()
    assert where(page)["at"] == [3, 0]
    assert live.text_content() == "slide 4 of 5: Four"  # the heading without its "¶"
    page.locator(".vz-deck-next").click()
    assert page.locator(".vz-deck-next").is_disabled()
    # Space on a focused button presses it once (one step, not two)
    page.locator(".vz-deck-prev").focus()
    page.keyboard.press("Space")
    assert where(page)["at"] == [3, 0]
    page.keyboard.press("Home")
    assert page.locator(".vz-deck-prev").is_disabled()


def test_keys_typed_into_a_field_stay_in_it(open_deck):
    page = open_deck("#/3")
    page.locator("#field").focus()
    for key in ("ArrowRight", "ArrowLeft", "End", "Home", "PageDown", "Space"):
        page.keyboard.press(key)
        assert where(page)["at"] == [2, 0], key
    assert sorted(page.locator("#field").input_value()) == sorted(" typed")  # a space typed
    page.locator("#editable").focus()
    for key in ("ArrowRight", "Space", "End"):
        page.keyboard.press(key)
        assert where(page)["at"] == [2, 0], key
    page.locator("#editable").blur()
    page.keyboard.press("ArrowRight")
    assert where(page)["at"] == [3, 0]


#: The deck's box on the screen ([left, top, right, bottom]) and the room above the bar.
BOX = """() => {
  const b = document.querySelector('.vz-slides').getBoundingClientRect();
  const bar = document.querySelector('.vz-deck-bar').getBoundingClientRect();
  return { box: [b.left, b.top, b.right, b.bottom], room: [0, 0, innerWidth, bar.top] };
}"""


@pytest.mark.parametrize("size", [(1024, 768), (1280, 800), (800, 1000)])
def test_the_deck_is_scaled_whole_into_the_window(open_deck, size):
    page = open_deck("#/1")
    page.set_viewport_size({"width": size[0], "height": size[1]})
    page.wait_for_timeout(50)  # the resize event
    fit = page.evaluate(BOX)
    (left, top, right, bottom), (_, _, room_w, room_h) = fit["box"], fit["room"]
    assert left >= -0.5 and top >= -0.5 and right <= room_w + 0.5 and bottom <= room_h + 0.5
    assert abs((right - left) / (bottom - top) - 960 / 700) < 0.01  # its aspect kept
    # one side touches the room's: as large as it fits
    assert min(room_w - (right - left), room_h - (bottom - top)) < 1


def test_a_tall_slide_scrolls_and_nothing_is_cut(open_deck):
    page = open_deck("#/5")
    slide = page.evaluate(
        "() => { const s = vizadDeck.current(); return [s.scrollHeight > s.clientHeight,"
        " getComputedStyle(s).overflowY] }"
    )
    assert slide == [True, "auto"]
    page.evaluate("vizadDeck.current().scrollTop = 1e6")
    assert page.evaluate(
        "() => document.getElementById('end').getBoundingClientRect().bottom"
        " <= vizadDeck.current().getBoundingClientRect().bottom"
    )
    page.keyboard.press("Home")
    page.keyboard.press("End")
    assert page.evaluate("vizadDeck.current().scrollTop") == 0  # entered at its top


def test_no_motion_when_asked_for_less(open_deck):
    page = open_deck("#/2", reduced_motion="reduce")
    assert page.evaluate("getComputedStyle(vizadDeck.current()).animationName") == "none"
    page = open_deck("#/2", reduced_motion="no-preference")
    assert page.evaluate("getComputedStyle(vizadDeck.current()).animationName") == "vz-deck-fade"


def test_the_mathematics_is_set_and_a_screenshot(open_deck):
    page = open_deck()
    assert page.locator(".vz-slide:not([hidden]) .katex").count() == 1
    assert page.locator(".katex-error").count() == 0
    page.screenshot(path=str(artifact("slide-deck-1024x768.png")))


def test_printed_every_slide_on_a_page_of_its_own(open_deck):
    page = open_deck("#/2")
    page.emulate_media(media="print")
    printed = page.evaluate(
        "() => [...document.querySelectorAll('.vz-slide')].map((s) => getComputedStyle(s).display)"
    )
    assert printed == ["block"] * 5
    assert page.locator("#f2").is_visible() and page.locator("#end").is_visible()
    assert not page.locator(".vz-deck-bar").is_visible()
    pdf = page.pdf(width="960px", height="700px")
    pages = len(re.findall(rb"/Type\s*/Page\b", pdf))
    assert pages >= 5  # one a slide (the tall one takes more)


def test_the_bar_passes_axe(open_deck):
    """The deck's own controls (its bar: buttons, number) against WCAG 2.1 A/AA (axe-core);
    the slides are the notebook's cells, checked where the component is."""
    page = open_deck("#/2")
    found = axe(page, ".vz-deck-bar")
    assert found == [], summary(found)
