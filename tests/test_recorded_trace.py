"""The walkthrough of another engine's backward pass, made from a hand-made recording: the trace
layer knows no framework, and every value it shows is the recording's."""

import numpy as np
import pytest

import vizad as vz
from vizad.errors import EvaluationError, RuleNotDefinedError
from vizad.trace.recorded import RecordedNode, Recording, recorded_trace
from vizad.engine.tree import Unrecorded


def _recording(adjoint_of_x=5.5, order=(3, 2, 1, 0)):
    """y = x * w + sin(x), recorded: x (0), w (1), mul (2), sin... as an engine gave it."""
    x, w = np.array(2.0), np.array(5.0)
    nodes = (
        RecordedNode(op=None, name="x", value=x, adjoint=np.array(adjoint_of_x)),
        RecordedNode(op=None, name="w", value=w, adjoint=np.array(2.0)),
        RecordedNode(
            op="mul",
            inputs=((0, 0), (1, 0)),
            value=Unrecorded("not kept", ()),
            adjoint=np.array(1.0),
            partials=(np.array(5.0), np.array(2.0)),
            reads=(0, 1),
            backward="MulBack",
            like=vz.ops.mul,
        ),
        RecordedNode(
            op="plus_sin",
            inputs=((2, 0), (0, 0), None),
            value=np.array(10.0 + np.sin(2.0)),
            adjoint=np.array(1.0),
            partials=(np.array(1.0), np.array(np.cos(2.0)), None),
            reads=(0,),
            backward="PlusSinBack",
        ),
    )
    return Recording("Engine", nodes, order, output=3, seed=np.array(1.0))


def test_steps_in_the_engines_order_with_the_engines_values():
    trace = recorded_trace(_recording())
    assert [s.node.op.name for s in trace.steps] == ["plus_sin", "mul", "variable", "variable"]
    x_step = trace.steps[3]
    assert x_step.node.name == "x"
    assert sorted(float(c.partial) for c in x_step.contributions) == [np.cos(2.0), 5.0]
    assert float(x_step.adjoint) == 5.5  # the engine's sum, as recorded
    assert isinstance(trace.steps[1].value, Unrecorded)
    assert "not kept" in repr(trace)
    assert trace.steps[1].definition == r"v_{1} \times v_{2}"  # written as vizad's mul
    # an input that needs no gradient is written "·"; an op without a vizad twin by its name
    assert trace.steps[0].definition == r"\operatorname{plus\_sin}\left(v_{3}, v_{1}, \cdot\right)"
    assert trace.describe().startswith("Engine's backward pass of v₄: 4 steps")


def test_check_finds_a_sum_that_is_not_the_sum_of_its_partial_adjoints():
    right = recorded_trace(_recording(adjoint_of_x=5.0 + np.cos(2.0)))
    assert right.check() == []
    wrong = recorded_trace(_recording(adjoint_of_x=5.5))
    (failure,) = wrong.check()
    assert failure.step == 4 and failure.rule == "sum"
    assert "Engine summed the partial adjoints to 5.5" in failure.message


def test_the_recorded_ops_cannot_be_evaluated_and_say_why():
    trace = recorded_trace(_recording())
    with pytest.raises(EvaluationError, match="recorded from Engine's backward pass") as caught:
        vz.evaluate(trace.output, {trace.wrt[0]: 1.0, trace.wrt[1]: 2.0})
    assert isinstance(caught.value.__cause__, RuleNotDefinedError)


def test_drawings_say_what_was_not_kept_and_whose_pass_it_is():
    trace = recorded_trace(_recording())
    forward = vz.draw(trace, "forward").source
    assert "not kept" in forward and "Forward graph of v₄ (Engine&#x27;s backward pass)" in forward
    adjoint = vz.draw(trace).source.replace("&#93;", "]")  # "]" is written as an entity
    assert "MulBack(v̄₃; v₁, v₂)[0]" in adjoint and "PlusSinBack(v̄₄; v₁)[1]" in adjoint
    assert "adjoint graph (Engine&#x27;s backward pass)" in adjoint
