"""JAX's random keys as constants of the trace.

A key (``jax.random.PRNGKey``'s uint32 pair or a typed ``jax.random.key``) is not a number
that vizad can hold or differentiate: ``random_wrap``, ``random_bits`` and the other key
primitives give values of a key type that neither numpy nor a compiled program's argument
list takes. A function using one (dropout's ``jax.random.bernoulli`` mask, noise) is traced
a second time with its keys held fixed (a key argument closed over like a static one) under
``jax.ensure_compile_time_eval``: JAX itself computes what the keys give (the mask) while
tracing, and the jaxpr holds it as a constant; the rest (``where(mask, h / p, 0)``) is
stepped as usual, and gradients are jax.grad's at that key. A key used inside a lax loop or
a nested ``jit`` (traced abstractly, so not computed while tracing) is traced a third time
under ``jax.disable_jit`` too: the loop runs in Python, the jit is inlined.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from vizad.bridges.optional import require

if TYPE_CHECKING:  # pragma: no cover
    from jax.extend.core import ClosedJaxpr, Jaxpr, JaxprEqn

jax = require("jax", "jax")
jax_core = require("jax.extend.core", "jax")

__all__ = ["is_key", "key_equation", "key_inputs"]


def is_key(value: Any) -> bool:
    """Whether ``value`` (an array or an aval) is of a typed key's dtype."""
    dtype = getattr(value, "dtype", None)
    return dtype is not None and jax.dtypes.issubdtype(dtype, jax.dtypes.prng_key)


def key_equation(closed: ClosedJaxpr | Jaxpr) -> JaxprEqn | None:
    """The first equation (nested ones included) that reads or makes a key, or None."""
    jaxpr = getattr(closed, "jaxpr", closed)
    for eqn in jaxpr.eqns:
        if any(is_key(v.aval) for v in (*eqn.invars, *eqn.outvars)):
            return eqn
        for sub in _inner(eqn):
            found = key_equation(sub)
            if found is not None:
                return found
    return None


def key_inputs(closed: ClosedJaxpr) -> list[int]:
    """The positions of ``closed``'s integer arguments that keys are made from (a PRNGKey's
    uint32 pair that ``random_wrap`` reads, a seed): held fixed with the keys. (A floating
    one stays an input: a key made from it is refused.)"""
    jaxpr = closed.jaxpr
    sources = _sources(jaxpr)
    return [
        k
        for k, v in enumerate(jaxpr.invars)
        if v in sources and not jax.numpy.issubdtype(v.aval.dtype, jax.numpy.inexact)
    ]


def _sources(jaxpr: Jaxpr) -> set:
    """The variables of ``jaxpr`` that a key is made from, or that are keys."""
    found: set = set()
    for eqn in reversed(jaxpr.eqns):
        names = [v for v in eqn.invars if isinstance(v, jax_core.Var)]
        found.update(v for v in names if is_key(v.aval))
        subs = list(_inner(eqn))
        if subs:
            for sub in subs:
                inner = _sources(sub)
                offset = len(eqn.invars) - len(sub.invars)  # (a cond's branches skip its index)
                for k, v in enumerate(sub.invars):
                    if v in inner and 0 <= k + offset < len(eqn.invars):
                        found.add(eqn.invars[k + offset])
        elif any(is_key(v.aval) or v in found for v in eqn.outvars):
            found.update(names)
    return {v for v in found if isinstance(v, jax_core.Var)}


def _inner(eqn: JaxprEqn) -> Iterator[Jaxpr]:
    """The jaxprs of a nested call, a loop's body, a cond's branches."""
    for value in eqn.params.values():
        for item in value if isinstance(value, (tuple, list)) else (value,):
            if isinstance(item, jax_core.ClosedJaxpr):
                yield item.jaxpr
            elif isinstance(item, jax_core.Jaxpr):
                yield item
