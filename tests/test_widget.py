"""The stepper without a browser: clicks, the step, the panels, errors shown in the widget."""

import math

import numpy as np
import pytest

import vizad as vz


@pytest.fixture
def stepper():
    x1, x2 = vz.Variable("x1"), vz.Variable("x2")
    y = vz.log(x1) + x1 * x2 - vz.sin(x2)
    return vz.step(y, [x1, x2], {x1: 2.0, x2: 5.0})


def test_buttons_and_step_drive_everything(stepper):
    assert stepper.n_steps == 7 and stepper.step == 0
    assert "Step 1 of 7: v₇ = v₆ - v₅" in stepper.panel.value
    assert stepper.prev_button.disabled and not stepper.next_button.disabled
    for _ in range(5):
        stepper.next_button.click()
    assert stepper.step == 5 and stepper.slider.value == 5
    assert "Step 6 of 7: v₂ = x₂" in stepper.panel.value
    assert "<b>1.716</b>" in stepper.panel.value and "-0.284" in stepper.panel.value
    assert "#v2&gt;path" not in stepper.graph.value and "#v2>path" in stepper.graph.value
    stepper.last_button.click()
    assert stepper.step == 6 and "<b>5.5</b>" in stepper.panel.value
    assert stepper.next_button.disabled
    stepper.next()  # stays on the last step
    assert stepper.step == 6
    stepper.first_button.click()
    assert stepper.step == 0
    stepper.prev()
    assert stepper.step == 0
    stepper.slider.value = 3
    assert stepper.step == 3 and "Step 4 of 7" in stepper.panel.value
    stepper.play.value = 4  # play sets the step too
    assert stepper.step == 4
    stepper.step = 99
    assert stepper.step == 6
    rows = stepper.table.value.count("<tr")
    assert rows == 7 and "5.5" in stepper.table.value


def test_views_switch_without_new_layouts(stepper, monkeypatch):
    stepper.step = 2
    adjoint_svg = stepper.graph.value
    stepper.view.value = "forward"
    assert stepper.graph.value != adjoint_svg and 'id="a1"' not in stepper.graph.value
    stepper.view.value = "backprop"
    assert "v̄₂ = 1.716" in stepper.graph.value
    import vizad.render.layout as layout_module

    monkeypatch.setattr(layout_module, "run_dot", lambda *a: pytest.fail("dot ran again"))
    for k in range(7):
        stepper.step = k
    stepper.view.value = "adjoint"
    stepper.step = 1


def test_failing_steps_are_shown_in_red():
    class WrongSquare(vz.Op):
        name = "wrong_square_widget"

        def compute(self, x):
            return x * x

        def vjp(self, node, adjoint):
            return [adjoint * node.inputs[0]]

    x = vz.Variable("x")
    square = WrongSquare()(x)
    s = vz.Stepper(vz.trace_reverse(vz.sin(square), [x], {x: 0.7}))
    bad = s.trace.step_of(square).index
    assert list(s.failures) == [bad]
    s.step = bad
    assert 'class="vz-fail"' in s.panel.value and "wrong_square_widget" in s.panel.value
    assert 'class="vz-bad"' in s.table.value
    assert "#c0392b" in s.graph.value  # the failing node in red


def test_forward_mode_stepper():
    x1, x2 = vz.Variable("x1"), vz.Variable("x2")
    y = vz.log(x1) + x1 * x2 - vz.sin(x2)
    s = vz.step(y, [x1, x2], {x1: 2.0, x2: 5.0}, mode="forward")
    s.step = 3
    assert "v̇₄ = Σ v̇ₖ ∂vᵢ/∂vₖ = <b>5</b>" in s.panel.value
    assert "1 &#92;times 5 + 0 &#92;times 2 = 5" in s.panel.value
    s.last_button.click()
    assert "v̇₇ = Σ v̇ₖ ∂vᵢ/∂vₖ = <b>5.5</b>" in s.panel.value
    with pytest.raises(ValueError, match="mode"):
        vz.step(y, [x1], {x1: 2.0, x2: 5.0}, mode="sideways")


def test_exceptions_in_callbacks_appear_in_the_widget(stepper, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("panel exploded")

    import vizad.widget.stepper as module

    monkeypatch.setattr(module, "step_panel", broken)
    stepper.next_button.click()  # does not raise …
    outputs = stepper.errors.outputs
    assert outputs and "panel exploded" in "".join(o.get("text", "") for o in outputs)


def test_bad_arguments():
    with pytest.raises(TypeError, match="steps through a trace"):
        vz.Stepper("not a trace")
    x = vz.Variable("x")
    with pytest.raises(ValueError, match="has the views"):
        vz.Stepper(vz.trace_reverse(x * 2, [x], {x: 1.0}), view="sideways")
    with pytest.raises(ValueError, match="no steps"):
        vz.Stepper(vz.trace_reverse(vz.constant(2.0) * 3, [x], {x: 1.0}))


def test_export_html_is_self_contained(tmp_path):
    x = vz.Variable("<script>alert(1)</script>")
    trace = vz.trace_reverse(vz.tanh(x * np.ones(3)), [x], {x: 0.5})
    path = vz.export_html(trace, tmp_path / "page.html")
    page = path.read_text()
    assert page.startswith("<!DOCTYPE html>")
    assert "http://" not in page.replace("http://www.w3.org", "") and "https://" not in page
    assert "<script>alert(1)</script>" not in page  # user text escaped everywhere
    assert page.count("<script") == 2  # our data and our stepper only
    assert math.isclose(trace.adjoint(x), 3 * (1 - np.tanh(0.5) ** 2))
    with pytest.raises(ValueError, match="no steps"):
        vz.export_html(vz.trace_reverse(vz.constant(1.0) + 1, [x], {x: 0.0}), tmp_path / "e.html")
    with pytest.raises(TypeError, match="trace or a Stepper"):
        vz.export_html(x, tmp_path / "e.html")
