"""Random expression DAGs over every registered op, compiled to jax.numpy, and every derivative
vizad builds compared with JAX's.

``Graph`` is one seeded random DAG: Variables (shapes declared or not, float64 or float32),
nodes that reuse earlier nodes, broadcasting, matmul with flags (1-D and batched operands),
reductions with axis/keepdims, reshape/transpose, log_softmax, nested tuples, constant powers
including 0, 1 and negatives. ``to_jax`` evaluates the same graph with jax.numpy (each node may
get an offset, so that JAX can differentiate with respect to intermediates). ``check_graph``
compares values, gradients (default and random seeds, w.r.t. inputs and an intermediate), jvp,
Hessian-vector products four ways and third directional derivatives in all eight mixes of
forward and reverse mode. ``reproduction`` prints the smallest prefix of a failing graph.

Run many seeds with ``make fuzz N=5000`` (``python tests/differential.py N``).
"""

from __future__ import annotations

import itertools
import math
import sys
from dataclasses import dataclass, field
from typing import Any
from collections.abc import Callable

import numpy as np

import vizad as vz
from vizad.engine.numerical import value_node
from vizad.engine.tree import leaves

try:
    import jax
    import jax.numpy as jnp
except ImportError:  # pragma: no cover - the test module skips
    jax = jnp = None
else:
    jax.config.update("jax_enable_x64", True)
    jax.config.update("jax_platforms", "cpu")

RTOL64, RTOL32 = 1e-9, 2e-4


# -- the generator -------------------------------------------------------------------------
@dataclass
class Graph:
    seed: int
    declared: bool
    dtype: Any
    inputs: list = field(default_factory=list)  # Variables
    values: dict = field(default_factory=dict)  # Variable -> value
    nodes: list = field(default_factory=list)  # every node built, in order
    code: dict = field(default_factory=dict)  # node -> a line of Python
    shapes: dict = field(default_factory=dict)  # node -> shape (TupleShape for tuples)
    output: Any = None

    def name(self, node) -> str:
        return f"n{self.nodes.index(node)}" if node in self.nodes else repr(node)


