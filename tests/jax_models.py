"""JAX functions written as their users write them: pytrees of parameters (dicts, nested
Flax-like dicts, lists of layers, NamedTuples, registered dataclasses), static arguments, and
control flow (scan, fori_loop, cond, while_loop, custom_vjp). Each case is (name, fn, args,
kwargs); every argument float64 (the bridges then run JAX in 64-bit mode)."""

from __future__ import annotations

import dataclasses
from typing import NamedTuple

import numpy as np


def _rng():
    return np.random.default_rng(34)


def models() -> list[tuple[str, object, tuple, dict]]:
    import jax
    import jax.numpy as jnp

    rng = _rng()

    def normal(*shape, scale=1.0):
        return rng.standard_normal(shape) * scale

    cases = []

    # an MLP with a dict of parameters and a softmax cross-entropy
    def mlp(params, x, labels):
        h = jax.nn.relu(x @ params["W1"] + params["b1"])
        logits = h @ params["W2"] + params["b2"]
        logp = jax.nn.log_softmax(logits, axis=-1)
        return -jnp.mean(jnp.take_along_axis(logp, labels[:, None], axis=1))

    mlp_params = {"W1": normal(3, 4), "b1": normal(4), "W2": normal(4, 2), "b2": normal(2)}
    cases.append(
        ("mlp_dict_softmax", mlp, (mlp_params, normal(5, 3), np.array([0, 1, 1, 0, 1])), {})
    )

    # a loss through logsumexp (its max(-inf, …) and stop_gradient inside)
    def lse(params, x):
        return jnp.sum(jax.nn.logsumexp(x @ params["W"], axis=-1)) + jnp.sum(
            jax.nn.softmax(x @ params["W"])[:, 0]
        )

    cases.append(("logsumexp_softmax", lse, ({"W": normal(3, 4)}, normal(2, 3)), {}))

    # a lax.scan RNN over T = 4 steps, with outputs ys
    def rnn(params, xs):
        def step(h, x):
            h = jnp.tanh(params["W"] @ h + params["U"] @ x + params["b"])
            return h, jnp.sum(h * h)

        h, ys = jax.lax.scan(step, jnp.zeros(3), xs)
        return jnp.sum(h) + jnp.sum(ys)

    rnn_params = {"W": normal(3, 3, scale=0.5), "U": normal(3, 2), "b": normal(3)}
    cases.append(("scan_rnn", rnn, (rnn_params, normal(4, 2)), {}))

    # a reversed scan (a cumulative sum from the end)
    def backwards(w, xs):
        def step(c, x):
            c = c * w + x
            return c, c

        _, cs = jax.lax.scan(step, 0.0, xs, reverse=True)
        return jnp.sum(jnp.sin(cs))

    cases.append(("scan_reverse", backwards, (np.float64(0.7), normal(4)), {}))

    # a fori_loop solver: gradient descent on a quadratic, 5 iterations (static bounds)
    def solver(A, b):
        def body(i, x):
            return x - 0.1 * (A @ x - b)

        x = jax.lax.fori_loop(0, 5, body, jnp.zeros_like(b))
        return jnp.sum(x**2)

    spd = normal(3, 3)
    cases.append(("fori_loop_solver", solver, (spd @ spd.T / 3 + np.eye(3), normal(3)), {}))

    # a cond: the branch the example takes
    def branch(x, w):
        return jax.lax.cond(
            jnp.sum(x) > 0, lambda v: jnp.sum(jnp.sin(v * w)), lambda v: jnp.sum(v**2), x
        )

    cases.append(("cond", branch, (np.abs(normal(3)), normal(3)), {}))

    # a Flax-like nested dict of parameters
    def flax_like(variables, x):
        p = variables["params"]
        h = jnp.tanh(x @ p["Dense_0"]["kernel"] + p["Dense_0"]["bias"])
        return jnp.mean((h @ p["Dense_1"]["kernel"] + p["Dense_1"]["bias"]) ** 2)

    variables = {
        "params": {
            "Dense_0": {"kernel": normal(3, 4), "bias": normal(4)},
            "Dense_1": {"kernel": normal(4, 1), "bias": normal(1)},
        }
    }
    cases.append(("flax_like_nested_dict", flax_like, (variables, normal(2, 3)), {}))

    # NamedTuple parameters
    class Linear(NamedTuple):
        w: np.ndarray
        b: np.ndarray

    def named(layer, x):
        return jnp.sum(jax.nn.sigmoid(x @ layer.w + layer.b))

    cases.append(("namedtuple_params", named, (Linear(normal(3, 2), normal(2)), normal(4, 3)), {}))

    # a list of layers, each a (W, b) tuple
    def stack(layers, x):
        for w, b in layers:
            x = jnp.tanh(x @ w + b)
        return jnp.sum(x)

    layers = [(normal(3, 3), normal(3)), (normal(3, 2), normal(2))]
    cases.append(("list_of_layer_tuples", stack, (layers, normal(2, 3)), {}))

    # a registered dataclass, and a static argument (the activation's name)
    @dataclasses.dataclass
    class Params:
        w: np.ndarray
        scale: np.ndarray

    jax.tree_util.register_dataclass(Params, data_fields=["w", "scale"], meta_fields=[])

    def static(params, x, activation):
        act = {"tanh": jnp.tanh, "sin": jnp.sin}[activation]
        return jnp.sum(act(x @ params.w) * params.scale)

    cases.append(
        ("dataclass_static_argnums", static, (Params(normal(3, 2), normal(2)), normal(2, 3), "sin"),
         {"static_argnums": (2,)})
    )  # fmt: skip

    # custom_vjp, right: a clipped identity whose backward is the true derivative
    @jax.custom_vjp
    def softclip(x):
        return jnp.tanh(x) * 2.0

    softclip.defvjp(lambda x: (softclip(x), x), lambda x, g: (g * 2.0 * (1 - jnp.tanh(x) ** 2),))

    def right(w, x):
        return jnp.sum(softclip(x @ w))

    cases.append(("custom_vjp_right", right, (normal(3, 2), normal(2, 3)), {}))

    # layer norm as a transformer writes it
    def layer_norm(params, x):
        mu = jnp.mean(x, axis=-1, keepdims=True)
        var = jnp.var(x, axis=-1, keepdims=True)
        y = (x - mu) / jnp.sqrt(var + 1e-5) * params["gamma"] + params["beta"]
        return jnp.sum(y**3)

    cases.append(
        ("layer_norm", layer_norm, ({"gamma": normal(4), "beta": normal(4)}, normal(2, 4)), {})
    )
    return cases


def wrong_custom_vjp():
    """A custom_vjp whose backward forgets the factor 2 of its forward: (fn, args)."""
    import jax
    import jax.numpy as jnp

    @jax.custom_vjp
    def softclip(x):
        return jnp.tanh(x) * 2.0

    softclip.defvjp(lambda x: (softclip(x), x), lambda x, g: (g * (1 - jnp.tanh(x) ** 2),))

    def loss(w, x):
        return jnp.sum(softclip(x @ w) ** 2)

    rng = _rng()
    return loss, (rng.standard_normal((3, 2)), rng.standard_normal((2, 3)))


def while_loop_case():
    """A while_loop (Newton's iteration for the square root, until it is close): (fn, args)."""
    import jax
    import jax.numpy as jnp

    def newton_sqrt(a):
        def cond(state):
            x, k = state
            return (jnp.abs(x * x - a) > 1e-12) & (k < 50)

        def body(state):
            x, k = state
            return 0.5 * (x + a / x), k + 1

        x, _ = jax.lax.while_loop(cond, body, (a, 0))
        return x

    return newton_sqrt, (np.float64(2.0),)
