"""The ops the courses define, known by name, for :func:`vizad.diagnose`: what each computes,
and the wrong gradient rules students write, each with the hint it deserves.

An op is known by its *family* ("matmul", "summation", "tanh" …) and its parameters (a
constant, axes, a shape, matmul's transpose flags), which each engine style reads from its
own classes (``MulByConstOp`` and ``node.const_attr`` in CSE 599W, ``MulScalar`` and
``self.scalar`` in needle, ``'*'`` in micrograd). A report speaks the style's words
(:class:`Words`): ``output_grad`` or ``out_grad`` or ``out.grad``. A wrong rule is recognised
by trying the candidates a family has (matmul's eight products of the output gradient and the
other input, transposed or not; tanh from its input instead of its output; a sum's gradient
broadcast without the reshape …): the one the student's numbers match names the mistake.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from vizad.classroom.diagnosis.hints import close

__all__ = [
    "Words",
    "Known",
    "known_op",
    "reference",
    "formula",
    "candidate_hint",
    "raised_hint",
    "FAMILIES",
]


@dataclass(frozen=True)
class Words:
    """How a style's code names things, for reports in its words (CSE 599W's by default:
    needle and micrograd say what differs)."""

    #: The output gradient inside a rule.
    grad: str = "output_grad"
    #: The op's output inside a rule.
    output: str = "node"
    #: The inputs inside a rule (binary ops).
    inputs: tuple[str, str] = ("A", "B")
    #: Where the op's constant is read.
    const: str = "node.const_attr"
    #: The rule's name.
    rule: str = "gradient rule"
    #: Where the order of reverse mode is written, and the list of partial adjoints.
    walk: str = "gradients()"
    partials: str = "node_to_output_grads_list, summed by sum_node_list"


@dataclass(frozen=True)
class Known:
    """An op as diagnose knows it: its family and parameters, and the words of its style."""

    family: str
    params: dict
    words: Words


def _sum_to(value: np.ndarray, shape: tuple) -> np.ndarray:
    """``value`` summed over the axes broadcasting added or stretched, to ``shape``
    (ValueError when it does not broadcast to ``shape``)."""
    value = np.asarray(value)
    lead = value.ndim - len(shape)
    if lead < 0:
        raise ValueError("fewer axes than the shape")
    value = np.sum(value, axis=tuple(range(lead))) if lead else value
    stretched = tuple(k for k, d in enumerate(shape) if d == 1 and value.shape[k] != 1)
    value = np.sum(value, axis=stretched, keepdims=True) if stretched else value
    if value.shape != tuple(shape):
        raise ValueError(f"{value.shape} is not {shape}")
    return value


def _swap(axes, ndim: int) -> tuple[int, int]:
    """needle's Transpose: the two axes it swaps (the last two by default)."""
    return (ndim - 2, ndim - 1) if not axes else tuple(axes)


def _kept(shape: tuple, axes) -> tuple:
    """The input's shape with 1 at the summed axes (what a sum's gradient reshapes to)."""
    if axes is None:
        axes = range(len(shape))
    summed = {a % len(shape) for a in ([axes] if isinstance(axes, int) else axes)}
    return tuple(1 if k in summed else d for k, d in enumerate(shape))


def _matmul(a, b, params):
    if params.get("trans_A"):
        a = np.swapaxes(a, -1, -2)
    if params.get("trans_B"):
        b = np.swapaxes(b, -1, -2)
    return a @ b


