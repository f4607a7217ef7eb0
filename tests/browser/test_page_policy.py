"""An exported page's Content-Security-Policy in the browser (issue 46): the pages (laid out
by ``dot``, laid out in the browser, a quiz, an RNN whose collapsed boxes open in the page's
worker) run with zero policy violations and zero console errors while stepping and opening a
box; and an event handler that a missed escape would let into the page does not run.

Violations are caught by a ``securitypolicyviolation`` listener on the document; the
worker's own (importing Graphviz, compiling its WebAssembly) would fail its layout, so each
layout is required to finish, in the worker where the page lays out.
"""

from __future__ import annotations

import pytest
from conftest import settled

ROOT = ".vizad-stepper"
WATCH = (
    "globalThis.__violations = [];"
    "document.addEventListener('securitypolicyviolation', e => __violations.push("
    "e.effectiveDirective + ' ' + e.blockedURI));"
)
INJECTED = '<img src=x onerror="window.__pwned=1">'


def _open(browser, path, page_errors):
    context = browser.new_context(viewport={"width": 1024, "height": 768}, offline=True)
    context.add_init_script(WATCH)
    page = page_errors(context.new_page())
    page.goto(path.as_uri())
    _wait(page, "r?.dataset.layout === 'done'")
    return context, page


def _wait(page, script: str) -> None:
    page.wait_for_function(
        f"() => {{ const r = document.querySelector('{ROOT}'); return {script}; }}",
        timeout=60_000,
    )


def _step(page, to: int) -> None:
    page.locator(f"{ROOT} .vz-next").click()
    page.wait_for_function(
        f"() => document.querySelector('{ROOT} .vz-counter').textContent.startsWith('Step {to} of')"
    )


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    import os

    import vizad as vz

    folder = tmp_path_factory.mktemp("csp")
    made = {}
    old = os.environ.get("VIZAD_LAYOUT")
    try:
        for layout in ("dot", "browser"):
            os.environ["VIZAD_LAYOUT"] = layout
            made[f"lecture-{layout}"] = vz.export_html(
                vz.examples.lecture(), folder / f"lecture-{layout}.html"
            )
        os.environ["VIZAD_LAYOUT"] = "dot"
        made["quiz"] = vz.export_html(vz.examples.lecture(), folder / "quiz.html", quiz=True)
        made["rnn"] = vz.export_html(
            vz.examples.rnn(steps=45), folder / "rnn.html", collapse="repeats"
        )
    finally:
        if old is None:
            os.environ.pop("VIZAD_LAYOUT", None)
        else:
            os.environ["VIZAD_LAYOUT"] = old
    return made


@pytest.mark.parametrize("name", ["lecture-dot", "lecture-browser", "rnn"])
def test_a_page_runs_under_its_policy(browser, pages, page_errors, name):
    html = pages[name].read_text(encoding="utf-8")
    assert 'http-equiv="Content-Security-Policy"' in html
    context, page = _open(browser, pages[name], page_errors)
    if name == "lecture-browser":
        assert page.locator(ROOT).get_attribute("data-layout-thread") == "worker"
    for k in (2, 3, 4):
        _step(page, k)
    if name == "rnn":  # a collapsed box opened: laid out in the page's worker
        box = page.evaluate(
            f"() => document.querySelector('{ROOT} .vz-stage g.node[id^=fold_]')?.id ?? null"
        )
        assert box, "no collapsed box drawn"
        page.locator(f"{ROOT} g.node#{box}").dispatch_event("click")
        _wait(page, "r.dataset.opened && r.dataset.layout === 'done'")
        assert page.locator(ROOT).get_attribute("data-opened") == box
        assert page.locator(ROOT).get_attribute("data-layout-thread") == "worker"
        _step(page, 5)
    other = page.locator(f"{ROOT} .vz-view[aria-pressed=false]").first  # another view, laid out
    if other.count():
        other.click()
        _wait(page, "r.dataset.layout === 'done'")
    settled(page)
    violations = page.evaluate("() => globalThis.__violations")
    context.close()
    assert violations == []
    assert not page_errors.errors, "\n".join(page_errors.errors)


def test_a_quiz_page_runs_under_its_policy(browser, pages, page_errors):
    context, page = _open(browser, pages["quiz"], page_errors)
    answer = page.locator(f"{ROOT} .vz-answer")
    assert answer.count() == 1
    answer.fill("1")  # a wrong answer, judged in the page
    answer.press("Enter")
    settled(page)
    violations = page.evaluate("() => globalThis.__violations")
    context.close()
    assert violations == []
    assert not page_errors.errors, "\n".join(page_errors.errors)


@pytest.mark.parametrize("name", ["lecture-dot", "lecture-browser"])
def test_an_injected_event_handler_does_not_run(browser, pages, page_errors, tmp_path, name):
    """A missed escape, simulated: an element with an event handler written into the page
    after export. Under the page's policy it does not run (the page still works); the same
    page without the policy runs it (the test can see it run)."""
    html = pages[name].read_text(encoding="utf-8")
    injected = html.replace('<div id="vz-root">', INJECTED + '<div id="vz-root">', 1)
    assert injected != html
    bare = injected.replace('http-equiv="Content-Security-Policy"', 'name="no-policy"', 1)
    found = {}
    for kind, text in (("policy", injected), ("bare", bare)):
        path = tmp_path / f"{kind}.html"
        path.write_text(text, encoding="utf-8")
        context = browser.new_context(viewport={"width": 1024, "height": 768}, offline=True)
        context.add_init_script(WATCH)
        page = context.new_page()
        page.goto(path.as_uri())
        _wait(page, "r?.dataset.layout === 'done'")
        _step(page, 2)
        settled(page)
        found[kind] = page.evaluate("() => [globalThis.__pwned ?? null, globalThis.__violations]")
        context.close()
    pwned, violations = found["policy"]
    assert pwned is None
    assert any(v.startswith("script-src") for v in violations), violations
    assert found["bare"][0] == 1
