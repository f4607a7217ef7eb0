"""The exported pages of PyTorch's and JAX's backward passes, stepped in a real browser."""

import numpy as np
import pytest

import vizad as vz

from conftest import artifact

ROOT = ".vizad-stepper"


def _stepped_to_the_end(browser, page_errors, path):
    page = page_errors(browser.new_page(viewport={"width": 1024, "height": 768}))
    page.goto(path.as_uri())
    page.wait_for_selector(f"{ROOT} .vz-panel")
    page.locator(f"{ROOT} .vz-last").click()
    return page


def test_pytorchs_backward_pass_steps_in_the_page(browser, tmp_path, page_errors):
    torch = pytest.importorskip("torch")
    x1 = torch.tensor(2.0, dtype=torch.float64, requires_grad=True)
    x2 = torch.tensor(5.0, dtype=torch.float64, requires_grad=True)
    trace = vz.torch_backward(torch.log(x1) + x1 * x2 - torch.sin(x2), {"x1": x1, "x2": x2})
    page = _stepped_to_the_end(browser, page_errors, vz.export_html(trace, tmp_path / "t.html"))
    text = page.locator(ROOT).inner_text()
    assert "Step 7 of 7" in text and "PyTorch's backward pass" in text and "5.5" in text
    page.locator(f"{ROOT} .vz-first").click()  # step 1: the output (its value is the loss)
    page.locator(f"{ROOT} .vz-next").click()  # step 2: sin, whose value PyTorch did not keep
    assert "not saved by PyTorch" in page.locator(f"{ROOT} .vz-panel").inner_text()
    page.screenshot(path=artifact("torch-backward-export.png"))
    page.close()
    assert not page_errors.errors, "\n".join(page_errors.errors)


def test_jaxs_backward_pass_steps_in_the_page(browser, tmp_path, page_errors):
    jnp = pytest.importorskip("jax.numpy")
    trace = vz.jax_backward(lambda x, w: jnp.sum(jnp.tanh(x @ w)), np.ones((2, 3)), np.ones(3))
    page = _stepped_to_the_end(browser, page_errors, vz.export_html(trace, tmp_path / "j.html"))
    text = page.locator(ROOT).inner_text()
    assert f"Step {len(trace.steps)} of {len(trace.steps)}" in text and "JAX" in text
    page.screenshot(path=artifact("jax-backward-export.png"))
    page.close()
    assert not page_errors.errors, "\n".join(page_errors.errors)


def test_the_first_nan_and_the_users_line_in_the_page(browser, tmp_path, page_errors):
    """An imported function whose log makes a NaN: the page's ⚠ NaN button and the key N go
    to the step trace.first_nonfinite() names; that step's panel and its box's tooltip show
    the user's line of code (the find row, shown for big views, searches it too:
    widget/frames.py's find entries)."""
    torch = pytest.importorskip("torch")

    def loss(w, x):
        h = torch.log(w * x)  # the NaN: w * x < 0 in one place
        return (h * h).sum()

    f64 = torch.float64
    f = vz.from_torch(
        loss, torch.tensor([1.0, -2.0], dtype=f64), torch.tensor([3.0, 1.0], dtype=f64)
    )
    trace = vz.trace_reverse(f.output, f.inputs, f.feed)
    bad = trace.first_nonfinite()
    assert bad is not None and "torch.log(w * x)" in (bad.node.source or "")
    page = page_errors(browser.new_page(viewport={"width": 1024, "height": 768}))
    page.goto(vz.export_html(trace, tmp_path / "nan.html").as_uri())
    page.wait_for_selector(f"{ROOT} .vz-panel")
    n = len(trace.steps)
    head = page.locator(ROOT)
    page.locator(f"{ROOT} .vz-nonfinite").click()
    assert f"Step {bad.index + 1} of {n}" in head.inner_text()
    panel = page.locator(f"{ROOT} .vz-panel")
    assert "torch.log(w * x)" in panel.locator(".vz-source").inner_text()
    page.locator(f"{ROOT} .vz-first").click()
    assert f"Step 1 of {n}" in head.inner_text()
    page.locator(ROOT).focus()
    page.keyboard.press("n")
    assert f"Step {bad.index + 1} of {n}" in head.inner_text()
    # the current box's tooltip ends with the line
    page.locator(f"{ROOT} g.node#v{trace.numbers[bad.node]}").hover()  # red: its check fails
    tip = page.locator(f"{ROOT} .vz-tip")
    tip.wait_for(state="visible")
    assert "torch.log(w * x)" in tip.inner_text()
    page.screenshot(path=artifact("first-nan-export.png"))
    page.close()
    assert not page_errors.errors, "\n".join(page_errors.errors)