#: Each family's compute, from the operands' values and the op's parameters.
_COMPUTE: dict[str, Callable[..., Any]] = {
    "add": lambda p, a, b: a + b,
    "add_const": lambda p, a: a + p["c"],
    "mul": lambda p, a, b: a * b,
    "mul_const": lambda p, a: a * p["c"],
    "div": lambda p, a, b: a / b,
    "div_const": lambda p, a: a / p["c"],
    "power": lambda p, a: a ** p["n"],
    "pow": lambda p, a, b: a**b,
    "negate": lambda p, a: -a,
    "matmul": lambda p, a, b: _matmul(a, b, p),
    "summation": lambda p, a: np.sum(a, axis=p.get("axes")),
    "broadcast_to": lambda p, a: np.broadcast_to(a, p["shape"]),
    "reshape": lambda p, a: np.reshape(a, p["shape"]),
    "transpose": lambda p, a: np.swapaxes(a, *_swap(p.get("axes"), np.ndim(a))),
    "log": lambda p, a: np.log(a),
    "exp": lambda p, a: np.exp(a),
    "tanh": lambda p, a: np.tanh(a),
    "sigmoid": lambda p, a: 1 / (1 + np.exp(-a)),
    "sin": lambda p, a: np.sin(a),
    "cos": lambda p, a: np.cos(a),
    "relu": lambda p, a: np.maximum(a, 0.0),
    "oneslike": lambda p, a: np.ones(np.shape(a)),
    "zeroslike": lambda p, a: np.zeros(np.shape(a)),
}

FAMILIES = frozenset(_COMPUTE)

#: The families whose ops take two inputs (every other takes one).
_BINARY = frozenset({"add", "mul", "div", "pow", "matmul"})

#: What each family computes, as a report writes it (``c`` is the op's constant).
_FORMULA = {
    "add": "a + b",
    "add_const": "x + c",
    "mul": "a·b",
    "mul_const": "x·c",
    "div": "a / b",
    "div_const": "x / c",
    "power": "x^n",
    "pow": "a^b",
    "negate": "−x",
    "matmul": "the matrix product",
    "summation": "the sum over the axes",
    "broadcast_to": "x broadcast to the shape",
    "reshape": "x reshaped",
    "transpose": "x with two axes swapped",
    "oneslike": "ones of x's shape",
    "zeroslike": "zeros of x's shape",
}


#: The rule each family's gradient follows, for input 0 and (binary ops) input 1, as a report
#: names it when a student's rule gives other values.
_RULES = {
    "div": ("∂(a/b)/∂a = 1/b", "∂(a/b)/∂b = −a/b²"),
    "div_const": ("d/dx (x/c) = 1/c",),
    "log": ("d/dx log x = 1/x",),
    "exp": ("d/dx eˣ = eˣ (the output)",),
    "power": ("d/dx xⁿ = n·xⁿ⁻¹",),
    "pow": ("∂(aᵇ)/∂a = b·aᵇ⁻¹", "∂(aᵇ)/∂b = aᵇ·log a"),
    "relu": ("d/dx relu x = 1 where x > 0, else 0",),
    "tanh": ("d/dx tanh x = 1 − tanh²x (1 − t², t the output)",),
    "sigmoid": ("d/dx σ(x) = σ(x)(1 − σ(x)) (s(1 − s), s the output)",),
    "sin": ("d/dx sin x = cos x",),
    "cos": ("d/dx cos x = −sin x",),
    "mul": ("∂(a·b)/∂a = b", "∂(a·b)/∂b = a"),
    "mul_const": ("d/dx (c·x) = c",),
}


def rule_text(known: Known, i: int) -> str | None:
    """The rule input ``i``'s gradient of this family follows ("d/dx log x = 1/x"), or
    None when diagnose has none to say."""
    rules = _RULES.get(known.family, ())
    return rules[min(i, len(rules) - 1)] if rules else None


def known_op(family: str | None, params: dict, words: Words, arity: int) -> Known | None:
    """The op as diagnose knows it, or None when the family is unknown or does not take
    ``arity`` inputs."""
    if family not in FAMILIES or arity != (2 if family in _BINARY else 1):
        return None
    return Known(family, params, words)


def formula(known: Known) -> str:
    """What an op of this family computes, in words (``log x``, ``x·c`` …)."""
    return _FORMULA.get(known.family, f"{known.family} x")