class _Builder:
    """Builds a random graph, tracking shapes itself (so it can choose fitting operands)."""

    DIMS = (2, 3)

    def __init__(self, seed: int):
        self.rng = np.random.default_rng(seed)
        r = self.rng
        self.g = Graph(
            seed, declared=bool(r.integers(2)), dtype=np.float32 if r.random() < 0.2 else np.float64
        )

    # -- recording ---------------------------------------------------------------------
    def add(self, node, shape, code: str):
        self.g.nodes.append(node)
        self.g.shapes[node] = shape
        self.g.code[node] = f"{self.g.name(node)} = {code}"
        return node

    def const(self, shape):
        value = self.rng.uniform(-1.5, 1.5, size=shape).astype(self.g.dtype)
        return self.add(
            vz.constant(value),
            shape,
            f"vz.constant(np.array({value.tolist()!r}, np.{np.dtype(self.g.dtype).name}))",
        )

    def variable(self, shape):
        k = len(self.g.inputs)
        declared = shape if self.g.declared else None
        x = vz.Variable(f"x{k}", shape=declared)
        self.g.inputs.append(x)
        self.g.values[x] = self.rng.uniform(-1.5, 1.5, size=shape).astype(self.g.dtype)
        return self.add(x, shape, f"vz.Variable('x{k}', shape={declared!r})")

    # -- choosing operands -------------------------------------------------------------
    def arrays(self):
        return [n for n in self.g.nodes if not isinstance(self.g.shapes[n], vz.extend.TupleShape)]

    def pick(self, candidates=None):
        pool = candidates if candidates is not None else self.arrays()
        # favour recent nodes, so the DAG grows deep as well as wide
        weights = np.arange(1, len(pool) + 1, dtype=float) ** 2
        return pool[self.rng.choice(len(pool), p=weights / weights.sum())]

    def shape_of(self, n):
        return self.g.shapes[n]

    def positive(self, a):
        """a·a + 0.5 > 0, for log, sqrt, division and fractional powers."""
        sq = self.add(a * a, self.shape_of(a), f"{self.g.name(a)} * {self.g.name(a)}")
        return self.add(sq + 0.5, self.shape_of(a), f"{self.g.name(sq)} + 0.5")

    def partner(self, a):
        """A node (or a new constant) whose shape broadcasts with a's."""
        sa = self.shape_of(a)
        fits = [n for n in self.arrays() if _broadcastable(sa, self.shape_of(n))]
        if fits and self.rng.random() < 0.7:
            return self.pick(fits)
        choices = [sa, sa[1:], (), tuple(1 if self.rng.random() < 0.5 else d for d in sa)]
        return self.const(choices[self.rng.integers(len(choices))])

    # -- one random op -----------------------------------------------------------------
    def step(self) -> None:
        r, name = self.rng, self.g.name
        a = self.pick()
        sa = self.shape_of(a)
        kind = r.choice(
            [
                "unary",
                "unary",
                "binary",
                "binary",
                "power",
                "div",
                "positive",
                "matmul",
                "transpose",
                "reshape",
                "reduce",
                "broadcast",
                "sum_to",
                "like_node",
                "expand",
                "size",
                "log_softmax",
                "likes",
                "tuple",
                "add_n",
                "identity",
            ]
        )
        if kind == "unary":
            op = r.choice(["exp", "sin", "cos", "tanh", "sigmoid", "relu", "neg", "heaviside"])
            arg = a
            if op == "exp":  # keep values bounded
                arg = self.add(vz.tanh(a), sa, f"vz.tanh({name(a)})")
            self.add(getattr(vz.ops, op)(arg), sa, f"vz.{op}({name(arg)})")
        elif kind == "positive":
            op = r.choice(["log", "sqrt"])
            p = self.positive(a)
            self.add(getattr(vz.ops, op)(p), sa, f"vz.{op}({name(p)})")
        elif kind == "binary":
            b = self.partner(a)
            op = r.choice(["add", "sub", "mul"])
            if r.random() < 0.5:
                a, b = b, a
            self.add(
                getattr(vz.ops, op)(a, b),
                _broadcast(self.shape_of(a), self.shape_of(b)),
                f"vz.{op}({name(a)}, {name(b)})",
            )
        elif kind == "div":
            b = self.partner(a)
            p = self.positive(b)
            self.add(a / p, _broadcast(sa, self.shape_of(p)), f"{name(a)} / {name(p)}")
        elif kind == "power":
            exponent = [0, 1, 2, 3, -1, -2, 0.5, -1.5][r.integers(8)]
            base = a if isinstance(exponent, int) and exponent >= 0 else self.positive(a)
            self.add(base**exponent, sa, f"{name(base)} ** {exponent!r}")
        elif kind == "matmul":
            self.matmul(a)
        elif kind == "transpose" and len(sa) >= 2:
            axes = tuple(int(k) for k in r.permutation(len(sa)))
            if r.random() < 0.5:
                axes = tuple(k - len(sa) if r.random() < 0.5 else k for k in axes)
            shape = tuple(sa[k] for k in axes)
            if r.random() < 0.3:
                axes, shape = None, tuple(reversed(sa))
            self.add(vz.transpose(a, axes), shape, f"vz.transpose({name(a)}, {axes!r})")
        elif kind == "reshape":
            size = math.prod(sa)
            options = [(size,), (1, size), (-1,)]
            if size % 2 == 0:
                options.append((2, -1))
            target = options[r.integers(len(options))]
            shape = tuple(size if d == -1 else d for d in target)
            if len(target) == 2 and target[1] == -1:
                shape = (2, size // 2)
            self.add(vz.reshape(a, target), shape, f"vz.reshape({name(a)}, {target!r})")
        elif kind == "reduce" and sa:
            op = r.choice(["sum", "mean"])
            keepdims = bool(r.integers(2))
            axis = (
                None
                if r.random() < 0.3
                else (
                    int(r.integers(-len(sa), len(sa)))
                    if r.random() < 0.6
                    else tuple(sorted({int(k) for k in r.integers(0, len(sa), size=2)}))
                )
            )
            axes = (
                range(len(sa))
                if axis is None
                else ([axis % len(sa)] if isinstance(axis, int) else list(axis))
            )
            shape = (
                tuple(1 if k in axes else d for k, d in enumerate(sa))
                if keepdims
                else tuple(d for k, d in enumerate(sa) if k not in axes)
            )
            self.add(
                getattr(vz.ops, op)(a, axis, keepdims=keepdims),
                shape,
                f"vz.{op}({name(a)}, {axis!r}, keepdims={keepdims})",
            )
        elif kind == "broadcast":
            target = (
                (2,) + tuple(3 if d == 1 else d for d in sa)
                if len(sa) < 3
                else tuple(3 if d == 1 else d for d in sa)
            )
            self.add(
                vz.ops.broadcast_to(a, target),
                target,
                f"vz.ops.broadcast_to({name(a)}, {target!r})",
            )
        elif kind == "sum_to" and sa:
            target = (
                sa[1:] if r.random() < 0.5 else tuple(1 if k == 0 else d for k, d in enumerate(sa))
            )
            self.add(
                vz.ops.sum_to_shape(a, target),
                target,
                f"vz.ops.sum_to_shape({name(a)}, {target!r})",
            )
        elif kind == "like_node":
            bigger = [
                n
                for n in self.arrays()
                if _broadcastable_to(sa, self.shape_of(n)) and self.shape_of(n) != sa
            ]
            smaller = [
                n
                for n in self.arrays()
                if _broadcastable_to(self.shape_of(n), sa) and self.shape_of(n) != sa
            ]
            if bigger and (r.random() < 0.5 or not smaller):
                ref = self.pick(bigger)
                self.add(
                    vz.ops.broadcast_to(a, ref),
                    self.shape_of(ref),
                    f"vz.ops.broadcast_to({name(a)}, {name(ref)})",
                )
            elif smaller:
                ref = self.pick(smaller)
                self.add(
                    vz.ops.sum_to_shape(a, ref),
                    self.shape_of(ref),
                    f"vz.ops.sum_to_shape({name(a)}, {name(ref)})",
                )
        elif kind == "expand":
            axis = int(r.integers(-len(sa) - 1, len(sa) + 1))
            shape = list(sa)
            shape.insert(axis % (len(sa) + 1), 1)
            self.add(
                vz.ops.expand_dims(a, axis), tuple(shape), f"vz.ops.expand_dims({name(a)}, {axis})"
            )
        elif kind == "size":
            s = self.add(vz.ops.size(a), (), f"vz.ops.size({name(a)})")
            self.add(s * a, sa, f"{name(s)} * {name(a)}")
        elif kind == "log_softmax" and sa:
            axis = int(r.integers(-len(sa), len(sa)))
            self.add(vz.log_softmax(a, axis), sa, f"vz.log_softmax({name(a)}, {axis})")
        elif kind == "likes":
            op = r.choice(["ones_like", "zeros_like"])
            b = self.partner(a)
            like = self.add(getattr(vz.ops, op)(a), sa, f"vz.{op}({name(a)})")
            self.add(like * b, _broadcast(sa, self.shape_of(b)), f"{name(like)} * {name(b)}")
        elif kind == "tuple":
            self.tuple_value(a)
        elif kind == "add_n":
            same = [n for n in self.g.nodes if self.shape_of(n) == sa]
            parts = [self.pick(same) for _ in range(int(r.integers(1, 4)))]
            self.add(
                vz.ops.add_n(a, *parts),
                sa,
                f"vz.ops.add_n({', '.join(name(p) for p in [a, *parts])})",
            )
        elif kind == "identity":
            self.add(vz.ops.identity(a), sa, f"vz.ops.identity({name(a)})")

    def matmul(self, a):
        r, name = self.rng, self.g.name
        sa = self.shape_of(a)
        if not sa or len(sa) > 3 or (len(sa) == 1 and not self.g.declared):
            return
        ta = len(sa) >= 2 and bool(r.integers(2))
        k = sa[-2] if ta else sa[-1]
        n = int(r.choice(self.DIMS))
        batch = sa[0] if len(sa) == 3 else 2  # a batch dimension that broadcasts with a's
        forms = [(k, n), (n, k)] + ([(k,)] if self.g.declared else []) + [(batch, k, n)]
        form = forms[r.integers(len(forms))]
        tb = form == (n, k)
        fits = [m for m in self.arrays() if self.shape_of(m) == form]
        b = self.pick(fits) if fits and r.random() < 0.6 else self.const(form)
        if r.random() < 0.3 and len(sa) >= 2:  # b @ a instead: a on the right
            self.matmul_pair(b, a, tb, ta, left_form=form)
            return
        shape = _matmul_shape(sa, form, ta, tb)
        self.add(vz.matmul(a, b, ta, tb), shape, f"vz.matmul({name(a)}, {name(b)}, {ta}, {tb})")

    def matmul_pair(self, b, a, tb, ta, left_form):
        # b: (k, n) or (n, k) or (k,) or (2, k, n) on the left; a's matching dimension is
        # its row dimension when not transposed
        sa = self.shape_of(a)
        rows = sa[-1] if ta else sa[-2]
        eb = _swapped(left_form, tb)
        if eb[-1] != rows:
            # left operand's inner dimension must match: transpose the constant instead
            left = self.const(eb[:-1] + (rows,)) if len(eb) > 1 else self.const((rows,))
            tb = False
        else:
            left = b
        shape = _matmul_shape(self.shape_of(left), sa, tb, ta)
        self.add(
            vz.matmul(left, a, tb, ta),
            shape,
            f"vz.matmul({self.g.name(left)}, {self.g.name(a)}, {tb}, {ta})",
        )

    def tuple_value(self, a):
        r, name = self.rng, self.g.name
        b = self.pick()
        inner = self.add(
            vz.make_tuple(b), vz.extend.TupleShape([self.shape_of(b)]), f"vz.make_tuple({name(b)})"
        )
        t = self.add(
            vz.make_tuple(a, inner),
            vz.extend.TupleShape([self.shape_of(a), self.shape_of(inner)]),
            f"vz.make_tuple({name(a)}, {name(inner)})",
        )
        if r.random() < 0.4:
            t = self.add(
                vz.ops.add_n(t, t), self.shape_of(t), f"vz.ops.add_n({name(t)}, {name(t)})"
            )
        if r.random() < 0.5:
            inner = self.add(
                vz.tuple_get(t, -1), self.shape_of(inner), f"vz.tuple_get({name(t)}, -1)"
            )
            self.add(vz.tuple_get(inner, 0), self.shape_of(b), f"vz.tuple_get({name(inner)}, 0)")
        self.add(vz.tuple_get(t, 0), self.shape_of(a), f"vz.tuple_get({name(t)}, 0)")


def _broadcast(*shapes):
    return tuple(np.broadcast_shapes(*shapes))


def _broadcastable(a, b):
    try:
        np.broadcast_shapes(a, b)
        return True
    except ValueError:
        return False


def _broadcastable_to(small, big):
    return _broadcastable(small, big) and _broadcast(small, big) == tuple(big)


def _swapped(shape, flag):
    return shape[:-2] + (shape[-1], shape[-2]) if flag and len(shape) >= 2 else tuple(shape)


def _matmul_shape(sa, sb, ta, tb):
    ea, eb = _swapped(sa, ta), _swapped(sb, tb)
    return tuple(np.matmul(np.zeros(ea), np.zeros(eb)).shape)


def make_graph(seed: int, size: int | None = None) -> Graph:
    """The random graph of ``seed``: 1–3 inputs, then ``size`` random ops (default 4–10)."""
    b = _Builder(seed)
    r = b.rng
    for _ in range(int(r.integers(1, 4))):
        shapes = [(), (3,), (2, 3), (3, 3), (2, 1)]
        b.variable(shapes[r.integers(len(shapes))])
    for _ in range(size if size is not None else int(r.integers(4, 11))):
        b.step()
    arrays = b.arrays()
    b.g.output = arrays[-1]
    if r.random() < 0.15 and len(arrays) >= 2:  # a tuple-valued output
        a, c = arrays[-1], arrays[-2]
        b.g.output = b.add(
            vz.make_tuple(a, vz.make_tuple(c)),
            vz.extend.TupleShape([b.shape_of(a), vz.extend.TupleShape([b.shape_of(c)])]),
            f"vz.make_tuple({b.g.name(a)}, vz.make_tuple({b.g.name(c)}))",
        )
    return b.g


# -- the same graph in JAX -----------------------------------------------------------------
def _jax_sum_to(g, shape):
    lead = g.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(
        lead + k for k, d in enumerate(shape) if d == 1 and g.shape[lead + k] != 1
    )
    return jnp.reshape(jnp.sum(g, axis=axes), shape)


def _jax_swap(x):
    return jnp.swapaxes(x, -1, -2) if x.ndim >= 2 else x


def _jax_op(node) -> Callable:
    op, attrs = node.op.name, node.attrs
    target = lambda args: attrs["shape"] if len(args) == 1 else jnp.shape(args[1])
    table = {
        "add": lambda a, b: a + b,
        "sub": lambda a, b: a - b,
        "mul": lambda a, b: a * b,
        "div": lambda a, b: a / b,
        "neg": lambda a: -a,
        "identity": lambda a: a,
        "power": lambda a: a ** attrs["p"],
        "exp": jnp.exp,
        "log": jnp.log,
        "sin": jnp.sin,
        "cos": jnp.cos,
        "tanh": jnp.tanh,
        "sigmoid": jax.nn.sigmoid,
        "relu": jax.nn.relu,
        "sqrt": jnp.sqrt,
        "heaviside": lambda a: (a > 0).astype(a.dtype),
        "add_n": lambda *xs: _jax_add_n(xs),
        "matmul": lambda a, b: jnp.matmul(
            _jax_swap(a) if attrs["trans_a"] else a, _jax_swap(b) if attrs["trans_b"] else b
        ),
        "transpose": lambda a: jnp.transpose(a, attrs["axes"]),
        "reshape": lambda *args: jnp.reshape(args[0], target(args)),
        "sum": lambda a: jnp.sum(a, attrs["axis"], keepdims=attrs["keepdims"]),
        "mean": lambda a: jnp.mean(a, attrs["axis"], keepdims=attrs["keepdims"]),
        "broadcast_to": lambda *args: jnp.broadcast_to(args[0], target(args)),
        "sum_to_shape": lambda *args: _jax_sum_to(args[0], target(args)),
        "expand_dims": lambda a: jnp.expand_dims(a, attrs["axis"]),
        "size": lambda a: jnp.asarray(
            float(
                math.prod(
                    jnp.shape(a)[k]
                    for k in (range(jnp.ndim(a)) if attrs["axis"] is None else attrs["axis"])
                )
            ),
            dtype=a.dtype,
        ),
        "log_softmax": lambda a: jax.nn.log_softmax(a, attrs["axis"][0]),
        "ones_like": lambda a: jax.tree_util.tree_map(jnp.ones_like, a),
        "zeros_like": lambda a: jax.tree_util.tree_map(jnp.zeros_like, a),
        "make_tuple": lambda *xs: tuple(xs),
        "tuple_get": lambda t: t[attrs["index"]],
    }
    return table[op]


def _jax_add_n(xs):
    total = xs[0]
    for x in xs[1:]:
        total = jax.tree_util.tree_map(lambda a, b: a + b, total, x)
    return total


def to_jax(output, inputs, offsets_for=()):
    """f(input values, offsets) → the value of ``output``, evaluated with jax.numpy; each node
    of ``offsets_for`` gets its offset added to its value (for derivatives w.r.t. it)."""
    order = vz.topo_sort(output)

    def f(values, offsets):
        env = dict(zip(inputs, values))
        extra = dict(zip(offsets_for, offsets))
        for node in order:
            if node in env:
                pass
            elif node.op.name == "constant":
                value = node.attrs["value"]  # float32 constants widened: JAX checks in float64
                env[node] = (
                    value.item()
                    if node.attrs.get("weak")
                    else jnp.asarray(value, jnp.float64 if value.dtype.kind == "f" else value.dtype)
                )
            else:
                env[node] = _jax_op(node)(*(env[i] for i in node.inputs))
            if node in extra:
                env[node] = env[node] + extra[node]
        return env[output]

    return f


# -- the comparisons -----------------------------------------------------------------------
class Mismatch(AssertionError):
    pass


def _leaves(v):
    return leaves(v)


def _close(what, ours, ref, rtol, dtype=None, noise=0.0):
    """``ours`` against JAX's ``ref``: relative ``rtol`` on the scale of the reference, plus an
    absolute ``noise`` for rounding in higher derivatives (whose true value may be 0 while both
    sides round terms of the size of the graph's values, to the power of the order)."""
    ours_l, ref_l = _leaves(ours), _leaves(ref)
    if len(ours_l) != len(ref_l):
        raise Mismatch(f"{what}: {len(ours_l)} arrays vs JAX's {len(ref_l)}")
    scale = 1.0 + max(
        (float(np.max(np.abs(np.asarray(r, np.float64)), initial=0)) for r in ref_l), default=0.0
    )
    for o, r in zip(ours_l, ref_l):
        o, r = np.asarray(o), np.asarray(r, dtype=np.float64)
        if o.shape != r.shape:
            raise Mismatch(f"{what}: shape {o.shape}, JAX {r.shape}")
        if dtype is not None and o.dtype != dtype:
            raise Mismatch(f"{what}: dtype {o.dtype}, expected {np.dtype(dtype)}")
        if not np.allclose(o.astype(np.float64), r, rtol=rtol, atol=rtol * scale + noise):
            raise Mismatch(
                f"{what}: vizad {o.ravel()[:6]} vs JAX {r.ravel()[:6]} "
                f"(max diff {np.max(np.abs(o - r)):.3g})"
            )


def _inner(nodes_a, values_b):
    """Σ sum(a * b) over a list of nodes and constant values: a scalar node."""
    return vz.ops.add_n(*(vz.sum(a * vz.constant(b)) for a, b in zip(nodes_a, values_b)))


def _inner_tree(y_node, w, shape):
    """⟨w, y⟩ for a (possibly tuple) node y: a scalar node."""
    if isinstance(shape, vz.extend.TupleShape):
        return vz.ops.add_n(
            *(
                _inner_tree(vz.tuple_get(y_node, k), wk, s)
                for k, (wk, s) in enumerate(zip(w, shape))
            )
        )
    return vz.sum(y_node * vz.constant(w))


def _random_like_shape(rng, shape, dtype):
    if isinstance(shape, vz.extend.TupleShape):
        return tuple(_random_like_shape(rng, s, dtype) for s in shape)
    return rng.standard_normal(shape).astype(dtype)


def _references(g: Graph, m, third_order: bool):
    """Every JAX result check_graph compares with, as one jitted function of (inputs, w, v):
    one compilation per graph instead of one per primitive."""
    xs, y = g.inputs, g.output
    f = to_jax(y, xs, offsets_for=[m] if m is not None else [])
    zero = [jnp.zeros(g.shapes[m], jnp.float64)] if m is not None else []

    def s_of(w):
        return lambda *a: sum(jnp.sum(o * r) for o, r in zip(_leaves(f(list(a), zero)), _leaves(w)))

    def reference(wide, w, v):
        value, pullback = jax.vjp(lambda *a: f(list(a), zero), *wide)
        ones = jax.tree_util.tree_map(jnp.ones_like, value)
        out = {"value": value, "vjp_ones": pullback(ones), "vjp_w": pullback(w)}
        if m is not None:
            _, pull_m = jax.vjp(lambda d: f(wide, [d]), zero[0])
            out["vjp_m"] = pull_m(w)[0]
        out["jvp"] = jax.jvp(lambda *a: f(list(a), zero), tuple(wide), tuple(v))[1]
        s = s_of(w)
        grad_s = jax.grad(s, argnums=tuple(range(len(wide))))
        out["hv"] = jax.jvp(lambda *a: grad_s(*a), tuple(wide), tuple(v))[1]
        out["vhv"] = sum(jnp.sum(h * t) for h, t in zip(out["hv"], v))
        if third_order:

            def d(fn):
                return lambda *a: jax.jvp(fn, tuple(a), tuple(v))[1]

            out["d3"] = d(d(d(s)))(*wide)
        return out

    return jax.jit(reference)


def check_graph(g: Graph, *, third_order: bool = True) -> None:
    """Every comparison of the module docstring on graph ``g``; raises Mismatch."""
    rng = np.random.default_rng(g.seed + 10_000)
    xs, y = g.inputs, g.output
    point = [g.values[x] for x in xs]
    feed = dict(zip(xs, point))
    rtol = RTOL32 if g.dtype == np.float32 else RTOL64
    y_shape = g.shapes[y]

    ours = vz.evaluate(y, feed)
    magnitude = 1.0 + max(
        float(np.max(np.abs(v), initial=0))
        for v in vz.Executor(g.nodes).values_by_node(feed).values()
        for v in _leaves(v)
    )
    eps = float(np.finfo(g.dtype).eps)

    def noise(order: int) -> float:
        return 1e3 * eps * magnitude**order

    if not all(np.all(np.isfinite(v)) for v in _leaves(ours)):
        raise Mismatch("values: not finite (the generator should have avoided this)")
    w = _random_like_shape(rng, y_shape, g.dtype)
    v = [rng.standard_normal(np.shape(p)).astype(g.dtype) for p in point]
    upstream = [
        n
        for n in vz.topo_sort(y)
        if n in g.shapes
        and n not in xs
        and n.op.name != "constant"
        and not isinstance(g.shapes[n], vz.extend.TupleShape)
    ]
    m = upstream[int(rng.integers(len(upstream)))] if upstream else None
    wide = lambda tree_: jax.tree_util.tree_map(lambda a: jnp.asarray(a, jnp.float64), tree_)  # noqa: E731
    ref = _references(g, m, third_order)(wide(point), wide(w), wide(v))

    _close("value", ours, ref["value"], rtol, g.dtype)
    _close(
        "gradients (seed ones)",
        vz.evaluate(vz.gradients(y, xs), feed),
        ref["vjp_ones"],
        rtol,
        g.dtype,
    )
    seed = value_node(w)
    _close(
        "gradients (random seed)",
        vz.evaluate(vz.gradients(y, xs, cotangent=seed), feed),
        ref["vjp_w"],
        rtol,
        g.dtype,
    )
    if m is not None:
        (ours_m,) = vz.evaluate(vz.gradients(y, [m], cotangent=seed), feed)
        _close(f"gradient w.r.t. intermediate {g.name(m)}", ours_m, ref["vjp_m"], rtol)

    tangents = {x: vz.constant(t) for x, t in zip(xs, v)}
    _close("jvp", vz.evaluate(vz.jvp(y, tangents), feed), ref["jvp"], rtol, g.dtype)

    # second order: s = ⟨w, y⟩; H v four ways
    s = _inner_tree(y, w, y_shape)
    first = vz.gradients(s, xs)
    ways = {
        "reverse-over-reverse": vz.gradients(_inner(first, v), xs),
        "forward-over-reverse": [vz.jvp(gk, tangents) for gk in first],
        "reverse-over-forward": vz.gradients(vz.jvp(s, tangents), xs),
    }
    for way, nodes in ways.items():
        _close(
            f"Hessian-vector product, {way}",
            vz.evaluate(nodes, feed),
            list(ref["hv"]),
            rtol,
            g.dtype,
            noise(2),
        )
    _close(
        "vᵀHv, forward-over-forward",
        vz.evaluate(vz.jvp(vz.jvp(s, tangents), tangents), feed),
        ref["vhv"],
        rtol,
        noise=noise(2),
    )

    # third order: D³s[v, v, v] in all eight mixes of forward (f) and reverse (r) steps
    if third_order:

        def d(q, mode):
            return vz.jvp(q, tangents) if mode == "f" else _inner(vz.gradients(q, xs), v)

        for modes in itertools.product("fr", repeat=3):
            q = s
            for mode in modes:
                q = d(q, mode)
            _close(
                f"third derivative, {''.join(modes)}",
                vz.evaluate(q, feed),
                ref["d3"],
                rtol * 10,
                noise=noise(3),
            )


def reproduction(g: Graph, error: Exception) -> str:
    """The smallest prefix of ``g`` (up to some node as the output) that still fails, as code."""
    candidates = [n for n in g.nodes if n not in g.inputs and n.op.name != "constant"]
    for node in candidates:
        sub = Graph(
            g.seed, g.declared, g.dtype, g.inputs, g.values, g.nodes, g.code, g.shapes, node
        )
        try:
            check_graph(sub)
        except Exception as exc:  # noqa: BLE001 - any failure reproduces
            needed = set(vz.topo_sort(node))
            lines = [g.code[n] for n in g.nodes if n in needed]
            feed = ", ".join(
                f"{x.name}: np.array({g.values[x].tolist()!r})" for x in g.inputs if x in needed
            )
            return (
                f"seed {g.seed} ({'declared' if g.declared else 'undeclared'} shapes, "
                f"{np.dtype(g.dtype).name}): {type(exc).__name__}: {exc}\n"
                + "\n".join(lines)
                + f"\nfeed = {{{feed}}}  # output {g.name(node)}"
            )
    return f"seed {g.seed}: {type(error).__name__}: {error} (no smaller prefix fails)"


def run(seeds, third_order_every: int = 1, verbose: bool = False) -> list[str]:
    """Check each seed; returns a reproduction per failure (empty when all pass)."""
    failures = []
    for seed in seeds:
        g = make_graph(seed)
        try:
            check_graph(g, third_order=seed % third_order_every == 0)
        except Exception as exc:  # noqa: BLE001 - errors are failures too
            failures.append(reproduction(g, exc))
            if verbose:
                print(failures[-1], end="\n\n", flush=True)
    return failures


if __name__ == "__main__":  # make fuzz N=5000
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 5000
    start = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    found = run(range(start, start + n), verbose=True)
    print(f"{n} graphs, {len(found)} failures")
    sys.exit(1 if found else 0)
