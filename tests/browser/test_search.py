"""Search in a real browser (issue 44): on the exported page of the weight-shared chain
``vz.examples.rnn(45)`` at 1024×768, a value is found as its box shows it ("0.3" and "0.30"
find the inputs drawn "= 0.3", "0" does not light up every value), and an adjoint's name finds
the adjoint's box first (v̄₇₃ typed as written or as "vbar73": the adjoint fold, at the step
computing v̄₇₃; opened, v̄₇₃'s own box), a forward name the forward box first.

Screenshots go to artifacts/ (``search-*.png``).
"""

from __future__ import annotations

import re

import vizad as vz
from conftest import artifact

ROOT = ".vizad-stepper"


def _find(page, text: str) -> str:
    """Type ``text`` in the search box, go to the first match: the note."""
    root = page.locator(ROOT)
    box = root.locator(".vz-find-input")
    box.fill(text)
    box.press("Enter")
    return root.locator(".vz-find-note").inner_text()


def _found(page) -> dict:
    """The box found: its id, its text, and whether its centre is in the frame."""
    return page.evaluate(
        """() => {
          const root = document.querySelector('.vizad-stepper');
          const g = root.querySelector('g.node.vz-found');
          if (!g) return null;
          const b = g.getBoundingClientRect();
          const f = root.querySelector('.vz-viewport').getBoundingClientRect();
          const x = b.left + b.width / 2, y = b.top + b.height / 2;
          return { id: g.id, text: g.textContent,
                   inView: f.left <= x && x <= f.right && f.top <= y && y <= f.bottom,
                   matches: root.querySelectorAll('g.node.vz-match').length,
                   counter: root.querySelector('.vz-counter').textContent };
        }"""
    )


def test_search_finds_values_as_shown_and_adjoints_first(browser, tmp_path, page_errors):
    trace = vz.examples.rnn(45)
    path = vz.export_html(trace, tmp_path / "rnn45.html")
    page = page_errors(browser.new_page(viewport={"width": 1024, "height": 768}))
    page.goto(path.as_uri())
    page.wait_for_function(
        "() => document.querySelector('.vizad-stepper')?.dataset.layout === 'done'",
        timeout=60_000,
    )
    root = page.locator(ROOT)
    n = len(trace.steps)

    # a value as drawn: the inputs x0 … x9 show "= 0.3"
    for typed in ("0.3", "0.30"):
        note = _find(page, typed)
        assert re.match(r"1 of \d+: v₁ = x0 = 0\.3 \(step \d+\)", note), (typed, note)
        found = _found(page)
        assert found["id"] == "v1" and "= 0.3" in found["text"] and found["inView"], found
    page.screenshot(path=artifact("search-value.png"))
    # "0": the boxes named with a 0 (x0, v₁₀…), not every value with a 0 in it
    _find(page, "0")
    shown = page.evaluate(
        "() => [...document.querySelectorAll('.vizad-stepper g.node')]"
        ".filter(g => /= -?0\\.\\d/.test(g.textContent)).length"
    )
    assert 0 < _found(page)["matches"] < shown, (_found(page), shown)

    # an adjoint's name: the adjoint's box first (folded: the fold), at v̄₇₃'s step
    step = next(k for k, s in enumerate(trace.steps) if trace.result_name(s.node).text == "v̄₇₃")
    for typed in ("v̄₇₃", "vbar73", "v̄73"):
        note = _find(page, typed)
        assert re.match(rf"1 of \d+: v̄₇₃ \(step {step + 1}\) inside “× 45", note), (typed, note)
        found = _found(page)
        assert found["id"] == "fold_a2" and found["inView"], found
        assert found["counter"].startswith(f"Step {step + 1} of {n}"), found
    # a forward name: the forward box first
    note = _find(page, "v₇₃")
    assert re.match(r"1 of \d+: v₇₃ \(step", note), note
    assert _found(page)["id"] == "fold_v11"
    note = _find(page, "v̄₇₃")
    root.locator(".vz-find-open").click()  # opened: v̄₇₃'s own box
    page.wait_for_function(
        "() => document.querySelector('.vizad-stepper').dataset.opened === 'fold_a2'"
        " && document.querySelector('.vizad-stepper g.node.vz-found')",
        timeout=60_000,
    )
    page.wait_for_timeout(500)  # and it stays there (the frame resized by the view's note)
    found = _found(page)
    page.screenshot(path=artifact("search-adjoint.png"))
    assert found["id"] != "fold_a2" and found["text"].strip().startswith("v̄₇₃"), found
    assert found["inView"] and found["counter"].startswith(f"Step {step + 1} of {n}"), found
    # a regular expression, over names and values
    root.locator(".vz-find-re").click()
    note = _find(page, r"^vbar7\d\b")  # v̄₇₀ … v̄₇₉ (and v̄₇₃→₇₄…), typed
    assert re.match(r"1 of \d+: v̄₇[₀-₉] ", note), note
    note = _find(page, r"^= 0\.3$")
    assert re.match(r"1 of 10: v₁ = x0 = 0\.3 ", note), note  # x0 … x9
    page.close()
    assert not page_errors.errors, "\n".join(page_errors.errors)