def reference(known: Known, values: list) -> Any:
    """What an op of this family computes on ``values`` (numpy arrays)."""
    return _COMPUTE[known.family](known.params, *values)


def _close(a, b) -> bool:
    """Whether ``a`` agrees with ``b`` as a report compares gradients (on ``b``'s scale)."""
    return close(a, b, max(1.0, float(np.max(np.abs(np.asarray(b, dtype=float)), initial=0.0))))


def _number(c) -> str:
    return np.format_float_positional(float(c), trim="-") if np.ndim(c) == 0 else "…"


def candidate_hint(known: Known, xs: list, out, w, i: int, got, expected) -> str | None:
    """The hint of the first wrong rule of the op's family that ``got`` (the student's
    gradient of input ``i``) matches, or None. ``xs`` are the operands, ``out`` the output,
    ``w`` the output gradient, ``expected`` the right gradient."""
    with np.errstate(all="ignore"):
        for make, why in _candidates(known, xs, out, w, i, expected):
            try:
                value = make()
            except (ValueError, TypeError, ZeroDivisionError, IndexError):
                continue
            if not _close(value, expected) and _close(got, value):
                return why
    return None


def _candidates(known: Known, xs, out, w, i, expected):
    """(a wrong gradient, its hint) pairs for input ``i`` of an op of this family."""
    p, words, family = known.params, known.words, known.family
    g, c = words.grad, p.get("c")
    x = xs[i] if i < len(xs) else None
    if family == "mul_const":
        yield (lambda: w), f"ignores the constant: multiply {g} by {words.const} ({_number(c)})"
        yield (lambda: w * c * c), f"multiplies by {words.const} twice"
        yield (lambda: w / c), f"divides by {words.const}: multiply by it"
    elif family == "div_const":
        yield (lambda: w), f"ignores the constant: divide {g} by {words.const} ({_number(c)})"
        yield (lambda: w * c), f"multiplies by {words.const}: divide by it"
    elif family == "add_const":
        why = f"scales by the constant: d(x + c)/dx = 1, so pass {g} through unchanged"
        yield (lambda: w * c), why
        yield (lambda: w + c), f"adds the constant: d(x + c)/dx = 1, so pass {g} through"
    elif family == "power":
        n = p["n"]
        yield (lambda: w * x ** (n - 1)), f"misses the factor n = {_number(n)}: n·x^(n−1)"
        yield (lambda: w * n * x**n), "keeps the power n: the derivative is n·x^(n−1)"
        yield (lambda: w * x**n), f"is x^n·{g}: the derivative of x^n is n·x^(n−1)"
        yield (lambda: w * (n - 1) * x ** (n - 1)), "d/dx xⁿ = n·xⁿ⁻¹: yours has n − 1 for n"
        yield (lambda: w * n * x ** (n - 2)), "d/dx xⁿ = n·xⁿ⁻¹: yours lowers the power twice"
        yield (lambda: n * x ** (n - 1)), f"d/dx xⁿ = n·xⁿ⁻¹: yours forgets to multiply by {g}"
    elif family == "tanh":
        yield (lambda: w * (1 - out) ** 2), "d/dx tanh x = 1 − t²: yours squares (1 − t)"
        yield (
            (lambda: w * (1 - np.tanh(out) ** 2)),
            ("d/dx tanh x = 1 − t²: yours takes tanh of the output again"),
        )
        why = (
            f"uses the input x: tanh's derivative is 1 − t² where t = tanh(x) is the output "
            f"({words.output})"
        )
        yield (lambda: w * (1 - x**2)), why
        yield (lambda: w * (1 - out)), "is 1 − t: tanh's derivative is 1 − t² (t squared)"
        yield (lambda: w * out), "is t: tanh's derivative is 1 − t²"
    elif family == "exp":
        why = f"uses the input: exp's derivative is exp(x), its output ({words.output})"
        yield (lambda: w * x), why
        yield (lambda: w), f"misses the factor exp(x) (its output, {words.output})"
        yield (lambda: w * np.exp(out)), "d/dx eˣ = eˣ: yours takes exp of the output again"
        yield (lambda: w / out), "d/dx eˣ = eˣ: yours divides by the output"
    elif family == "log":
        why = f"multiplies by x: log's derivative is 1/x, so divide {g} by the input"
        yield (lambda: w * x), why
        yield (lambda: w / out), "d/dx log x = 1/x: yours divides by the output (log x)"
        yield (lambda: w * np.log(x)), f"uses log x: log's derivative is 1/x (divide {g} by x)"
        yield (lambda: w), f"misses the factor 1/x: divide {g} by the input"
        yield (lambda: -w / x**2), "is −1/x² (the derivative of 1/x): log's derivative is 1/x"
        yield (lambda: 1 / x), f"d/dx log x = 1/x: yours forgets to multiply by {g}"
    elif family == "relu":
        yield (lambda: w * (x <= 0)), "passes the gradient where x < 0: ReLU's is 1 where x > 0"
        yield (lambda: w), "passes every entry: ReLU's derivative is 0 where x < 0"
        yield (
            (lambda: w * out),
            (
                "d/dx relu x = 1 where x > 0, else 0: yours multiplies by the output relu(x), "
                "not by the mask (x > 0)"
            ),
        )
        yield (lambda: w * x), "d/dx relu x = 1 where x > 0, else 0: yours multiplies by x"
        yield (lambda: (x > 0) * 1.0), f"d/dx relu x = 1 where x > 0: yours forgets {g}"
    elif family == "sigmoid":
        yield (lambda: w * out), "is σ: the derivative of σ is σ(1 − σ)"
        yield (lambda: w * (1 - out)), "is 1 − σ: the derivative of σ is σ(1 − σ)"
        yield (
            (lambda: w * x * (1 - x)),
            ("d/dx σ(x) = σ(x)(1 − σ(x)): yours uses the input x instead of the output σ(x)"),
        )
        yield (lambda: w * out * (1 + out)), "d/dx σ(x) = σ(x)(1 − σ(x)): yours adds σ"
    elif family == "div" and len(xs) == 2:
        a, b = xs
        if i == 0:
            yield (lambda: w * b), "∂(a/b)/∂a = 1/b: yours multiplies by b"
            yield (lambda: w / b**2), "∂(a/b)/∂a = 1/b: yours divides by b²"
            yield (lambda: w), "∂(a/b)/∂a = 1/b: yours misses the division by b"
        else:
            yield (lambda: w * a / b**2), "∂(a/b)/∂b = −a/b²: yours misses the minus sign"
            yield (lambda: -w / b**2), "∂(a/b)/∂b = −a/b²: yours misses the factor a"
            yield (lambda: -w * a / b), "∂(a/b)/∂b = −a/b²: yours divides by b once, not b²"
            yield (lambda: w / b), "∂(a/b)/∂b = −a/b²: yours gives 1/b, a's rule"
            yield (lambda: -w / b), "∂(a/b)/∂b = −a/b²: yours gives −1/b"
    elif family == "matmul":
        yield from _matmul_candidates(known, xs, w, i, expected)
    elif family == "summation":
        shape, axes = np.shape(x), p.get("axes")
        kept = _kept(shape, axes)
        why = (
            f"broadcasts {g} {np.shape(w)} straight to the input's shape {shape}: reshape it "
            f"to {kept} first (1 at the summed axes), then broadcast_to {shape}"
        )
        yield (lambda: np.broadcast_to(w, shape)), why
    elif family == "broadcast_to":
        shape = np.shape(x)
        why = (
            f"is {g} not summed back: sum it over the axes broadcasting added or stretched, "
            f"then reshape to the input's shape {shape}"
        )
        yield (lambda: w), why
        yield (lambda: np.sum(w, axis=0)), why
    elif family == "reshape":
        why = f"keeps the output's shape: reshape {g} back to the input's shape {np.shape(x)}"
        yield (lambda: w), why
    elif family == "transpose":
        pair = _swap(p.get("axes"), np.ndim(x))
        last = _swap(None, np.ndim(x))
        if pair != last:
            why = (
                f"swaps the last two axes; this op swaps axes {pair}: transpose {g} with the "
                "same axes"
            )
            yield (lambda: np.swapaxes(w, *last)), why
    elif family == "mul" and len(xs) == 2:
        yield (lambda: w), f"misses the factor {words.inputs[1 - i]} (the other input)"


