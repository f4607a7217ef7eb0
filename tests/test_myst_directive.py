"""vizad.view.export.myst_directive: a stepper for mystmd's ``{anywidget}`` directive (the
page itself is built and stepped in tests/browser/test_myst.py)."""

from __future__ import annotations

import doctest
import json

import pytest

import vizad as vz
from vizad.errors import ArgumentError
from vizad.view import export


def _lecture():
    x1, x2 = vz.Variable("x1"), vz.Variable("x`2")  # a backtick in a name: data, not a fence
    y = vz.log(x1) + x1 * x2 - vz.sin(x2)
    return vz.trace_reverse(y, [x1, x2], {x1: 2.0, x2: 5.0})


def test_its_example_runs():
    finder = doctest.DocTestFinder()
    (test,) = finder.find(export.myst_directive, globs={"vz": vz, **vars(export)})
    result = doctest.DocTestRunner().run(test)
    assert result.failed == 0 and result.attempted > 0


def test_the_directive_and_its_model(tmp_path):
    text = export.myst_directive(_lecture(), tmp_path, step=6)
    fence, css, body, end = text.splitlines()
    assert fence == "```{anywidget} ./vizad-stepper.mjs" and css == ":css: ./vizad-stepper.css"
    assert end == "```" and "`" not in body  # the name's backtick is written \u0060
    model = json.loads(body)
    assert model["step"] == 6 and model["view"] == "adjoint" and model["connected"] is False
    assert model["data"]["n"] == 7 and set(model["data"]["frames"]) == {
        "forward",
        "adjoint",
        "backprop",
    }
    assert "x\\u00602" in body and "x`2" in json.dumps(model, ensure_ascii=False)
    module = (tmp_path / "vizad-stepper.mjs").read_text()
    assert module == export.component_module()


def test_a_stepper_opens_at_its_own_step(tmp_path):
    stepper = vz.Stepper(_lecture(), step=4)
    assert json.loads(export.myst_directive(stepper, tmp_path).splitlines()[2])["step"] == 4


@pytest.mark.parametrize("step", [0, 8, 2.0, True])
def test_a_step_out_of_range_is_refused(tmp_path, step):
    with pytest.raises(ArgumentError, match="step must be a whole number 1 … 7"):
        export.myst_directive(_lecture(), tmp_path, step=step)


def test_a_quiz_is_refused(tmp_path):
    with pytest.raises(ArgumentError, match="quiz"):
        export.myst_directive(vz.Stepper(_lecture(), quiz=True), tmp_path)
