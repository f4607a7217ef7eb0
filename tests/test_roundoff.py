"""Round-off, one rule wherever a difference between two computations is shown (vz.compare,
trace.check(), vz.gradcheck's report): a difference within round-off of the values' size
(vizad.engine.text.ROUNDOFF: 1e-12 for float64, 1e-5 for float32) reads "round-off", whose
digits would change with the BLAS kernel and the CPU; a larger one is shown as its number.
The numbers returned as data stay exact."""

import re

import numpy as np
import pytest

import vizad as vz
from vizad.engine.text import format_difference, is_roundoff, roundoff_note, roundoff_tolerance
from vizad.trace.recorded import RecordedNode, Recording, recorded_trace


def test_the_rule_is_relative_to_the_values_and_set_by_their_float_type():
    assert roundoff_tolerance(1.0, np.ones(3)) == 1e-12  # Python floats and float64
    assert roundoff_tolerance(np.ones(3), np.ones(3, np.float32)) == 1e-5  # the least precise
    assert roundoff_tolerance(np.arange(3)) == 1e-12  # integers are exact: float64's
    # float64: relative to the largest entry of the values compared
    assert format_difference(2.78e-17, np.array([0.1, -0.2])) == "round-off"
    assert format_difference(0.0, 0.0, 0.0) == "round-off"  # the same bits, or not: one text
    assert format_difference(1e-13, 1e-3) == "1e-13"  # 1e-10 of a value of 1e-3: no round-off
    assert format_difference(3.1e-7, 1.0) == "3.1e-07"
    # float32: its round-off is about 1e-7 of a value, so 1e-6 of it is round-off
    assert format_difference(1e-6, np.float32(1.0)) == "round-off"
    assert format_difference(1e-6, np.float64(1.0)) == "1e-06"
    assert format_difference(1e-4, np.float32(1.0)) == "0.0001"
    # what cannot be compared is never round-off; infinite entries set no size
    assert format_difference(float("nan"), 1.0) == "nan"
    assert not is_roundoff(1e-20, np.array([np.inf, 0.0]))
    assert roundoff_note(1.0) == "relative difference ≤ 1e-12"
    assert roundoff_note(np.float32(1.0)) == "relative difference ≤ 1e-5"


def _traces(dtype, off):
    """Two reverse traces of y = sum(x * w) whose w differ by the relative ``off``: the
    adjoint of x (w) differs by 3·off, the others not at all."""
    x, w = vz.Variable("x"), vz.Variable("w")
    y = vz.sum(x * w)

    def trace(w_value):
        feed = {x: np.array([2.0, 1.0], dtype), w: np.array([3.0, w_value], dtype)}
        return vz.trace_reverse(y, [x, w], feed)

    return trace(3.0), trace(3.0 * (1 + off))


def _x_row(comparison):
    (row,) = [r for m, r in zip(comparison.matches, comparison.rows()) if m.a.name == "x"]
    return row


@pytest.mark.parametrize(
    ("dtype", "below", "above", "note", "shown"),
    [
        (np.float64, 1e-15, 1e-9, "relative difference ≤ 1e-12", "3e-09"),
        (np.float32, 1e-6, 1e-3, "relative difference ≤ 1e-5", "0.003"),
    ],
    ids=["float64", "float32"],
)
def test_compare_says_round_off_below_the_rule_and_the_number_above(
    dtype, below, above, note, shown
):
    a, b = _traces(dtype, below)
    comparison = vz.compare(a, b, rtol=1e-2)
    assert {np.asarray(m.adjoint_a).dtype for m in comparison.matches} == {np.dtype(dtype)}
    match = next(m for m in comparison.matches if m.a.name == "x")
    assert 0 < match.difference == comparison.largest  # the data: exact
    summary = comparison.summary()
    assert summary.endswith(f"every matched adjoint agrees to round-off ({note})"), summary
    assert _x_row(comparison)[4] == "round-off"
    assert {row[4] for row in comparison.rows()} == {"round-off"}
    for text in (repr(comparison), comparison._repr_html_()):  # no digits of the difference
        assert "round-off" in text and not re.search(r"\de-\d", text.replace(note, "")), text

    a, b = _traces(dtype, above)
    comparison = vz.compare(a, b, rtol=1e-2)
    assert comparison.ok
    summary = comparison.summary()
    assert f"to round-off, {note}; the largest other difference {shown})" in summary, summary
    assert _x_row(comparison)[4] == shown
    assert f">{shown}</td>" in comparison._repr_html_()


def test_compare_shows_the_number_of_adjoints_that_differ():
    a, b = _traces(np.float64, 0.1)
    comparison = vz.compare(a, b)
    assert not comparison.ok
    assert "1 adjoint differs, most at v₁ (by 0.3" in comparison.summary()
    assert "Δ = 0.3 vs v₁" in comparison.draw().source


