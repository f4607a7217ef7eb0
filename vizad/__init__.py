"""vizad: a Jupyter-first interactive visualizer of automatic differentiation.

An AD engine over numpy values: build a graph with Variables and ops, extend it with adjoint
nodes (reverse mode) or tangent nodes (forward mode), and evaluate it with an Executor::

    import vizad as vz
    x1, x2 = vz.Variable("x1"), vz.Variable("x2")
    y = vz.log(x1) + x1 * x2 - vz.sin(x2)
    g1, g2 = vz.gradients(y, [x1, x2])
    vz.Executor([y, g1, g2]).run({x1: 2.0, x2: 5.0})

The top level holds the everyday names. The rest has a home of its own: every op in
:mod:`vizad.engine.ops`, what op authors need in :mod:`vizad.extend`, the walkthroughs' types in
:mod:`vizad.trace`, the errors in :mod:`vizad.errors`. Walkthroughs, checks, drawings, the
stepper and the bridges to PyTorch and JAX (:mod:`vizad.bridges`) load on first use, so
``import vizad`` is numpy and the engine, and ``from vizad import *`` binds the engine's names
(and no builtin such as ``sum``).
"""

import importlib
from typing import Any as _Any

from vizad import errors
from vizad.errors import VizadError
from vizad.engine.node import scope
from vizad.engine.op import Op, Variable, constant, tensor
from vizad.engine.ops import (
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
from vizad.engine.graph import numbering, topo_sort
from vizad.engine.executor import Executor, evaluate
from vizad.engine.reverse import gradients
from vizad.engine.forward import jvp
from vizad.engine import (
    backward as _backward,
)  # y.backward() of eager nodes: reverse mode on values
from vizad.engine.adapters import register_loader as _register_loader


def _load_course_adapters() -> None:
    """Nodes of CSE 599W-style engines, students' micrograd Values and needle Tensors are read
    everywhere: their adapters load at the first object the engine does not know."""
    importlib.import_module("vizad.classroom.courses.foreign")
    importlib.import_module("vizad.classroom.courses.foreign_eager")


_register_loader(_load_course_adapters)

__version__ = "0.2.0"

#: Names that load their module on first use: {name: module}.
_LAZY = {
    "trace_reverse": "trace",
    "trace_forward": "trace",
    "gradcheck": "engine.numerical",
    "numerical_gradient": "engine.numerical",
    "jacobian": "engine.derivatives",
    "hvp": "engine.derivatives",
    "diagnose": "classroom.diagnosis",
    "grade": "classroom.grading",
    # the display layer (graphviz, ipywidgets, anywidget): not bound by `import *`
    "draw": "view.render",
    "config": "view.frontends",
    "step": "view.widget",
    "Stepper": "view.widget",
    "export_html": "view.export",
    "export_frames": "view.frame_files",
    "compare": "view.comparison",
    # the bridges to other frameworks (torch, jax): not bound by `import *` either
    "torch_backward": "bridges.torch_backward",
    "from_torch": "bridges.torch_import",
    "from_jax": "bridges.jax_import",
    "jax_backward": "bridges.jax_backward",
}
_NOT_STARRED = ("view.", "bridges.")  # display and frameworks: not bound by `import *`
#: The modules reached as attributes (``vz.ops.add_n``, ``vz.render.Layout``): {name: module}.
_SUBMODULES = {
    "ops": "engine.ops",
    "numerical": "engine.numerical",
    "derivatives": "engine.derivatives",
    "expr": "expr",
    "adapters": "engine.adapters",
    "graph": "engine.graph",
    "text": "trace.text",
    "tree": "engine.tree",
    "extend": "extend",
    "trace": "trace",
    "examples": "trace.examples",
    "render": "view.render",
    "widget": "view.widget",
    "export": "view.export",
    "bridges": "bridges",
    "diagnosis": "classroom.diagnosis",
    "grading": "classroom.grading",
    "exercises": "classroom.exercises",
}

__all__ = sorted(
    [
        name
        for name, value in globals().items()
        if not name.startswith("_")
        and not isinstance(value, type(errors))  # modules
        and name not in {"sum", "importlib"}  # `import *` shadows no builtin
    ]
    + [name for name, module in _LAZY.items() if not module.startswith(_NOT_STARRED)]
)


def __getattr__(name: str) -> _Any:
    if name in _LAZY:
        value = getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
        globals()[name] = value
        return value
    if name in _SUBMODULES:
        return importlib.import_module(f"{__name__}.{_SUBMODULES[name]}")
    raise AttributeError(f"module 'vizad' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(
        {n for n in globals() if not n.startswith("_")} - {"importlib"}
        | set(_LAZY)
        | set(_SUBMODULES)
    )
