"""Issue 44 item 6, on exported pages: a "× 45" fold of rnn(45) opens within FOLD_OPENS_S
(median of three fresh pages; the page lays its folds out ahead, in a worker, while the
person reads), framed on the opened block (not at the bottom of a blank frame); the table of
partial adjoints shows at least six rows; presenting, the table's heads wrap between words
only; one Esc leaves a focused quiz field (and, presenting, the mode too).

Screenshots go to artifacts/ (``folds-*.png``).
"""

from __future__ import annotations

import statistics

import pytest
from conftest import artifact, settled

#: s from the click on a fold to its block drawn (the issue's bound). Measured on this 2-core
#: machine loaded by another test run (load average 8), median of 3 fresh pages, 1.5 s after
#: the page was drawn: before, 1.15 and 1.29 s (the block at the frame's bottom edge, or out
#: of view); after, 0.10 and 0.21 s (the folds laid out ahead in a worker while one reads)
FOLD_OPENS_S = 1.0
ROOT = ".vizad-stepper"


@pytest.fixture(scope="module")
def rnn_page(tmp_path_factory):
    import vizad as vz

    return vz.export_html(vz.examples.rnn(45), tmp_path_factory.mktemp("folds") / "rnn45.html")


def _ready(page) -> None:
    page.wait_for_function(
        f"() => document.querySelector('{ROOT}')?.dataset.layout === 'done'", timeout=60_000
    )


def _open(page, fold: str) -> float:
    """Clicks the fold; seconds until the opened view is drawn (and has settled)."""
    return page.evaluate(
        """(id) => new Promise(done => {
          const r = document.querySelector('.vizad-stepper');
          const t0 = performance.now();
          const seen = new MutationObserver(() => {
            if (r.dataset.opened !== id || r.dataset.layout !== 'done') return;
            seen.disconnect();
            requestAnimationFrame(() => done((performance.now() - t0) / 1000));
          });
          seen.observe(r, { attributes: true });
          r.querySelector(`g.node#${CSS.escape(id)}`).dispatchEvent(
            new MouseEvent('click', { bubbles: true, cancelable: true }));
        })""",
        fold,
    )


def _boxes(page):
    return page.evaluate(
        """() => {
          const r = document.querySelector('.vizad-stepper');
          const box = (e) => { const b = e.getBoundingClientRect();
            return { l: b.left, t: b.top, r: b.right, b: b.bottom }; };
          const v = r.querySelector('.vz-viewport');
          return { frame: box(v), block: box(r.querySelector('g.cluster.vz-opened-frame')),
                   current: box(r.querySelector('.vz-stage g.node.vz-s-current')) };
        }"""
    )


@pytest.mark.parametrize("fold", ["fold_v11", "fold_a2"])
def test_a_fold_opens_fast_framed_on_its_block(browser, rnn_page, page_errors, fold):
    times = []
    for run in range(3):
        context = browser.new_context(viewport={"width": 1024, "height": 768}, offline=True)
        page = page_errors(context.new_page())
        page.goto(rnn_page.as_uri())
        _ready(page)
        assert page.locator(f"{ROOT} g.node.vz-collapsible#{fold}").count() == 1
        # the page gets ready to open its folds while the person reads (laid out ahead)
        page.wait_for_function(
            f"id => document.querySelector('{ROOT}').dataset.prepared?.split(' ').includes(id)",
            arg=fold,
            timeout=30_000,
        )
        times.append(_open(page, fold))
        # laid out ahead, it says where, as a box laid out when clicked does (test_page_policy)
        assert page.locator(ROOT).get_attribute("data-layout-thread") == "worker"
        settled(page, 3)
        box = _boxes(page)
        frame, block = box["frame"], box["block"]
        # framed on the block: its height inside the frame, centred; its width inside the
        # frame, or across it (a block wider than the frame)
        assert frame["t"] <= block["t"] and block["b"] <= frame["b"], box
        middle = (frame["t"] + frame["b"]) / 2
        assert abs((block["t"] + block["b"]) / 2 - middle) <= 2, box
        assert block["l"] < frame["r"] and block["r"] > frame["l"], box
        assert (frame["l"] <= block["l"] and block["r"] <= frame["r"]) or (
            block["l"] <= frame["l"] + 20 and block["r"] >= frame["r"] - 20
        ), box
        if fold == "fold_v11":  # the current step (v₁₄₅) is inside it: in view, in the block
            current = box["current"]
            assert frame["l"] <= current["l"] and current["r"] <= frame["r"], box
            assert block["t"] <= current["t"] and current["b"] <= block["b"], box
        if run == 0:
            page.screenshot(path=artifact(f"folds-{fold}-opened.png"))
        context.close()
    assert statistics.median(times) <= FOLD_OPENS_S, times
    assert not page_errors.errors, "\n".join(page_errors.errors)


