"""A step's panel is built twice from the same data (vizad/trace/panel.py): by the browser
component (static/stepper/panel.js, DOM calls) and, for a stepper's static picture that needs
no script, by Python (vizad/view/widget/snapshot.py, ElementTree). At every step of a reverse,
a forward, a tensor (heatmaps), a failing and a hostile-named walkthrough, both give the same
elements: tags, classes, texts, tooltips, labels and heatmap colours as Chromium computes
them; no name runs as a script."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from hostile_names import FLAG  # noqa: E402

#: The panel's elements as Chromium has them: per element (itself first), its tag, classes,
#: own text, title, aria-label, and a heatmap cell's computed colour.
#: What only the component adds, for its clicks (a step's element cells, issue 48: the cells'
#: class and label, the box their terms are shown in; the zoom of a fine heatmap, its box
#: that scrolls and its buttons), is left out: the picture is still.
ELEMENTS = """(panel) => [panel, ...panel.querySelectorAll('*')]
 .filter((e) => !e.closest('.vz-element, .vz-heat-zoom') && !e.classList.contains('vz-heat-box'))
 .map((e) => [
  e.tagName, e.className.replace(/ ?vz-cell-click/, ''),
  [...e.childNodes].filter((n) => n.nodeType === 3).map((n) => n.data).join(''),
  e.getAttribute('title'),
  e.classList.contains('vz-cell-click') ? null : e.getAttribute('aria-label'),
  e.parentElement && e.parentElement.classList.contains('vz-heat')
    ? getComputedStyle(e).backgroundColor : null,
])"""


def _walkthroughs():
    import vizad as vz

    class WrongSquare(vz.Op):
        name = "wrong_square_panel"

        def compute(self, x):
            return x * x

        def vjp(self, node, adjoint):
            return [adjoint * node.inputs[0]]

    lecture = vz.examples.lecture()
    x1, x2 = lecture.wrt
    W, x = vz.Variable("W", shape=(4, 30)), vz.Variable("x", shape=(30,))
    feed = {W: np.linspace(-1, 1, 120).reshape(4, 30), x: np.linspace(-2, 2, 30)}
    a, b = vz.Variable("<img src=x onerror=alert(1)>"), vz.Variable("</td><script>")
    w = vz.Variable("w")
    return {
        "reverse": lecture,
        "forward": vz.trace_forward(lecture.output, feed=lecture.feed, tangents={x1: 1.0}),
        "tensor": vz.trace_reverse(vz.sum(vz.tanh(vz.matmul(W, x))), [W, x], feed),
        "failing": vz.trace_reverse(vz.sin(WrongSquare()(w)), [w], {w: 0.7}),
        "hostile": vz.trace_reverse(vz.sin(a) * b, [a, b], {a: 2.0, b: 5.0}),
    }


@pytest.mark.parametrize("name", ["reverse", "forward", "tensor", "failing", "hostile"])
def test_the_component_and_the_static_picture_build_the_same_panel(
    name, browser, tmp_path, page_errors
):
    import vizad as vz

    trace = _walkthroughs()[name]
    n = len(trace.steps)
    page = page_errors(browser.new_page(viewport={"width": 1280, "height": 800}))
    page.goto(vz.export_html(trace, tmp_path / "page.html").as_uri())
    still = browser.new_page(java_script_enabled=False)
    stepper = vz.Stepper(trace)
    for k in range(1, n + 1):
        page.wait_for_function(
            "t => document.querySelector('.vz-step-panel .vz-head')?.textContent.startsWith(t)",
            arg=f"Step {k} of {n}:",
        )
        built = page.evaluate(ELEMENTS, page.query_selector(".vz-step-panel > .vz-panel"))
        stepper.step = k
        still.set_content(stepper._repr_mimebundle_()[0]["text/html"])
        made = still.evaluate(ELEMENTS, still.query_selector(".vz-panel"))
        assert built == made, f"{name}, step {k}"
        if name == "tensor" and k == n:
            assert sum(e[5] is not None for e in built) > 100  # its heatmaps' cells
        page.locator(".vizad-stepper").first.press("ArrowRight")
    assert not page.evaluate(f"!!window.{FLAG}") and not still.evaluate(f"!!window.{FLAG}")
    still.close()
    page.close()
    assert not page_errors.errors, "\n".join(page_errors.errors)


@pytest.mark.hostile_names
def test_a_value_read_by_many_ops_under_every_hostile_name(browser, tmp_path, page_errors):
    """The panel's "Σ … (N terms)" line of a value read by more than six ops, under each of
    the adversarial suite's names, in an exported page and in the widget's static picture:
    no name runs as a script."""
    import vizad as vz
    from hostile_names import NAMES

    page = page_errors(browser.new_page(viewport={"width": 1280, "height": 800}))
    still = browser.new_page(java_script_enabled=False)
    for k, name in enumerate(NAMES):
        x = vz.Variable(name)
        y = vz.sin(x) + vz.cos(x) + vz.exp(x) + vz.tanh(x) + x * x + (x + 1.0) + x * 2.0
        trace = vz.trace_reverse(y - 3.0 * x, [x], {x: 0.5})
        n = len(trace.steps)
        page.goto(vz.export_html(trace, tmp_path / f"page{k}.html").as_uri())
        for _ in range(n - 1):
            page.locator(".vizad-stepper").first.press("ArrowRight")
        page.wait_for_function(
            "t => document.querySelector('.vz-step-panel .vz-head')?.textContent.startsWith(t)",
            arg=f"Step {n} of {n}:",
        )
        assert "terms)" in page.inner_text(".vz-step-panel"), name  # the Σ line is shown
        stepper = vz.Stepper(trace)
        stepper.step = n
        still.set_content(stepper._repr_mimebundle_()[0]["text/html"])
        assert "terms)" in still.inner_text(".vz-panel"), name
        assert not page.evaluate(f"!!window.{FLAG}"), name
    assert len(NAMES) >= 50
    still.close()
    page.close()
    assert not page_errors.errors, "\n".join(page_errors.errors)
