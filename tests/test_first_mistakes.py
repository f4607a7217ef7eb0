"""The first mistakes a newcomer makes get the fix in the error: a feed keyed by names, a feed
given in another argument's place or not at all, and numpy's functions on a node."""

from __future__ import annotations

import numpy as np
import pytest

import vizad as vz
from vizad.errors import FeedError, NodeTypeError


@pytest.fixture
def lecture():
    x1, x2 = vz.Variable("x1"), vz.Variable("x2")
    return vz.log(x1) + x1 * x2 - vz.sin(x2), x1, x2


def test_a_feed_keyed_by_names_says_to_key_it_by_the_variables(lecture):
    y, x1, x2 = lecture
    with pytest.raises(FeedError) as caught:
        vz.evaluate(y, {"x1": 2.0, "x2": 5.0})
    assert str(caught.value) == (
        "Variables 'x1', 'x2' are not in the feed dict: the feed is keyed by names ('x1', "
        "'x2'); key it by the Variables themselves, {x1: 2.0, x2: 5.0}, where x1 = "
        "vz.Variable('x1')"
    )
    with pytest.raises(FeedError, match="keyed by names"):
        vz.trace_reverse(y, [x1, x2], {"x1": 2.0, "x2": 5.0})


def test_a_feed_given_in_wrts_place_names_the_call(lecture):
    y, x1, x2 = lecture
    with pytest.raises(NodeTypeError) as caught:
        vz.step(y, {x1: 2.0, x2: 5.0})
    assert str(caught.value) == (
        "step: wrt: got a dict ({x1: 2.0, x2: 5.0}), which looks like the feed: wrt is what is "
        "differentiated (a node or a list of nodes) and the feed comes after it: "
        "vz.step(y, [x1, x2], {x1: 2.0, x2: 5.0})"
    )
    with pytest.raises(NodeTypeError, match=r"vz\.trace_reverse\(y, \[x1, x2\], "):
        vz.trace_reverse(y, {x1: 2.0, x2: 5.0})
    with pytest.raises(NodeTypeError, match=r"vz\.gradients\(y, \[x1\], "):
        vz.gradients(y, {x1: 2.0})


def test_no_feed_names_every_variable_and_where_the_feed_goes(lecture):
    y, _, _ = lecture
    with pytest.raises(FeedError) as caught:
        vz.evaluate(y)
    assert str(caught.value).startswith(
        "Variables 'x1', 'x2' are not in the feed dict (it has nothing): give their values as "
        "the feed, the argument after what is differentiated: vz.evaluate(y, {x1: …, x2: …})"
    )
    with pytest.raises(FeedError, match=r"Variable 'x2' \(node #\d+\) is not in the feed dict"):
        vz.evaluate(y, {lecture[1]: 2.0})  # one missing: named, with what the feed has


@pytest.mark.parametrize(
    "ufunc, says",
    [
        (np.exp, "np.exp on node #1 variable 'x1': numpy computes on values, and a node is a "
                 "place in vizad's graph; use vz.exp(x), which builds the node and its gradient; "
                 "for the number, evaluate first: np.exp(vz.evaluate(x, feed))"),
        (np.tanh, "use vz.tanh(x)"),
        (np.abs, "np.absolute on node #1 variable 'x1': numpy computes on values, and a node is "
                 "a place in vizad's graph; vizad has no op of that name"),
    ],
)  # fmt: skip
def test_a_numpy_function_on_a_node_names_the_vz_function(ufunc, says):
    x1 = vz.Variable("x1")
    with pytest.raises(NodeTypeError) as caught:
        ufunc(x1)
    text = str(caught.value).replace(f"node #{x1.id} ", "node #1 ")  # ids count per process
    assert says in text, text


def test_numpys_operators_on_a_node_still_build_nodes(lecture):
    y, x1, x2 = lecture
    z = np.float64(3.0) * x1 + np.array(2.0) - x2 / np.float64(2.0) + np.negative(x2)
    assert float(vz.evaluate(z, {x1: 2.0, x2: 4.0})) == 3.0 * 2.0 + 2.0 - 2.0 - 4.0
    assert (np.float64(1.0) == x1) is False and (np.float64(1.0) != x1) is True
    assert bool(np.float64(1.0) < vz.tensor(2.0))  # an eager node compares by its value
    with pytest.raises(NodeTypeError, match="a symbolic node has no value"):
        _ = np.float64(1.0) < x1