def _matmul_forms(known: Known, xs, w, i) -> dict[str, np.ndarray]:
    """The eight products of the output gradient with the other input, either transposed,
    in either order (summed over broadcast batch axes), by the name the style writes them
    with; those whose shapes do not fit are left out."""
    words = known.words
    theirs, other, shape = words.inputs[1 - i], xs[1 - i], np.shape(xs[i])
    g = words.grad

    def t(m):
        return np.swapaxes(m, -1, -2)

    forms = {
        f"{g}·{theirs}": lambda: w @ other,
        f"{g}·{theirs}ᵀ": lambda: w @ t(other),
        f"{theirs}·{g}": lambda: other @ w,
        f"{theirs}ᵀ·{g}": lambda: t(other) @ w,
        f"{g}ᵀ·{theirs}": lambda: t(w) @ other,
        f"{g}ᵀ·{theirs}ᵀ": lambda: t(w) @ t(other),
        f"{theirs}·{g}ᵀ": lambda: other @ t(w),
        f"{theirs}ᵀ·{g}ᵀ": lambda: t(other) @ t(w),
    }
    values = {}
    for name, make in forms.items():
        try:
            value = make()
        except ValueError:  # the shapes do not fit
            continue
        try:
            values[name] = _sum_to(value, shape)
        except ValueError:  # a product of another shape than the input's: kept, to be named
            values[name] = value
    return values


