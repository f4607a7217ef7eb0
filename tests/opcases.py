"""Test cases for every registered op, and the checks they are put through.

Elementwise ops get cases from their arity and ``domain`` automatically (scalars, vectors,
matrices, broadcast shapes); every other op has an entry in ``EXTRA_CASES``. A registered op with
neither makes ``test_every_op_has_cases`` fail, so a new op is tested by being registered.
"""

from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Callable

import numpy as np

import vizad as vz
from vizad.engine.numerical import value_node as seed_node  # noqa: F401
from vizad.engine.tree import inner, random_like  # noqa: F401

LEAVES = {"variable", "constant"}

UNARY_SHAPES = [(), (4,), (2, 3)]
BINARY_SHAPES = [
    ((), ()),
    ((3,), (3,)),
    ((2, 3), (3,)),
    ((2, 1), (1, 3)),
    ((2, 3), ()),
    ((), (2, 2)),
]


@dataclass
class Case:
    name: str
    build: Callable[..., vz.extend.Node]
    shapes: list[tuple]
    domains: list[tuple[float, float]]

    def __str__(self) -> str:
        return self.name


def _sample(rng, shape, domain):
    low, high = domain
    x = rng.uniform(low, high, size=shape)
    if low < 0 < high:  # stay clear of kinks at 0 (relu, heaviside)
        x = np.where(np.abs(x) < 0.15, np.sign(x + 1e-12) * 0.4, x)
    return np.asarray(x, dtype=np.float64)


