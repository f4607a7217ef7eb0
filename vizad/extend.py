"""What an op author (or the author of a bridge to another engine) needs, in one place.

Write an op by subclassing :class:`Op` (``compute`` and ``vjp``, optionally ``jvp`` and the
LaTeX methods) or :class:`ElementwiseOp` (``compute`` and ``partials``: the vjp and jvp follow);
:func:`register` enrols it in the registry that the gradient tests loop over. The helpers are
the ones vizad's own ops use: broadcasting of static shapes, the reduction target of a
broadcast adjoint, the local partials and derived rules of an elementwise op, and the records
and roles of a graph extension (which node is which partial adjoint)::

    from vizad.extend import ElementwiseOp, register

    class Cube(ElementwiseOp):
        def compute(self, x):
            return x**3
        def partials(self, node):
            (x,) = node.inputs
            return [3.0 * x * x]

    cube = register(Cube())
"""

from vizad.engine.adapters import register_adapter
from vizad.engine.eager import EagerNode
from vizad.errors import RuleNotDefinedError
from vizad.engine.extension import AdjointRole
from vizad.engine.forward import Tangents, build_tangents
from vizad.engine.graph import number_ranked, numbering, ranked_order
from vizad.engine.node import Node, static_shape
from vizad.engine.op import CONSTANT, VARIABLE, Op, as_node, latex_product, register, registry
from vizad.engine.ops.derivation import broadcast_tangent, elementwise_jvp, elementwise_vjp, times
from vizad.engine.ops.elementwise import (
    MINUS_ONE,
    ONE,
    ZERO,
    ElementwiseOp,
    Symbolic,
    broadcast_shapes,
    local_partials,
    reduce_target,
)
from vizad.engine.ops.tensor import broadcast_to, sum_to_shape
from vizad.engine.reverse import Adjoints, Partial, build_adjoints, local_adjoints
from vizad.engine.tree import TupleShape

__all__ = [
    # writing an op
    "Op",
    "ElementwiseOp",
    "Symbolic",
    "ZERO",
    "ONE",
    "MINUS_ONE",
    "register",
    "registry",
    "RuleNotDefinedError",
    "latex_product",
    # nodes, leaves, shapes and broadcasting
    "Node",
    "VARIABLE",
    "CONSTANT",
    "EagerNode",
    "TupleShape",
    "as_node",
    "static_shape",
    "broadcast_shapes",
    "reduce_target",
    "sum_to_shape",
    "broadcast_to",
    # the rules an elementwise op derives
    "local_partials",
    "times",
    "elementwise_vjp",
    "elementwise_jvp",
    "broadcast_tangent",
    "local_adjoints",
    # graph extensions and their records
    "build_adjoints",
    "Adjoints",
    "Partial",
    "build_tangents",
    "Tangents",
    "AdjointRole",
    "ranked_order",
    "numbering",
    "number_ranked",
    # graphs of other engines
    "register_adapter",
]
