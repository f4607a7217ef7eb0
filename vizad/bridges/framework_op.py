"""The op of an imported graph that has no vizad counterpart: it runs the framework's own
implementation and takes its derivatives from the framework.

An imported function's primitives become vizad ops where vizad has the same op (add, sin,
matmul …); anything else becomes a :class:`FrameworkOp`. Its ``compute`` calls the framework,
its vjp is a node of another FrameworkOp that calls the framework's vjp (``torch.func.vjp``,
``jax.vjp``) and its jvp one that calls the framework's jvp. Those are functions of arrays
like the first, so their own rules come from the framework in the same way: gradients of any
order work, and nothing is refused.
"""

from __future__ import annotations

from typing import Any
from collections.abc import Callable, Iterator, Mapping, Sequence

from vizad.errors import RuleNotDefinedError
from vizad.engine.node import Node, static_shape
from vizad.engine.op import Op
from vizad.engine.ops import tuple_get, zeros_like
from vizad.engine.text import latex_name
from vizad.engine.tree import TupleShape, leaves

__all__ = ["Framework", "FrameworkOp"]


class Framework:
    """What a fallback op needs of a framework: its arrays, and its own vjp and jvp. A
    subclass gives the framework's primitives (the methods that raise here); the rules of
    functions of several arguments and results, of which only the floating-point ones are
    differentiated, are built from them alike for every framework."""

    #: The framework's name, as views say it ("PyTorch", "JAX").
    name = ""

    # -- the framework's primitives ------------------------------------------------------
    def native(self, value: Any) -> Any:
        """A numpy value (a tuple of them) as the framework's arrays."""
        raise NotImplementedError

    def numpy(self, value: Any) -> Any:
        """The framework's array (a tuple or list of them) as numpy."""
        raise NotImplementedError

    def floating(self, x: Any) -> bool:
        """Whether the framework's array ``x`` is floating-point (or complex)."""
        raise NotImplementedError

    def zeros(self, x: Any) -> Any:
        """Zeros shaped like ``x`` in its float type (the default float type for integers)."""
        raise NotImplementedError

    def pullback(self, f: Callable, primals: Sequence[Any]) -> Callable:
        """The framework's vjp of ``f`` at ``primals``: the function of a cotangent."""
        raise NotImplementedError

    def pushforward(self, f: Callable, primals: Sequence[Any], tangents: Sequence[Any]) -> Any:
        """The framework's jvp of ``f`` at ``primals`` along ``tangents``."""
        raise NotImplementedError

    # -- what a FrameworkOp calls --------------------------------------------------------
    def call(self, fn: Callable, values: Sequence[Any]) -> Any:
        """``fn`` on numpy ``values``, its result as numpy (a tuple for several)."""
        return self.numpy(fn(*(self.native(v) for v in values)))

    def vjp_of(self, fn: Callable, n: int) -> Callable:
        """The function ``(*primals, cotangent) -> (one cotangent per primal)`` of ``fn`` of
        ``n`` arguments (zeros for an integer primal, or where no result is floating)."""

        def vjp(*args: Any) -> tuple[Any, ...]:
            primals, cotangent = args[:n], args[n]
            part = _FloatingPart(self, fn, primals)
            grads = ()
            if part.floats and part.results:
                grads = self.pullback(part, part.float_primals)(part.kept(cotangent))
            return part.gradients(grads)

        return vjp

    def jvp_of(self, fn: Callable, n: int) -> Callable:
        """The function ``(*primals, *tangents) -> tangent of the result`` of ``fn``."""

        def jvp(*args: Any) -> Any:
            primals, tangents = args[:n], args[n:]
            part = _FloatingPart(self, fn, primals)
            if not part.floats or not part.results:
                return part.tangent(())
            floating = part.floating_tangents(tangents)
            return part.tangent(self.pushforward(part, part.float_primals, floating))

        return jvp


