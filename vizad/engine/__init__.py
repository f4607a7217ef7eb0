"""The engine: the room a newcomer reads first.

Nodes over numpy values (:mod:`~vizad.engine.node`, :mod:`~vizad.engine.op`), the ops as data
(:mod:`vizad.engine.ops`: each op's value, reverse rule, forward rule and LaTeX in one object),
eager nodes that compute as they are built (:mod:`~vizad.engine.eager`), reverse and forward
mode by extending the graph with adjoint or tangent nodes (:mod:`~vizad.engine.reverse`,
:mod:`~vizad.engine.forward`), the Executor that evaluates a graph, Jacobians and
Hessian-vector products, and gradient checks by central differences
(:mod:`~vizad.engine.numerical`). The shared graph walks are in :mod:`~vizad.engine.graph`,
tuple values in :mod:`~vizad.engine.tree`, and the engine's text (names as LaTeX, numbers, the
round-off rule) in :mod:`~vizad.engine.text`.

It may import only numpy, the standard library and :mod:`vizad.errors`: nothing of the trace,
view, bridges or classroom wings (import-linter's contracts in pyproject.toml hold it).
"""
