"""Exercise D's answer: softplus as a vizad op, its rule softplus′(x) = σ(x)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from vizad.engine.executor import evaluate
from vizad.engine.op import Op, Variable
from vizad.engine.ops.elementary import sigmoid
from vizad.engine.ops.tensor import sum
from vizad.engine.reverse import gradients

__all__ = ["vz", "np", "Softplus"]

#: What the notebook's ``vz`` gives the cases (``import vizad as vz``).
vz = SimpleNamespace(
    Variable=Variable, gradients=gradients, evaluate=evaluate, sum=sum, sigmoid=sigmoid, Op=Op
)


class Softplus(Op):
    name = "softplus"
    arity = 1

    def compute(self, x):
        return np.log1p(np.exp(x))

    def vjp(self, node, adjoint):
        (x,) = node.inputs
        return [adjoint * vz.sigmoid(x)]
