"""Exceptions raised by vizad.

Every error names what it is about (the node, the op, the shapes) so that a learner can
find the problem in their own graph, not deep inside numpy. Every error vizad raises on purpose
is a :class:`VizadError`, so ``except vz.VizadError`` catches them all; each also derives from
exactly one builtin exception, the one a Python user would expect (ValueError, TypeError,
LookupError, RuntimeError, AssertionError, NotImplementedError, OSError).
"""

from __future__ import annotations

from typing import Any

from vizad.engine.tree import shape_of

__all__ = [
    "VizadError",
    "GraphError",
    "NodeTypeError",
    "FeedError",
    "ShapeError",
    "EvaluationError",
    "GradcheckError",
    "ArgumentError",
    "ArgumentTypeError",
    "StepNotFoundError",
    "ElementIndexError",
    "ReadOnlyError",
    "RuleNotDefinedError",
    "RenderError",
    "LayoutTimeoutError",
    "GraphvizNotFoundError",
    "ExpressionError",
    "MissingExtraError",
    "BridgeError",
    "GradeError",
    "MissingNameError",
    "OutputError",
    "NotPicklableError",
    "ClosedError",
]


class VizadError(Exception):
    """Base class of every error vizad raises on purpose.

    Examples:
        >>> x = vz.Variable("x")
        >>> try:
        ...     vz.evaluate(x + 1.0, {})
        ... except vz.VizadError as error:
        ...     print(type(error).__name__)
        FeedError
    """


class GraphError(VizadError, ValueError):
    """The graph itself is wrong: a cycle, a bad input to an op, a bad vjp result, an op
    class that breaks the op protocol.

    Examples:
        >>> class Forgets(vz.Op):
        ...     def compute(self, x):
        ...         return x
        ...     def vjp(self, node, adjoint):
        ...         return []  # one adjoint per input is due
        ...
        >>> x = vz.Variable("x")
        >>> vz.gradients(Forgets()(x), [x])
        Traceback (most recent call last):
            ...
        vizad.errors.GraphError: vjp of op 'forgets' at node ...
    """


class NodeTypeError(VizadError, TypeError):
    """Something that is not a Node, a number or a numeric array was given to an op.

    Examples:
        >>> vz.sin("x")
        Traceback (most recent call last):
            ...
        vizad.errors.NodeTypeError: sin: input 0 is a str ('x'); give a Node, a ...
    """


class FeedError(VizadError, ValueError):
    """A feed dict is wrong: a Variable is missing, or a value is not numeric or mis-shaped.

    Examples:
        >>> x1, x2 = vz.Variable("x1"), vz.Variable("x2")
        >>> y = vz.log(x1) + x1 * x2 - vz.sin(x2)
        >>> vz.evaluate(y, {x1: 2.0})
        Traceback (most recent call last):
            ...
        vizad.errors.FeedError: Variable 'x2' (node ...
    """


class ShapeError(VizadError, ValueError):
    """Shapes that do not fit together (broadcasting, matmul, reshape).

    Examples:
        >>> a, b = vz.Variable("a", shape=(2, 3)), vz.Variable("b", shape=(2, 3))
        >>> vz.matmul(a, b)
        Traceback (most recent call last):
            ...
        vizad.errors.ShapeError: matmul(a, b): shapes (2, 3) and (2, 3) do not ...
    """


class EvaluationError(VizadError, ValueError):
    """An op failed while computing a value; the message names the node, op and input shapes.

    Examples:
        >>> class Refuses(vz.Op):
        ...     def compute(self, x):
        ...         raise ValueError("no value here")
        ...
        >>> x = vz.Variable("x")
        >>> vz.evaluate(Refuses()(x), {x: 1.0})
        Traceback (most recent call last):
            ...
        vizad.errors.EvaluationError: node ...
    """

    #: The exception the op's compute raised.
    original: BaseException | None = None


class GradcheckError(VizadError, AssertionError):
    """A gradient disagrees with central differences; ``report`` holds the details.

    Examples:
        >>> class Square(vz.Op):
        ...     def compute(self, x):
        ...         return x * x
        ...     def vjp(self, node, adjoint):
        ...         (x,) = node.inputs
        ...         return [adjoint * x]  # wrong: d(x²)/dx is 2x
        ...
        >>> x = vz.Variable("x")
        >>> vz.gradcheck(Square()(x), [x], {x: 3.0}, raise_on_failure=True)
        Traceback (most recent call last):
            ...
        vizad.errors.GradcheckError: gradients disagree with central differences: ...
    """

    def __init__(self, message: str, report: Any = None) -> None:
        super().__init__(message)
        self.report = report


