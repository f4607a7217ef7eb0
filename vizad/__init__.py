"""vizad: a Jupyter-first interactive visualizer of automatic differentiation.

An AD engine over numpy values: build a graph with Variables and ops, extend it with adjoint
nodes (reverse mode) or tangent nodes (forward mode), and evaluate it with an Executor::

    import vizad as vz
    x1, x2 = vz.Variable("x1"), vz.Variable("x2")
    y = vz.log(x1) + x1 * x2 - vz.sin(x2)
    g1, g2 = vz.gradients(y, [x1, x2])
    vz.Executor([y, g1, g2]).run({x1: 2.0, x2: 5.0})

The top level holds the everyday names. The rest has a home of its own: every op in
:mod:`vizad.ops`, what op authors need in :mod:`vizad.extend`, the walkthroughs' types in
:mod:`vizad.trace`, the errors in :mod:`vizad.errors`. Walkthroughs, checks, drawings, the
stepper and the bridges to PyTorch and JAX (:mod:`vizad.bridges`) load on first use, so
``import vizad`` is numpy and the engine, and ``from vizad import *`` binds the engine's names
(and no builtin such as ``sum``).
"""

import importlib
from typing import Any as _Any

from . import errors
from .errors import VizadError
from .node import scope
from .op import Op, Variable, constant, tensor
from .ops import (
    cos,
    exp,
    log,
    log_softmax,
    make_tuple,
    matmul,
    mean,
    relu,
    reshape,
    sigmoid,
    sin,
    sqrt,
    sum,
    tanh,
    transpose,
    tuple_get,
)
from .graph import numbering, topo_sort
from .executor import Executor, evaluate
from .reverse import gradients
from .forward import jvp
from . import backward as _backward  # y.backward() of eager nodes: reverse mode on values
from .compat import foreign as _foreign  # reads nodes of CSE 599W-style engines everywhere
from .compat import foreign_eager as _eager  # and students' micrograd Values, needle Tensors

__version__ = "0.2.0"

#: Names that load their module on first use: {name: module}.
_LAZY = {
    "trace_reverse": "trace",
    "trace_forward": "trace",
    "gradcheck": "numerical",
    "numerical_gradient": "numerical",
    "jacobian": "derivatives",
    "hvp": "derivatives",
    "diagnose": "diagnosis",
    "grade": "grading",
    # the display layer (graphviz, ipywidgets, anywidget): not bound by `import *`
    "draw": "render",
    "config": "frontends",
    "step": "widget",
    "Stepper": "widget",
    "export_html": "export",
    "export_frames": "frame_files",
    "compare": "comparison",
    # the bridges to other frameworks (torch, jax): not bound by `import *` either
    "torch_backward": "bridges.torch_backward",
    "from_torch": "bridges.torch_import",
    "from_jax": "bridges.jax_import",
    "jax_backward": "bridges.jax_backward",
}
_DISPLAY = ("render", "widget", "export", "frame_files", "comparison", "frontends")
_BRIDGES = tuple(f"bridges.{m}" for m in ("torch_backward", "torch_import", "jax_import"))
_BRIDGES += ("bridges.jax_backward",)
_SUBMODULES = (
    *("examples", "exercises", "extend", "ops", "trace", "numerical", "derivatives"),
    *("diagnosis", "grading", "render", "widget", "export", "expr", "adapters", "bridges"),
)

#: Names of the top level before the front door was made smaller (0.1.0 kept them with a
#: DeprecationWarning; 0.2.0 removed them): asking for one is an AttributeError naming its home.
_MOVED = frozenset(
    "Trace Names Name Node EagerNode Diagnosis TupleShape ElementwiseOp register registry "
    "Symbolic ZERO ONE MINUS_ONE ranked_order add sub mul div neg power identity add_n "
    "heaviside broadcast_to sum_to_shape expand_dims size ones_like zeros_like "
    "build_adjoints Adjoints Partial AdjointRole build_tangents Tangents GradcheckReport "
    "default_tolerances DirectionCheck ReverseTrace ForwardTrace ReverseStep ForwardStep "
    "Contribution TangentTerm CheckFailure Derivation Drawing Layout parse_expression "
    "GraphError NodeTypeError FeedError ShapeError EvaluationError GradcheckError "
    "ArgumentError StepNotFoundError RenderError GraphvizNotFoundError ExpressionError".split()
)
_HOMES = ("ops", "extend", "errors", "trace", "numerical", "diagnosis", "render", "expr")

__all__ = sorted(
    [
        name
        for name, value in globals().items()
        if not name.startswith("_")
        and not isinstance(value, type(errors))  # modules
        and name not in {"sum", "importlib"}  # `import *` shadows no builtin
    ]
    + [name for name, module in _LAZY.items() if module not in _DISPLAY + _BRIDGES]
)


def __getattr__(name: str) -> _Any:
    if name in _LAZY:
        value = getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
        globals()[name] = value
        return value
    if name in _SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    if name in _MOVED:
        for home in _HOMES:
            module = importlib.import_module(f"{__name__}.{home}")
            if name in getattr(module, "__all__", ()):
                raise AttributeError(
                    f"module 'vizad' has no attribute {name!r}: it moved to vizad.{home}.{name}"
                    f" (removed from the top level in 0.2.0; see CHANGELOG.md)"
                )
    raise AttributeError(f"module 'vizad' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(
        {n for n in globals() if not n.startswith("_")} - {"importlib"}
        | set(_LAZY)
        | set(_SUBMODULES)
    )
