"""NaN and infinite values are told apart from failing rules: the lecture's example at a point
where ln gets a negative input (x1 = −1: v₃ = ln v₁ is NaN, and so are v₆ and v₇). trace.check()
cannot check the steps holding NaN (central differences there are NaN), so it lists them in
trace.not_checked() instead of reporting their correct rules as failures; the stepper marks
their boxes and panels as holding NaN produced here (ln) or received (v₆, v₇), never with ✗."""

import json
import math
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import vizad as vz
from vizad.trace.check import differences_report
from vizad.trace.nonfinite import nonfinite_words, step_marks
from vizad.view.widget.data import walkthrough_data
from vizad.view.widget.snapshot import panel_element

X1, X2 = -1.0, 5.0


class WrongSin(vz.Op):
    """sin with the sign of its derivative wrong in the vjp: a rule that really fails."""

    name = "wrong_sin_nan"

    def compute(self, x):
        return np.sin(x)

    def vjp(self, node, adjoint):
        return [-adjoint * vz.cos(node.inputs[0])]


def lecture(sin=vz.sin):
    x1, x2 = vz.Variable("x1"), vz.Variable("x2")
    y = vz.log(x1) + x1 * x2 - sin(x2)
    with np.errstate(all="ignore"):
        return vz.trace_reverse(y, [x1, x2], {x1: X1, x2: X2})


@pytest.fixture
def trace():
    return lecture()


def by_label(trace):
    return {s.label: s for s in trace.steps}


def test_the_adjoints_are_right_and_only_the_values_are_nan(trace):
    steps = by_label(trace)
    # y = v₇ = v₆ − v₅, v₆ = v₃ + v₄, v₅ = sin v₂, v₄ = v₁ v₂, v₃ = ln v₁ (NaN at v₁ = −1)
    expected = {"v₇": 1.0, "v₆": 1.0, "v₅": -1.0, "v₄": 1.0, "v₃": 1.0,
                "v₂": X1 * 1.0 - math.cos(X2), "v₁": 1.0 / X1 + X2}  # fmt: skip
    for label, adjoint in expected.items():
        assert float(steps[label].adjoint) == pytest.approx(adjoint, rel=1e-12), label
    nan = {label for label, s in steps.items() if np.isnan(s.value)}
    assert nan == {"v₃", "v₆", "v₇"}
    assert trace.first_nonfinite().label == "v₃"


def test_check_reports_no_failure_and_lists_the_nan_steps_as_not_checked(trace):
    assert trace.check() == []
    skipped = {s.label: s for s in trace.not_checked()}
    assert set(skipped) == {"v₃", "v₆", "v₇"}
    assert "v₃ = NaN: produced here (ln v₁ with v₁ = -1)" in skipped["v₃"].reason
    assert "v₆ = NaN: received from v₃" in skipped["v₆"].reason
    assert "input v₃ = NaN" in skipped["v₆"].reason
    assert "v₇ = NaN: received from v₆" in skipped["v₇"].reason
    assert str(skipped["v₃"]).startswith("step 5, v₃ = log(…): not checked: non-finite values")


def test_the_stepper_marks_nan_boxes_as_such_and_no_correct_adjoint_with_a_cross(trace):
    s = vz.Stepper(trace)
    data = s.data
    assert s.failures == {} and data["failed"] == [] and data["nonfinite"] == 5
    text = json.dumps(data, ensure_ascii=False)
    assert "✗" not in text and "cannot be checked" not in text
    steps = by_label(trace)
    marks = {}
    for label in ("v₃", "v₆", "v₇"):
        k = steps[label].index
        record = data["steps"][k]
        assert "fail" not in record["panel"] and not record["row"]["bad"]
        assert record["row"]["cells"][2] == []  # the adjoint is finite: no mark at all
        assert record["panel"]["total"] == "1" == record["row"]["cells"][1][0]  # v̄ᵢ = 1
        marks[label] = record["panel"]["nonfinite"]
        # the static picture's panel says the same, in its own element (not a failure's)
        html = ET.tostring(panel_element(record["panel"], data["contributionsHead"]), "unicode")
        assert 'class="vz-nan-note"' in html and "vz-fail" not in html
    assert marks == {
        "v₃": "⚠ v₃ = NaN: produced here (ln v₁ with v₁ = -1)",
        "v₆": "⚠ v₆ = NaN: received from v₃",
        "v₇": "⚠ v₇ = NaN: received from v₆",
    }
    for label in ("v₁", "v₂", "v₄", "v₅"):  # finite everywhere: no mark
        assert "nonfinite" not in data["steps"][steps[label].index]["panel"]
    assert ["nf-here", "NaN/inf produced here"] in data["legend"]
    assert ["nf-received", "NaN/inf received"] in data["legend"]
    # the boxes: every view marks the NaN values' boxes, produced at ln, received after it
    every = walkthrough_data(trace, failures=s.failures)  # every view laid out (a page's)
    assert set(every["frames"]) == set(trace.views) and "✗" not in json.dumps(
        every, ensure_ascii=False
    )
    for view in trace.views:
        layout = s.layout_of(view)
        assert layout.failed == frozenset()  # nothing drawn as a failing rule
        tips = every["frames"][view]["tips"]
        ids = layout.scene.ids
        got = {i: t["nf"] for i, t in tips.items() if "nf" in t}
        want = {ids[steps["v₃"].node]: "here", ids[steps["v₆"].node]: "received",
                ids[steps["v₇"].node]: "received"}  # fmt: skip
        assert got == want, view
        assert "⚠ v₃ = NaN: produced here" in tips[ids[steps["v₃"].node]]["value"]


