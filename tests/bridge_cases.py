"""Functions of PyTorch and of JAX that the bridges' tests run: each a name, the function of
some arrays giving a scalar, and its arguments (float64 numpy arrays, made from one seed).

They cover what the issue lists: MLPs with tanh and ReLU, softmax cross-entropy, layer norm, a
single attention head, an RNN cell unrolled 5 steps with shared weights, where/max/abs at and
away from their kinks, broadcasting, reductions over axes, a leaf read several times.
"""

from __future__ import annotations

import numpy as np


def _args(seed: int, *shapes, kinks: bool = False) -> tuple[np.ndarray, ...]:
    """Standard normal arrays of ``shapes``; with ``kinks`` the first has zeros and ties."""
    rng = np.random.default_rng(seed)
    arrays = [rng.standard_normal(s) for s in shapes]
    if kinks:
        flat = arrays[0].reshape(-1)
        flat[0] = 0.0
        if flat.size > 2:
            flat[2] = flat[1]
    return tuple(arrays)


#: The arguments of the functions that both frameworks' lists have, by name.
ARGS = {
    "lecture": (np.array(2.0), np.array(5.0)),
    "mlp_tanh": _args(1, (4, 3), (3, 5), (5,), (5, 2), (2,)),
    "mlp_relu": _args(2, (4, 3), (3, 5), (5,), (5, 2)),
    "cross_entropy": _args(3, (4, 3)),
    "softmax_by_hand": _args(4, (4, 3)),
    "layer_norm": _args(5, (3, 5), (5,), (5,)),
    "attention": _args(6, (4, 3), (3, 2), (3, 2), (3, 2)),
    "rnn": _args(7, (3, 3), (3, 2), (5, 2)),
    "where_kink": _args(8, (2, 3), kinks=True),
    "abs_kink": _args(9, (2, 3), kinks=True),
    "max_kink": _args(10, (2, 3), kinks=True),
    "relu_kink": _args(11, (2, 3), kinks=True),
    "away_from_kinks": _args(12, (2, 3)),
    "broadcasting": _args(13, (3, 1), (4,), (1, 4)),
    "reductions": _args(14, (3, 4)),
    "leaf_reused": _args(15, (5,)),
    "chain": _args(16, (2, 2)),
    "sigmoid_mse": _args(17, (6, 3), (3,), (6,)),
    "reshape_transpose": _args(18, (12,)),
    "batched_matmul": _args(19, (2, 3, 4), (4, 2)),
    "logsumexp": _args(20, (3, 4)),
    "division_power": _args(22, (4,), (4,)),
}


def _cases(functions: dict, **more_args) -> list[tuple[str, object, tuple]]:
    """(name, function, args) for the functions defined (in the order defined), with the
    shared arguments or those given."""
    args = {**ARGS, **more_args}
    return [
        (name, fn, args[name]) for name, fn in functions.items() if callable(fn) and name in args
    ]


def torch_cases() -> list[tuple[str, object, tuple]]:
    """(name, fn(*tensors) -> scalar tensor, args) for PyTorch."""
    import torch
    import torch.nn.functional as F

    def lecture(x1, x2):
        return torch.log(x1) + x1 * x2 - torch.sin(x2)

    def mlp_tanh(x, w1, b1, w2, b2):
        return (torch.tanh(x @ w1 + b1) @ w2 + b2).pow(2).sum()

    def mlp_relu(x, w1, b1, w2):
        return torch.relu(x @ w1 + b1).matmul(w2).sum()

    def cross_entropy(logits):
        return F.cross_entropy(logits, torch.tensor([0, 2, 1, 2]))

    def softmax_by_hand(z):
        p = torch.exp(z - z.max(dim=1, keepdim=True).values)
        p = p / p.sum(dim=1, keepdim=True)
        return -(torch.log(p[:, 0])).mean()

    def layer_norm(x, w, b):
        return F.layer_norm(x, (x.shape[-1],), w, b).pow(2).mul(torch.arange(5.0)).sum()

    def attention(x, wq, wk, wv):
        q, k, v = x @ wq, x @ wk, x @ wv
        a = torch.softmax(q @ k.T / q.shape[-1] ** 0.5, dim=-1)
        return (a @ v).sin().sum()

    def rnn(w, u, xs):
        h = torch.zeros(3, dtype=w.dtype)
        for t in range(5):
            h = torch.tanh(w @ h + u @ xs[t])
        return h.sum()

    def where_kink(x):
        return torch.where(x > 0, x, 0.1 * x).pow(2).sum() + torch.where(x >= 0, x, -x).sum()

    def abs_kink(x):
        return torch.abs(x).sum() + (x * torch.abs(x)).sum()

    def max_kink(x):
        return torch.max(x, dim=1).values.sum() + torch.maximum(x, x.flip(1)).sum()

    def relu_kink(x):
        return (torch.relu(x) * x).sum()

    def away_from_kinks(x):
        y = x + 3.0
        return torch.abs(y).sum() + torch.relu(y).sum() + torch.where(y > 0, y, -y).sum()

    def broadcasting(x, y, z):
        return ((x + y) * z).sum() + (x * 2.0).sum()

    def reductions(x):
        return x.sum(dim=0).pow(2).sum() + x.mean(dim=1, keepdim=True).exp().sum() + x.sum()

    def leaf_reused(x):
        return (x * x * x + torch.sin(x) * x - x / (1.0 + x * x)).sum()

    def chain(x):
        return torch.sqrt(torch.exp(x) + 1.0).log().sum()

    def sigmoid_mse(x, w, y):
        return ((torch.sigmoid(x @ w) - y) ** 2).mean()

    def reshape_transpose(x):
        return (x.reshape(3, 4).T @ x.reshape(4, 3).T).tanh().sum()

    def batched_matmul(a, b):
        return torch.matmul(a, b).cos().sum()

    def logsumexp(x):
        return torch.logsumexp(x, dim=-1).sum()

    def stack_and_index(x, y):
        return torch.stack([x * y, x + y]).mul(torch.tensor([[1.0], [2.0]])).sum() + x[1] * y[2]

    def division_power(x, y):
        return (x / (y * y + 1.0)).pow(3).sum() + (2.0**x).sum()

    return _cases(locals(), stack_and_index=_args(21, (3,), (3,)))


