"""Exceptions raised by vizad.

Every error names what it is about (the node, the op, the shapes) so that a learner can
find the problem in their own graph, not deep inside numpy.
"""

from __future__ import annotations

__all__ = [
    "VizadError",
    "GraphError",
    "NodeTypeError",
    "FeedError",
    "ShapeError",
    "EvaluationError",
    "GradcheckError",
]


class VizadError(Exception):
    """Base class of every error vizad raises on purpose."""


class GraphError(VizadError, ValueError):
    """The graph itself is wrong: a cycle, a bad input to an op, a bad vjp result."""


class NodeTypeError(VizadError, TypeError):
    """Something that is not a Node, a number or a numeric array was given to an op."""


class FeedError(VizadError, ValueError):
    """A feed dict is wrong: a Variable is missing, or a value is not numeric or mis-shaped."""


class ShapeError(VizadError, ValueError):
    """Shapes that do not fit together (broadcasting, matmul, reshape)."""


class EvaluationError(VizadError, ValueError):
    """An op failed while computing a value; the message names the node, op and input shapes."""


class GradcheckError(VizadError, AssertionError):
    """A gradient disagrees with central differences; ``report`` holds the details."""

    def __init__(self, message: str, report=None):
        super().__init__(message)
        self.report = report