def test_the_check_by_differences_at_a_nan_point_compares_nothing(trace):
    k = by_label(trace)["v₃"].index
    report = differences_report(trace, k)
    assert report["agree"] is None and report["numeric"] is None and report["computed"] == 1.0
    assert "not compared (non-finite values" in report["text"] and "DIFFER" not in report["text"]
    fine = differences_report(trace, by_label(trace)["v₁"].index)  # moves v₁: NaN output too
    assert fine["agree"] is None
    json.dumps(report, allow_nan=False)  # valid JSON for the page


def test_a_wrong_rule_at_a_step_without_nan_still_fails():
    trace = lecture(sin=WrongSin())
    steps = by_label(trace)
    failures = trace.check()
    assert failures and {f.op for f in failures} == {"wrong_sin_nan"}
    # the wrong partial adjoint v̄₂→₅ shows at the step of v₂
    assert [f.label for f in failures] == ["v₂"] and not any(np.isnan(f.error) for f in failures)
    assert {s.label for s in trace.not_checked()} == {"v₃", "v₆", "v₇"}
    s = vz.Stepper(trace)
    bad = steps["v₂"].index
    assert s.data["failed"] == [bad]
    record = s.data["steps"][bad]
    assert record["panel"]["fail"].startswith("✗ ") and "wrong_sin_nan" in record["panel"]["fail"]
    assert record["row"]["cells"][2] == ["✗"] and record["row"]["bad"]
    for label in ("v₃", "v₆", "v₇"):
        assert "fail" not in s.data["steps"][steps[label].index]["panel"]


def test_forward_mode_marks_the_same_values():
    x1, x2 = vz.Variable("x1"), vz.Variable("x2")
    y = vz.log(x1) + x1 * x2 - vz.sin(x2)
    with np.errstate(all="ignore"):
        trace = vz.trace_forward(y, x1, {x1: X1, x2: X2})
    assert trace.check() == []
    marks = {trace.steps[k].label: [str(m) for m in ms] for k, ms in step_marks(trace).items()}
    assert marks == {
        "v₃": ["v₃ = NaN: produced here (ln v₁ with v₁ = -1)"],
        "v₆": ["v₆ = NaN: received from v₃"],
        "v₇": ["v₇ = NaN: received from v₆"],
    }


def test_an_infinite_result_is_produced_where_its_local_partial_is_infinite():
    x = vz.Variable("x")
    with np.errstate(all="ignore"):
        trace = vz.trace_reverse(vz.sqrt(x) * 2.0, [x], {x: 0.0})
    marks = {trace.steps[k].label: [str(m) for m in ms] for k, ms in step_marks(trace).items()}
    assert marks == {"v₁": ["v̄₁ = inf: produced here (from finite adjoints)"]}
    with np.errstate(all="ignore"):
        s = vz.Stepper(trace)
    row = s.data["steps"][trace.step_of(x).index]["row"]
    assert row["cells"][2] in (["⚠"], ["✗"])  # a mark of its own when no rule fails here


def test_nonfinite_words():
    assert nonfinite_words(np.array([1.0, 2.0])) is None
    assert nonfinite_words(np.float64("nan")) == "NaN"
    assert nonfinite_words(np.array([np.nan, np.inf, 1.0])) == "NaN and inf (2 of 3 entries)"
    assert nonfinite_words((np.array(1.0), np.array([-np.inf, 0.0]))) == "-inf (1 of 3 entries)"
    assert nonfinite_words(np.array([1, 2])) is None  # integers are never NaN