class _FloatingPart:
    """``fn`` of the floating-point arrays among its arguments (the others fixed at
    ``primals``; a tuple argument array by array), giving the floating-point arrays among
    its results as a tuple: what a framework differentiates."""

    def __init__(self, framework: Framework, fn: Callable, primals: Sequence[Any]) -> None:
        self.framework, self.fn, self.primals = framework, fn, tuple(primals)
        self.leaves = leaves(self.primals)
        self.floats = [k for k, p in enumerate(self.leaves) if framework.floating(p)]
        self.float_primals = tuple(self.leaves[k] for k in self.floats)
        self.out = _tuples(fn(*primals))
        self.out_leaves = leaves(self.out)
        #: Which arrays of the result are floating (its leaves, depth first).
        self.results = [k for k, o in enumerate(self.out_leaves) if framework.floating(o)]

    def __call__(self, *xs: Any) -> tuple[Any, ...]:
        full = list(self.leaves)
        for k, x in zip(self.floats, xs):
            full[k] = x
        out = leaves(_tuples(self.fn(*_rebuilt(self.primals, iter(full)))))
        return tuple(out[k] for k in self.results)

    def kept(self, cotangent: Any) -> tuple:
        """The cotangents of the results it gives."""
        flat = leaves(cotangent)
        return tuple(flat[k] for k in self.results)

    def floating_tangents(self, tangents: Sequence[Any]) -> tuple:
        flat = leaves(tuple(tangents))
        return tuple(flat[k] for k in self.floats)

    def gradients(self, grads: Sequence[Any]) -> tuple:
        """One cotangent per primal, laid out like it: ``grads`` for the floating arrays,
        zeros for the others."""
        full = [self.framework.zeros(p) for p in self.leaves]
        for k, g in zip(self.floats, grads):
            full[k] = g
        return _rebuilt(self.primals, iter(full))

    def tangent(self, tangents: Sequence[Any]) -> Any:
        """The result's tangent, laid out like it: zeros where it is not floating."""
        full = [self.framework.zeros(o) for o in self.out_leaves]
        for k, t in zip(self.results, tangents):
            full[k] = t
        return _rebuilt(self.out, iter(full))


def _tuples(value: Any) -> Any:
    """``value`` with its lists made tuples (a framework's op may give a list of arrays)."""
    if isinstance(value, (tuple, list)):
        return tuple(_tuples(v) for v in value)
    return value


def _rebuilt(like: Any, flat: Iterator) -> Any:
    """The arrays of ``flat`` laid out like ``like`` (tuples as tuples)."""
    if isinstance(like, tuple):
        return tuple(_rebuilt(v, flat) for v in like)
    return next(flat)


class FrameworkOp(Op):
    """An op computed by a framework: ``fn`` of ``arity`` arrays, whose result has the static
    shape ``shape`` (a TupleShape for several results, None when unknown); ``floating``
    False for a result without derivatives (a comparison's booleans)."""

    #: Why the framework has no forward mode for it (JAX's custom_vjp functions), or "".
    no_jvp = ""

    def __init__(
        self,
        name: str,
        fn: Callable,
        framework: Framework,
        arity: int,
        shape: Any = None,
        floating: bool = True,
    ) -> None:
        self.name, self.fn, self.framework = name, fn, framework
        self.arity, self.shape, self.floating = arity, shape, floating

    def compute(self, *values: Any) -> Any:
        return self.framework.call(self.fn, values)

    def infer_shape(self, shapes: Sequence[Any], attrs: Mapping[str, Any]) -> Any:
        return self.shape

    def vjp(self, node: Node, adjoint: Node) -> list[Node | None]:
        """The framework's vjp as one node holding every input's partial adjoint (a tuple),
        read input by input."""
        n = len(node.inputs)
        if not self.floating:
            return [None] * n
        shape = TupleShape(static_shape(x) for x in node.inputs)
        rule = FrameworkOp(
            f"vjp of {self.name}", self.framework.vjp_of(self.fn, n), self.framework, n + 1, shape
        )
        grads = rule(*node.inputs, adjoint)
        return [tuple_get(grads, k) for k in range(n)]

    def jvp(self, node: Node, tangents: Sequence[Node | None]) -> Node | None:
        """The framework's jvp of the inputs' tangents (zeros where an input has none)."""
        if not self.floating or all(t is None for t in tangents):
            return None
        if self.no_jvp:
            raise RuleNotDefinedError(f"op {self.name!r} has no jvp: {self.no_jvp}")
        n = len(node.inputs)
        filled = [t if t is not None else zeros_like(x) for x, t in zip(node.inputs, tangents)]
        rule = FrameworkOp(
            f"jvp of {self.name}",
            self.framework.jvp_of(self.fn, n),
            self.framework,
            2 * n,
            static_shape(node),
        )
        return rule(*node.inputs, *filled)

    def latex(self, args: Sequence[str], attrs: Mapping[str, Any]) -> str:
        return rf"{latex_name(self.name)}\left({', '.join(args)}\right)"

    def __repr__(self) -> str:
        return f"<op {self.name} ({self.framework.name})>"
