"""The example graphs of the tutorials, as traces: for trying views, for tests and benchmarks.

Each function builds its graph afresh (new Variables) and returns a trace evaluated at fixed
values, so the same call gives the same names, drawings and numbers every time::

    vz.draw(vz.examples.mlp(), "adjoint", step=4)
"""

from __future__ import annotations

import numpy as np

from vizad.errors import ArgumentError
from vizad.engine.node import scope
from vizad.engine.op import Variable, constant
from vizad.engine.ops import (
    log,
    log_softmax,
    make_tuple,
    matmul,
    reshape,
    sigmoid,
    sin,
    tanh,
    tuple_get,
)
from vizad.engine.ops import sum as sum_
from vizad.engine.reverse import gradients
from vizad.trace import ForwardTrace, ReverseTrace, trace_forward, trace_reverse

__all__ = [
    "lecture",
    "lecture_forward",
    "course",
    "broadcast",
    "mlp",
    "hvp",
    "third_derivative",
    "tuples",
    "training_step",
    "rnn",
    "ALL",
]


def lecture() -> ReverseTrace:
    """The lecture's y = ln x₁ + x₁x₂ − sin x₂ at (2, 5), reverse mode."""
    x1, x2 = Variable("x1"), Variable("x2")
    y = log(x1) + x1 * x2 - sin(x2)
    return trace_reverse(y, [x1, x2], {x1: 2.0, x2: 5.0})


def lecture_forward() -> ForwardTrace:
    """The lecture's example in forward mode, ẋ₁ = 1 (the v̇ table)."""
    x1, x2 = Variable("x1"), Variable("x2")
    y = log(x1) + x1 * x2 - sin(x2)
    return trace_forward(y, x1, {x1: 2.0, x2: 5.0})


def course() -> ReverseTrace:
    """The course's (x₁ + 3)(x₁ + 5) at x₁ = 2."""
    x1 = Variable("x1")
    return trace_reverse((x1 + 3) * (x1 + 5), [x1], {x1: 2.0})


def broadcast() -> ReverseTrace:
    """Notebook 07's sum(sigmoid(A + bias)): a bias broadcast over the rows of A."""
    a, bias = Variable("A"), Variable("bias")
    loss = sum_(sigmoid(a + bias))
    feed = {a: np.arange(6.0).reshape(2, 3) / 6, bias: np.array([0.1, -0.2, 0.3])}
    return trace_reverse(loss, [a, bias], feed)


def mlp(batch: int = 8, features: int = 4, hidden: int = 16, outputs: int = 3) -> ReverseTrace:
    """A 2-layer MLP with tanh on a batch: sum((tanh(X W₁ + b₁) W₂ + b₂)²), each layer built in
    its own ``vz.scope`` ("layer1", "layer2")."""
    rng = np.random.default_rng(0)
    x = Variable("X")
    with scope("layer1"):
        w1, b1 = Variable("W1"), Variable("b1")
        h = tanh(matmul(x, w1) + b1)
    with scope("layer2"):
        w2, b2 = Variable("W2"), Variable("b2")
        out = matmul(h, w2) + b2
    loss = sum_(out**2)
    feed = {
        x: rng.standard_normal((batch, features)),
        w1: rng.standard_normal((features, hidden)) / np.sqrt(features),
        b1: rng.standard_normal(hidden) / 10,
        w2: rng.standard_normal((hidden, outputs)) / np.sqrt(hidden),
        b2: np.zeros(outputs),
    }
    return trace_reverse(loss, [w1, b1, w2, b2], feed)


def hvp() -> ReverseTrace:
    """Notebook 08's Hessian-vector product of f(v) = ½ vᵀAv: the gradient of ⟨∇f, u⟩, a
    second-order graph (the first adjoint graph is part of the forward graph)."""
    a = np.array([[2.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 4.0]])
    v = Variable("v", shape=(3,))
    f = 0.5 * sum_(reshape(matmul(reshape(v, (1, 3)), constant(a)), (3,)) * v)
    (grad,) = gradients(f, [v])
    u = np.array([1.0, -1.0, 2.0])
    return trace_reverse(sum_(grad * u), [v], {v: np.array([0.3, -0.2, 0.5])})


def third_derivative() -> ReverseTrace:
    """The third derivative of x³ + sin x at x = 0.5: reverse mode over two gradients."""
    x = Variable("x")
    (d1,) = gradients(x * x * x + sin(x), [x])
    (d2,) = gradients(d1, [x])
    return trace_reverse(d2, [x], {x: 0.5})


def tuples() -> ReverseTrace:
    """Notebook 09's tuple value t = (ab, a + b), y = t₀ t₁."""
    a, b = Variable("a"), Variable("b")
    t = make_tuple(a * b, a + b)
    return trace_reverse(tuple_get(t, 0) * tuple_get(t, 1), [a, b], {a: 2.0, b: 3.0})


def training_step(n: int = 8) -> ReverseTrace:
    """One step of notebook 11's softmax regression (a batch of ``n`` points)."""
    rng = np.random.default_rng(0)
    x, y = Variable("X", shape=(n, 2)), Variable("Y", shape=(n, 2))
    w, b = Variable("W", shape=(2, 2)), Variable("b", shape=(2,))
    loss = -sum_(y * log_softmax(matmul(x, w) + b)) / n
    labels = np.arange(n) % 2
    feed = {
        x: rng.standard_normal((n, 2)) + labels[:, None],
        y: np.eye(2)[labels],
        w: rng.standard_normal((2, 2)) / 2,
        b: np.zeros(2),
    }
    return trace_reverse(loss, [w, b], feed)


def rnn(steps: int = 10, inputs: int = 10, value: float = 0.3) -> ReverseTrace:
    """Notebook 15's weight-shared recurrence, unrolled over ``steps`` time steps:
    h ← tanh(h·x[t mod n] + x[(t + 3) mod n]) from h = x₀, with ``inputs`` (n) Variables x0 …
    shared by every step, all at ``value``; reverse mode with respect to every x. Draw it with
    ``collapse="repeats"`` to see the time steps as one stacked box."""
    if isinstance(steps, bool) or not isinstance(steps, int) or steps < 1:
        raise ArgumentError(f"rnn: steps must be a positive int, got {steps!r}")
    if isinstance(inputs, bool) or not isinstance(inputs, int) or inputs < 4:
        raise ArgumentError(f"rnn: inputs must be an int of at least 4, got {inputs!r}")
    xs = [Variable(f"x{i}") for i in range(inputs)]
    h = xs[0]
    for t in range(steps):
        h = tanh(h * xs[t % inputs] + xs[(t + 3) % inputs])
    return trace_reverse(h, xs, {x: float(value) for x in xs})


#: Every example by name.
ALL = {
    "lecture": lecture,
    "lecture_forward": lecture_forward,
    "course": course,
    "broadcast": broadcast,
    "mlp": mlp,
    "hvp": hvp,
    "third_derivative": third_derivative,
    "tuples": tuples,
    "training_step": training_step,
    "rnn": rnn,
}