def jax_cases() -> list[tuple[str, object, tuple]]:
    """(name, fn(*arrays) -> scalar, args) for JAX."""
    import jax
    import jax.numpy as jnp

    def lecture(x1, x2):
        return jnp.log(x1) + x1 * x2 - jnp.sin(x2)

    def mlp_tanh(x, w1, b1, w2, b2):
        return jnp.sum((jnp.tanh(x @ w1 + b1) @ w2 + b2) ** 2)

    def mlp_relu(x, w1, b1, w2):
        return jnp.sum(jax.nn.relu(x @ w1 + b1) @ w2)

    def cross_entropy(logits):
        labels = jnp.array([0, 2, 1, 2])
        logp = jax.nn.log_softmax(logits, axis=-1)
        return -jnp.mean(jnp.take_along_axis(logp, labels[:, None], axis=1))

    def softmax_by_hand(z):
        p = jnp.exp(z - jnp.max(z, axis=1, keepdims=True))
        p = p / jnp.sum(p, axis=1, keepdims=True)
        return -jnp.mean(jnp.log(p[:, 0]))

    def layer_norm(x, w, b):
        mu = jnp.mean(x, axis=-1, keepdims=True)
        var = jnp.mean((x - mu) ** 2, axis=-1, keepdims=True)
        y = (x - mu) / jnp.sqrt(var + 1e-5) * w + b
        return jnp.sum(y**2 * jnp.arange(5.0))

    def attention(x, wq, wk, wv):
        q, k, v = x @ wq, x @ wk, x @ wv
        a = jax.nn.softmax(q @ k.T / jnp.sqrt(q.shape[-1]), axis=-1)
        return jnp.sum(jnp.sin(a @ v))

    def rnn(w, u, xs):
        h = jnp.zeros(3, dtype=w.dtype)
        for t in range(5):
            h = jnp.tanh(w @ h + u @ xs[t])
        return jnp.sum(h)

    def where_kink(x):
        return jnp.sum(jnp.where(x > 0, x, 0.1 * x) ** 2) + jnp.sum(jnp.where(x >= 0, x, -x))

    def abs_kink(x):
        return jnp.sum(jnp.abs(x)) + jnp.sum(x * jnp.abs(x))

    def max_kink(x):
        return jnp.sum(jnp.max(x, axis=1)) + jnp.sum(jnp.maximum(x, x[:, ::-1]))

    def relu_kink(x):
        return jnp.sum(jax.nn.relu(x) * x)

    def away_from_kinks(x):
        y = x + 3.0
        return jnp.sum(jnp.abs(y)) + jnp.sum(jax.nn.relu(y)) + jnp.sum(jnp.where(y > 0, y, -y))

    def broadcasting(x, y, z):
        return jnp.sum((x + y) * z) + jnp.sum(x * 2.0)

    def reductions(x):
        return (
            jnp.sum(jnp.sum(x, axis=0) ** 2)
            + jnp.sum(jnp.exp(jnp.mean(x, axis=1, keepdims=True)))
            + jnp.sum(x)
        )

    def leaf_reused(x):
        return jnp.sum(x * x * x + jnp.sin(x) * x - x / (1.0 + x * x))

    def chain(x):
        return jnp.sum(jnp.log(jnp.sqrt(jnp.exp(x) + 1.0)))

    def sigmoid_mse(x, w, y):
        return jnp.mean((jax.nn.sigmoid(x @ w) - y) ** 2)

    def reshape_transpose(x):
        return jnp.sum(jnp.tanh(x.reshape(3, 4).T @ x.reshape(4, 3).T))

    def batched_matmul(a, b):
        return jnp.sum(jnp.cos(jnp.einsum("bij,bjk->bik", a, b)))

    def logsumexp(x):
        return jnp.sum(jax.nn.logsumexp(x, axis=-1))

    def nested_jit(x, y):
        inner = jax.jit(lambda a, b: jnp.sin(a) * b)
        return jnp.sum(inner(x, y) + inner(y, x))

    def division_power(x, y):
        return jnp.sum((x / (y * y + 1.0)) ** 3) + jnp.sum(2.0**x)

    return _cases(
        locals(), batched_matmul=_args(19, (2, 3, 4), (2, 4, 2)), nested_jit=_args(21, (3,), (3,))
    )