class ArgumentError(VizadError, ValueError):
    """An argument of a vizad function has a value it does not accept: a view or mode name, a
    number out of range, a trace without steps.

    Examples:
        >>> x1, x2 = vz.Variable("x1"), vz.Variable("x2")
        >>> y = vz.log(x1) + x1 * x2 - vz.sin(x2)
        >>> vz.trace_reverse(y, [x1, x2], {x1: 2.0, x2: 5.0}, decimals=-1)
        Traceback (most recent call last):
            ...
        vizad.errors.ArgumentError: trace_reverse: decimals must be from 0 to 15, got ...
    """


class ArgumentTypeError(VizadError, TypeError):
    """An argument of a vizad function is an object of the wrong kind (a node where a trace is
    needed, a float where a step number is).

    Examples:
        >>> x1, x2 = vz.Variable("x1"), vz.Variable("x2")
        >>> y = vz.log(x1) + x1 * x2 - vz.sin(x2)
        >>> vz.Stepper(y)
        Traceback (most recent call last):
            ...
        vizad.errors.ArgumentTypeError: Stepper steps through a trace (vz.trace_reverse ...
    """


class StepNotFoundError(VizadError, LookupError):
    """A trace has no step for the node (or the step number) asked about.

    Examples:
        >>> x1, x2 = vz.Variable("x1"), vz.Variable("x2")
        >>> y = vz.log(x1) + x1 * x2 - vz.sin(x2)
        >>> trace = vz.trace_reverse(y, [x1, x2], {x1: 2.0, x2: 5.0})
        >>> trace.step_of(vz.Variable("z"))
        Traceback (most recent call last):
            ...
        vizad.errors.StepNotFoundError: node ...
    """


class ElementIndexError(VizadError, IndexError):
    """``trace.element(node, index)`` was given an index that is not an element of the
    adjoint of ``node`` (the message names the node, the adjoint's shape and the index).

    Examples:
        >>> x = vz.Variable("x", shape=(2, 3))
        >>> trace = vz.trace_reverse(vz.sum(x), [x], {x: np.ones((2, 3))})
        >>> trace.element(x, (2, 0))
        Traceback (most recent call last):
            ...
        vizad.errors.ElementIndexError: trace.element: index (2, 0) is not an element of ...
    """


class ReadOnlyError(VizadError, AttributeError):
    """A record that never changes (a step's Contribution) was asked to change.

    Examples:
        >>> contribution = vz.examples.lecture().steps[5].contributions[0]
        >>> contribution.local = 0.0
        Traceback (most recent call last):
            ...
        vizad.errors.ReadOnlyError: a Contribution is immutable: cannot set 'local'
    """


class RuleNotDefinedError(VizadError, NotImplementedError):
    """An op has no rule for what was asked: no vjp for reverse mode, no jvp for forward mode,
    no compute.

    Examples:
        >>> from vizad import extend
        >>> class NoRules(vz.Op):
        ...     def compute(self, x):
        ...         return x
        ...
        >>> x = vz.Variable("x")
        >>> vz.gradients(NoRules()(x), [x])
        Traceback (most recent call last):
            ...
        vizad.errors.RuleNotDefinedError: op 'norules' defines no vjp, so reverse mode ...
    """


class RenderError(VizadError, RuntimeError):
    """Graphviz failed to lay out a drawing."""


class LayoutTimeoutError(RenderError):
    """Graphviz took longer than it was given to lay out a drawing (and was stopped)."""


#: How to install Graphviz's dot program, on each platform.
INSTALL_HINT = (
    "install Graphviz's dot program: `sudo apt-get install graphviz` (Debian, "
    "Ubuntu), `conda install -c conda-forge graphviz` (conda) or "
    "`brew install graphviz` (macOS); `make lab` and `make test` do it for you"
)


class GraphvizNotFoundError(RenderError):
    """Rendering needs Graphviz's ``dot`` program, which is not installed; the message says how
    to install it."""

    def __init__(self, what: str = "rendering a drawing") -> None:
        super().__init__(
            f"{what} needs Graphviz's `dot` program, which was not found: "
            f"{INSTALL_HINT}. The DOT source (drawing.source) works without it, and in "
            "Jupyter drawings and the stepper are laid out in the browser instead"
        )