def sample_inputs(case: Case, seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [_sample(rng, s, d) for s, d in zip(case.shapes, case.domains)]


#: Where each op is differentiable and well conditioned, for ops that are not so everywhere:
#: one (low, high) range per input.
DOMAINS = {
    "log": ((0.2, 3.0),),
    "sqrt": ((0.2, 3.0),),
    "div": ((-2.0, 2.0), (0.5, 2.0)),
}


def _elementwise_cases(op: vz.extend.ElementwiseOp) -> list[Case]:
    domain = DOMAINS.get(op.name)
    if op.name == "power":
        return [
            Case(f"power p={p} {s}", (lambda a, p=p: vz.ops.power(a, p)), [s], [(0.5, 2.0)])
            for p in (2, 3, -1, 0.5, 0, 1, -2.5)
            for s in UNARY_SHAPES
        ]
    if op.name == "add_n":
        return [
            Case(f"add_n x{n} {s}", (lambda *xs: vz.ops.add_n(*xs)), [s] * n, [(-2, 2)] * n)
            for n in (1, 3)
            for s in UNARY_SHAPES
        ]
    if op.arity == 1:
        domain = domain or ((-2.0, 2.0),)
        return [Case(f"{op.name} {s}", op, [s], list(domain)) for s in UNARY_SHAPES]
    domain = domain or ((-2.0, 2.0),) * 2
    return [Case(f"{op.name} {sa} {sb}", op, [sa, sb], list(domain)) for sa, sb in BINARY_SHAPES]


def _extra_cases() -> dict[str, list[Case]]:
    d = (-2.0, 2.0)
    c: dict[str, list[Case]] = {}
    c["matmul"] = [
        Case(
            f"matmul trans_a={ta} trans_b={tb}",
            (lambda a, b, ta=ta, tb=tb: vz.matmul(a, b, ta, tb)),
            [(3, 2) if ta else (2, 3), (4, 3) if tb else (3, 4)],
            [d, d],
        )
        for ta in (False, True)
        for tb in (False, True)
    ]
    c["transpose"] = [
        Case("transpose", vz.transpose, [(2, 3)], [d]),
        Case("transpose axes", lambda a: vz.transpose(a, (1, 2, 0)), [(2, 3, 4)], [d]),
    ]
    c["reshape"] = [
        Case("reshape", lambda a: vz.reshape(a, (3, -1)), [(2, 3)], [d]),
        Case("reshape to scalar", lambda a: vz.reshape(a, ()), [(1, 1)], [d]),
    ]
    c["sum"] = [
        Case("sum all", vz.sum, [(2, 3)], [d]),
        Case("sum axis 0", lambda a: vz.sum(a, 0), [(2, 3)], [d]),
        Case("sum axis -1 keepdims", lambda a: vz.sum(a, -1, keepdims=True), [(2, 3)], [d]),
        Case("sum axes (0, 2)", lambda a: vz.sum(a, (0, 2)), [(2, 3, 2)], [d]),
    ]
    c["mean"] = [
        Case("mean all", vz.mean, [(2, 3)], [d]),
        Case("mean axis 1", lambda a: vz.mean(a, 1), [(2, 3)], [d]),
        Case("mean axis 0 keepdims", lambda a: vz.mean(a, 0, keepdims=True), [(2, 3)], [d]),
    ]
    c["broadcast_to"] = [
        Case("broadcast_to", lambda a: vz.ops.broadcast_to(a, (2, 3)), [(3,)], [d]),
        Case("broadcast_to from scalar", lambda a: vz.ops.broadcast_to(a, (2, 2)), [()], [d]),
        Case(
            "broadcast_to like node",
            lambda a, b: vz.ops.broadcast_to(a, b),
            [(2, 1), (2, 3)],
            [d, d],
        ),
    ]
    c["sum_to_shape"] = [
        Case("sum_to_shape", lambda a: vz.ops.sum_to_shape(a, (3,)), [(2, 3)], [d]),
        Case("sum_to_shape keep 1s", lambda a: vz.ops.sum_to_shape(a, (2, 1)), [(2, 3)], [d]),
        Case(
            "sum_to_shape like node",
            lambda a, b: vz.ops.sum_to_shape(a, b),
            [(4, 2, 3), (1, 3)],
            [d, d],
        ),
    ]
    c["expand_dims"] = [
        Case("expand_dims", lambda a: vz.ops.expand_dims(a, 1), [(2, 3)], [d]),
        Case("expand_dims -1", lambda a: vz.ops.expand_dims(a, (0, -1)), [(3,)], [d]),
    ]
    c["size"] = [Case("size", lambda a: vz.ops.size(a, 1) * a, [(2, 3)], [d])]
    c["log_softmax"] = [
        Case("log_softmax", vz.log_softmax, [(3, 4)], [d]),
        Case("log_softmax axis 0", lambda a: vz.log_softmax(a, 0), [(3, 4)], [d]),
        Case("log_softmax vector", vz.log_softmax, [(5,)], [d]),
    ]
    c["ones_like"] = [Case("ones_like", lambda a: vz.ops.ones_like(a) * a, [(3,)], [d])]
    c["zeros_like"] = [Case("zeros_like", lambda a: vz.ops.zeros_like(a) + a, [(3,)], [d])]
    c["stop_gradient"] = [
        Case("stop_gradient", lambda a: a + vz.ops.stop_gradient(a) * 0.0, [(3,)], [d])
    ]
    c["make_tuple"] = [
        Case("make_tuple", lambda a, b: vz.make_tuple(a, vz.sin(b)), [(2,), (3, 2)], [d, d])
    ]
    c["tuple_get"] = [
        Case(
            "tuple_get",
            lambda a, b: vz.tuple_get(vz.make_tuple(a, b), 1) * a,
            [(2,), (3, 2)],
            [d, d],
        ),
        Case(
            "tuple_get -2", lambda a, b: vz.tuple_get(vz.make_tuple(a, b), -2), [(2,), ()], [d, d]
        ),
    ]
    return c


EXTRA_CASES = _extra_cases()


def all_cases() -> list[tuple[str, Case]]:
    """(op name, case) for every registered op."""
    out = []
    for name, op in sorted(vz.extend.registry().items()):
        if name in LEAVES:
            continue
        cases = EXTRA_CASES.get(name) or (
            _elementwise_cases(op) if isinstance(op, vz.extend.ElementwiseOp) else []
        )
        out.extend((name, case) for case in cases)
    return out


# -- helpers on (possibly tuple) values --------------------------------------------------
def add_scaled(a, b, s):
    if isinstance(a, tuple):
        return tuple(add_scaled(x, y, s) for x, y in zip(a, b))
    return a + s * b


def central_gradient(objective, point: list, eps: float) -> list:
    """∂ objective / ∂ point[k], entry by entry, by central differences."""
    result = []
    for k, x in enumerate(point):
        numeric = np.zeros_like(x)
        for index in np.ndindex(x.shape):
            up = [p.copy() for p in point]
            down = [p.copy() for p in point]
            up[k][index] += eps
            down[k][index] -= eps
            numeric[index] = (objective(up) - objective(down)) / (2 * eps)
        result.append(numeric)
    return result