@pytest.mark.parametrize("size", [(1024, 768), (760, 800)])
def test_the_table_of_partial_adjoints_shows_six_rows(browser, rnn_page, page_errors, size):
    """At the last step (v̄₁, ten partial adjoints) at least six rows of its table are whole
    in the table's and the panel's visible part: at 1024×768 (the panel beside the graph) and
    at 760×800 (below it; the graph's frame above its least, 200 px: where the frame is at its
    least the panel scrolls)."""
    page = page_errors(browser.new_page(viewport={"width": size[0], "height": size[1]}))
    page.goto(rnn_page.as_uri())
    _ready(page)
    wide = "vz-wide" in page.locator(ROOT).get_attribute("class")
    assert wide == (size[0] >= 1024)
    page.evaluate(f"() => document.querySelector('{ROOT}').focus()")
    page.keyboard.press("End")
    page.wait_for_function(
        f"() => document.querySelector('{ROOT} .vz-counter').textContent"
        ".startsWith('Step 145 of 145')"
    )
    settled(page, 3)
    seen = page.evaluate(
        """() => {
          const r = document.querySelector('.vizad-stepper');
          const table = r.querySelector('.vz-step-panel .vz-contributions');
          const panel = r.querySelector(r.matches('.vz-wide') ? '.vz-side' : '.vz-step-panel')
            .getBoundingClientRect();
          const t = table.getBoundingClientRect();
          const rows = [...table.querySelectorAll('tbody tr')];
          const whole = rows.filter((tr) => { const b = tr.getBoundingClientRect();
            return b.top >= Math.max(t.top, panel.top) - 1 &&
              b.bottom <= Math.min(t.bottom, panel.bottom) + 1; });
          return { rows: rows.length, whole: whole.length, height: t.height };
        }"""
    )
    page.screenshot(path=artifact(f"folds-table-{size[0]}x{size[1]}.png"))
    assert seen["rows"] == 10, seen
    assert seen["whole"] >= 6, seen
    assert not page_errors.errors, "\n".join(page_errors.errors)


def _split_words(page, selector: str) -> list[str]:
    """The words of the cells at ``selector`` drawn on more than one line (split)."""
    return page.evaluate(
        """(sel) => {
          const split = [];
          for (const cell of document.querySelectorAll(sel)) {
            // the cell's text as one string, each character's text node and offset kept
            const at = [];
            const walk = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
            for (let t = walk.nextNode(); t; t = walk.nextNode()) {
              for (let k = 0; k < t.data.length; k++) at.push([t, k]);
            }
            const all = at.map(([t, k]) => t.data[k]).join('');
            for (const m of all.matchAll(/[^\\s\\/]+\\/?/g)) { // words (a fraction wraps after /)
              const range = document.createRange();
              const [first, last] = [at[m.index], at[m.index + m[0].length - 1]];
              range.setStart(first[0], first[1]);
              range.setEnd(last[0], last[1] + 1);
              const lines = new Set([...range.getClientRects()].map((b) => Math.round(b.top)));
              if (lines.size > 1) split.push(m[0]);
            }
          }
          return split;
        }""",
        selector,
    )


@pytest.mark.parametrize("size", [(1024, 768), (1280, 800)])
def test_presenting_the_heads_break_between_words(browser, tmp_path, page_errors, size):
    import vizad as vz

    path = vz.export_html(vz.examples.mlp(), tmp_path / "mlp.html")
    page = page_errors(browser.new_page(viewport={"width": size[0], "height": size[1]}))
    page.goto(path.as_uri())
    _ready(page)
    page.locator(f"{ROOT} .vz-present-button").click()
    page.wait_for_function(f"() => document.querySelector('{ROOT}').matches('.vz-present')")
    heads = f"{ROOT} .vz-step-panel .vz-contributions th"
    checked = 0
    for _ in range(30):  # the steps with a table of partial adjoints
        settled(page, 2)
        if page.locator(heads).count():
            checked += 1
            assert _split_words(page, heads) == [], page.locator(heads).all_inner_texts()
        page.keyboard.press("ArrowRight")
    assert checked >= 3
    page.screenshot(path=artifact(f"folds-present-heads-{size[0]}.png"))
    assert not page_errors.errors, "\n".join(page_errors.errors)


def _focused(page) -> str:
    return page.evaluate(
        "() => document.activeElement?.className?.toString() ?? String(document.activeElement)"
    )


def test_one_esc_leaves_a_focused_quiz_field(browser, tmp_path, page_errors):
    import vizad as vz

    path = vz.export_html(vz.examples.lecture(), tmp_path / "quiz.html", quiz=True)
    page = page_errors(browser.new_page(viewport={"width": 1024, "height": 768}))
    page.goto(path.as_uri())
    answer = page.locator(f"{ROOT} .vz-answer")
    answer.click()
    assert "vz-answer" in _focused(page)
    page.keyboard.press("Escape")
    assert "vizad-stepper" in _focused(page)  # one Esc: the keys are the steps' again
    page.keyboard.press("ArrowRight")
    page.wait_for_function(
        f"() => document.querySelector('{ROOT} .vz-counter').textContent.startsWith('Step 2')"
    )
    # presenting, at step 2 its question's field focused: one Esc leaves the field and the mode
    page.locator(f"{ROOT} .vz-present-button").click()
    page.wait_for_function(f"() => document.querySelector('{ROOT}').matches('.vz-present')")
    answer.click()
    assert "vz-answer" in _focused(page)
    page.keyboard.press("Escape")
    page.wait_for_function(f"() => !document.querySelector('{ROOT}').matches('.vz-present')")
    settled(page, 3)
    assert "vizad-stepper" in _focused(page), _focused(page)
    page.keyboard.press("ArrowRight")  # the keys step, at once
    page.wait_for_function(
        f"() => document.querySelector('{ROOT} .vz-counter').textContent.startsWith('Step 3')"
    )
    page.screenshot(path=artifact("folds-quiz-esc.png"))
    assert not page_errors.errors, "\n".join(page_errors.errors)