class ExpressionError(VizadError, ValueError):
    """An expression given to the command line (or ``parse_expression``) is not one vizad
    accepts; the message points at the offending part.

    Examples:
        >>> from vizad.cli import parse_expression
        >>> parse_expression("x1 +* 2")
        Traceback (most recent call last):
            ...
        vizad.errors.ExpressionError: invalid syntax at column 5: ...
    """


class MissingExtraError(VizadError, ImportError):
    """A bridge needs a framework that is not installed; the message names the extra that
    installs it (``pip install 'vizad[torch]'``)."""


class BridgeError(VizadError, ValueError):
    """A framework object that a bridge cannot read: a tensor without ``grad_fn``, a loss
    that is not a scalar without a seed, an object of no framework vizad knows.

    Examples:
        >>> import torch
        >>> vz.torch_backward(torch.tensor(1.0))
        Traceback (most recent call last):
            ...
        vizad.errors.BridgeError: torch_backward: the tensor of shape () has no ...
    """


class GradeError(VizadError, AssertionError):
    """A graded module fails cases of its course (``vz.grade(...).check()``, for a test cell
    that passes or fails as a whole); ``report`` holds every row.

    Examples:
        >>> import pathlib, tempfile
        >>> student = pathlib.Path(tempfile.mkdtemp()) / "engine.py"
        >>> _ = student.write_text("Value = float")
        >>> vz.grade(student, "micrograd", isolation="none").check()
        Traceback (most recent call last):
            ...
        vizad.errors.GradeError: engine: 0/14 micrograd cases pass ...
    """

    def __init__(self, message: str, report: Any = None) -> None:
        super().__init__(message)
        self.report = report


class MissingNameError(VizadError, AttributeError):
    """A graded module lacks a name its course's cases use (``gradients``, ``summation`` …);
    the message says where it was looked for."""


class OutputError(VizadError, OSError):
    """A file could not be written (permissions, a full disk); the message names the path and
    says what to do. Paths that vizad refuses to write (a directory, a disk) are an
    ArgumentError before any work."""


class NotPicklableError(VizadError, TypeError):
    """An object that holds a graph or a live widget (a Layout, a Stepper) was pickled; the
    message says what to send instead. (Nodes refuse with a NodeTypeError.)

    Examples:
        >>> x1, x2 = vz.Variable("x1"), vz.Variable("x2")
        >>> y = vz.log(x1) + x1 * x2 - vz.sin(x2)
        >>> import pickle
        >>> pickle.dumps(vz.step(y, [x1, x2], {x1: 2.0, x2: 5.0}))
        Traceback (most recent call last):
            ...
        vizad.errors.NotPicklableError: a Stepper cannot be pickled or copied: it is a ...
    """


class ClosedError(VizadError, RuntimeError):
    """A widget (a Stepper) was used after ``close()``; the message says to make another.

    Examples:
        >>> x1, x2 = vz.Variable("x1"), vz.Variable("x2")
        >>> y = vz.log(x1) + x1 * x2 - vz.sin(x2)
        >>> stepper = vz.step(y, [x1, x2], {x1: 2.0, x2: 5.0})
        >>> stepper.close()
        >>> stepper.next()
        Traceback (most recent call last):
            ...
        vizad.errors.ClosedError: this stepper was closed (stepper.close()): make ...
    """


def evaluation_error(node: Any, inputs: list[Any], exc: Exception) -> VizadError:
    """The error for an op that failed on ``inputs`` at ``node``: a ShapeError when the
    inputs' shapes cannot fit the op, else an EvaluationError naming the node, the op and
    the input shapes. Raise it ``from exc``, so that the op's own failing line shows."""
    shapes = [shape_of(v) for v in inputs]
    if isinstance(exc, ShapeError):  # the op's own check, which says what to do
        return ShapeError(f"{node.describe()}: {exc}")
    try:
        node.op.infer_shape(shapes, node.attrs)
    except ShapeError as shape_exc:
        return ShapeError(f"{node.describe()}: {shape_exc}")
    except Exception:
        pass
    shown = ", ".join(map(str, shapes))
    error = EvaluationError(
        f"{node.describe()}: op {node.op.name!r} failed on inputs of "
        f"shapes {shown}: {type(exc).__name__}: {exc} (check the op's compute at these inputs: "
        "its failing line is in the traceback)"
    )
    error.original = exc
    return error