def _right_form(forms: dict, expected) -> str | None:
    return next((n for n, v in forms.items() if _close(v, expected)), None)


def _flags(params: dict) -> str:
    """matmul's transpose flags as a CSE 599W node has them ("" for other styles)."""
    if "trans_A" not in params:
        return ""
    return f"matmul_attr_trans_A={params['trans_A']}, matmul_attr_trans_B={params['trans_B']}"


def _matmul_candidates(known: Known, xs, w, i, expected):
    forms = _matmul_forms(known, xs, w, i)
    right = _right_form(forms, expected) or "another product"
    flags = _flags(known.params)
    more = f" (this node has {flags}: check how the rule uses them)" if flags else ""
    for name, value in forms.items():
        if name != right:
            why = f"gives {name} where the gradient of {known.words.inputs[i]} is {right}"
            yield (lambda value=value: value), why + more


def raised_hint(known: Known, xs: list, w, expected: list | None) -> str:
    """What to say when the rule of an op of this family raised (or built nodes whose shapes
    do not fit): the rule as it should be, when the family has a formula worth stating."""
    words, p = known.words, known.params
    if known.family == "matmul" and expected is not None:
        rights = [_right_form(_matmul_forms(known, xs, w, i), expected[i]) for i in (0, 1)]
        if None not in rights:
            flags = _flags(p)
            return (
                f"the shapes of its products do not fit{' with ' + flags if flags else ''}: "
                f"the gradient of {words.inputs[0]} is {rights[0]}, of {words.inputs[1]} "
                f"{rights[1]}"
            )
    if known.family == "summation":
        shape = np.shape(xs[0])
        return (
            f"reshape {words.grad} to {_kept(shape, p.get('axes'))} (1 at the summed axes) "
            f"before broadcast_to {shape}"
        )
    return ""