def _recording(dtype, error):
    """y = x * w + sin(x) recorded as an engine gave it: x's adjoint is the engine's sum of
    its two partial adjoints, w and cos(x), off by ``error``."""
    x, w = np.array(2.0, dtype), np.array(5.0, dtype)
    cos = np.cos(x)
    nodes = (
        RecordedNode(op=None, name="x", value=x, adjoint=np.array(w + cos + error, dtype)),
        RecordedNode(op=None, name="w", value=w, adjoint=x),
        RecordedNode(
            op="mul",
            inputs=((0, 0), (1, 0)),
            value=x * w,
            adjoint=np.array(1.0, dtype),
            partials=(w, x),
            reads=(0, 1),
            backward="MulBack",
            like=vz.ops.mul,
        ),
        RecordedNode(
            op="plus_sin",
            inputs=((2, 0), (0, 0)),
            value=x * w + np.sin(x),
            adjoint=np.array(1.0, dtype),
            partials=(np.array(1.0, dtype), cos),
            reads=(0,),
            backward="PlusSinBack",
        ),
    )
    return Recording("Engine", nodes, (3, 2, 1, 0), output=3, seed=np.array(1.0, dtype))


@pytest.mark.parametrize(
    ("dtype", "above", "shown"),
    [(np.float64, 1e-9, "1e-09"), (np.float32, 1e-3, "0.001")],
    ids=["float64", "float32"],
)
def test_check_says_round_off_below_the_rule_and_the_number_above(dtype, above, shown):
    ulps = 2 * np.spacing(np.array(5.0, dtype))  # two units in the last place: round-off
    assert recorded_trace(_recording(dtype, ulps)).check() == []  # round-off: no failure
    # with no tolerance at all, the round-off is reported, as round-off
    (failure,) = recorded_trace(_recording(dtype, ulps)).check(rtol=0.0)
    assert failure.rule == "sum" and failure.error == pytest.approx(ulps, rel=0.5)  # exact data
    assert failure.message.endswith("(off by round-off)"), failure.message
    (failure,) = recorded_trace(_recording(dtype, above)).check()
    assert failure.message.endswith(f"(off by {shown})"), failure.message


class _Scaled(vz.Op):
    """x * 3 whose vjp is off by a factor ``1 + off``."""

    name = "scaled"
    arity = 1
    off = 0.0

    def compute(self, x):
        return x * np.asarray(3.0, x.dtype)

    def vjp(self, node, adjoint):
        return [adjoint * (3.0 * (1 + self.off))]


@pytest.mark.parametrize(
    ("dtype", "off"), [(np.float64, 1e-3), (np.float32, 0.1)], ids=["float64", "float32"]
)
def test_check_shows_the_number_of_a_rule_off_beyond_round_off(dtype, off):
    op = type("Off", (_Scaled,), {"off": off})()
    x = vz.Variable("x")
    trace = vz.trace_reverse(vz.sum(op(x)), [x], {x: np.array([1.0, -2.0], dtype)})
    (failure,) = trace.check()
    assert failure.op == op.name and failure.rule == "vjp"
    # (the error of ⟨w, Jᵀ…⟩ for a random cotangent w: off·3·|w|)
    assert failure.error > 10 * roundoff_tolerance(np.ones(1, dtype)) * 3 * (1 + off)
    shown = f"{failure.error:.3g}"
    assert f"disagrees with central differences by {shown} (" in failure.message
    assert "round-off" not in failure.message
    # a rule off by round-off only is within the central differences' own error: it passes
    near = type("Near", (_Scaled,), {"off": 1e-14 if dtype == np.float64 else 1e-7})()
    assert vz.trace_reverse(vz.sum(near(x)), [x], {x: np.array([1.0, -2.0], dtype)}).check() == []


@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=["float64", "float32"])
def test_gradcheck_reports_round_off_as_such_and_a_wrong_gradient_by_its_number(dtype):
    x = vz.Variable("x")
    feed = {x: np.array([1.0, -2.0, 0.5], dtype)}
    report = vz.gradcheck(vz.sum(x * 3.0), [x], feed)  # linear: central differences exact
    assert report.gradients[0].dtype == dtype
    line = str(report).splitlines()[1]
    note = roundoff_note(np.ones(1, dtype))
    assert line.split() == ["x", "agrees", "to", "round-off", *f"({note})".split()], line
    assert report.worst_error <= roundoff_tolerance(feed[x]) * 3.0  # the data: exact
    wrong = type("Off", (_Scaled,), {"off": 0.1})()
    one = np.array(1.0, dtype)
    report = vz.gradcheck(vz.sum(wrong(x)), [x], feed, cotangent=one, raise_on_failure=False)
    assert "x            max abs error 0.3\n" in str(report), str(report)
