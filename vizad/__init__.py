"""vizad: a Jupyter-first interactive visualizer of automatic differentiation.

An AD engine over numpy values: build a graph with Variables and ops, extend it with adjoint
nodes (reverse mode) or tangent nodes (forward mode), and evaluate it with an Executor::

    import vizad as vz
    x1, x2 = vz.Variable("x1"), vz.Variable("x2")
    y = vz.log(x1) + x1 * x2 - vz.sin(x2)
    g1, g2 = vz.gradients(y, [x1, x2])
    vz.Executor([y, g1, g2]).run({x1: 2.0, x2: 5.0})
"""

import sys
import types

from .errors import (
    ArgumentError,
    EvaluationError,
    ExpressionError,
    FeedError,
    GradcheckError,
    GraphError,
    GraphvizNotFoundError,
    NodeTypeError,
    RenderError,
    ShapeError,
    StepNotFoundError,
    VizadError,
)
from .node import Node, TupleShape, Variable, constant, scope
from .eager import EagerNode, tensor
from .op import MINUS_ONE, ONE, ZERO, ElementwiseOp, Op, Symbolic, register, registry
from .ops import (
    add,
    add_n,
    broadcast_to,
    cos,
    div,
    exp,
    expand_dims,
    heaviside,
    identity,
    log,
    log_softmax,
    make_tuple,
    matmul,
    mean,
    mul,
    neg,
    ones_like,
    power,
    relu,
    reshape,
    sigmoid,
    sin,
    size,
    sqrt,
    sub,
    sum,
    sum_to_shape,
    tanh,
    transpose,
    tuple_get,
    zeros_like,
)
from .graph import numbering, ranked_order, topo_sort
from .executor import Executor, evaluate
from .reverse import AdjointRole, Adjoints, Partial, build_adjoints, gradients
from .forward import Tangents, build_tangents, jvp

__version__ = "0.1.0"

__all__ = [
    "examples",
    "Trace",
    "Names",
    "Name",
    # graph
    "Node",
    "Variable",
    "constant",
    "scope",
    "tensor",
    "EagerNode",
    "jacobian",
    "hvp",
    "export_frames",
    "diagnose",
    "Diagnosis",
    "exercises",
    "TupleShape",
    "Op",
    "ElementwiseOp",
    "register",
    "registry",
    "Symbolic",
    "ZERO",
    "ONE",
    "MINUS_ONE",
    "topo_sort",
    "ranked_order",
    "numbering",
    # ops
    "add",
    "sub",
    "mul",
    "div",
    "neg",
    "power",
    "identity",
    "add_n",
    "exp",
    "log",
    "sin",
    "cos",
    "tanh",
    "sigmoid",
    "relu",
    "sqrt",
    "heaviside",
    "matmul",
    "transpose",
    "reshape",
    "sum",
    "mean",
    "broadcast_to",
    "sum_to_shape",
    "expand_dims",
    "size",
    "log_softmax",
    "ones_like",
    "zeros_like",
    "make_tuple",
    "tuple_get",
    # modes and evaluation
    "gradients",
    "build_adjoints",
    "Adjoints",
    "Partial",
    "AdjointRole",
    "jvp",
    "build_tangents",
    "Tangents",
    "Executor",
    "evaluate",
    "numerical_gradient",
    "gradcheck",
    "GradcheckReport",
    "default_tolerances",
    "DirectionCheck",
    # walkthroughs
    "trace_reverse",
    "trace_forward",
    "ReverseTrace",
    "ForwardTrace",
    "ReverseStep",
    "ForwardStep",
    "Contribution",
    "TangentTerm",
    "CheckFailure",
    "Derivation",
    # drawings
    "draw",
    "Drawing",
    "Layout",
    "GraphvizNotFoundError",
    # the debugger
    "Stepper",
    "step",
    "export_html",
    "parse_expression",
    "ExpressionError",
    # errors
    "VizadError",
    "GraphError",
    "NodeTypeError",
    "FeedError",
    "ShapeError",
    "EvaluationError",
    "GradcheckError",
    "ArgumentError",
    "StepNotFoundError",
    "RenderError",
]

# The drawing, widget and page stack (graphviz, ipywidgets, anywidget) loads on first use:
# `import vizad` is numpy and the engine.
_LAZY = {
    # walkthroughs, checks and the rest load on first use too: what every graph needs is
    # the engine (nodes, ops, executor, reverse and forward mode)
    **dict.fromkeys(
        [
            "CheckFailure",
            "Contribution",
            "Derivation",
            "ForwardStep",
            "ForwardTrace",
            "Name",
            "Names",
            "ReverseStep",
            "ReverseTrace",
            "TangentTerm",
            "Trace",
            "trace_forward",
            "trace_reverse",
        ],
        "trace",
    ),
    **dict.fromkeys(
        [
            "DirectionCheck",
            "GradcheckReport",
            "default_tolerances",
            "gradcheck",
            "numerical_gradient",
        ],
        "gradcheck",
    ),
    "Diagnosis": "diagnose",
    "diagnose": "diagnose",
    "hvp": "jacobian",
    "jacobian": "jacobian",
    "parse_expression": "expr",
    "Drawing": "render",
    "Layout": "render",
    "draw": "render",
    "Stepper": "widget",
    "step": "widget",
    "export_html": "export",
    "export_frames": "frame_files",
}
_SUBMODULES = (
    "render",
    "widget",
    "export",
    "frame_files",
    "exercises",
    "examples",
    "trace",
    "expr",
)


class _Package(types.ModuleType):
    """vizad itself. ``vz.gradcheck``, ``vz.diagnose`` and ``vz.jacobian`` are functions that
    share their module's name: when the import system sets the loaded submodule on the
    package, the package keeps the function."""

    def __setattr__(self, name: str, value) -> None:
        if name in _LAZY and isinstance(value, types.ModuleType):
            value = getattr(value, name)
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package


def __getattr__(name: str):
    import importlib

    if name in _LAZY:
        value = getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
        globals()[name] = value
        return value
    if name in _SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module 'vizad' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_LAZY) | set(_SUBMODULES))
