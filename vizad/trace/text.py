"""Text shared by every view: the one escaping function, values and tensors written out,
their LaTeX, and LaTeX written as plain text.

Every piece of user text (names, values) goes through :func:`escape` before it meets DOT or
HTML. Small tensors are written out, larger ones shown by shape. The engine's own text (names
as LaTeX, numbers, the round-off rule) is :mod:`vizad.trace.text`, whose names are here too,
so that ``vz.text`` is one place to read them.
"""

from __future__ import annotations

import html
import re
from functools import lru_cache
from typing import Any

import numpy as np

from vizad.engine.text import (
    ROUNDOFF,
    UNPRINTABLE_CHARS,
    format_difference,
    format_number,
    is_roundoff,
    latex_name,
    latex_operator,
    latex_text,
    printable,
    roundoff_note,
    roundoff_tolerance,
)
from vizad.engine.tree import Unrecorded
from vizad.errors import ArgumentError, ArgumentTypeError

__all__ = [
    "escape",
    "check_decimals",
    "format_value",
    "latex_value",
    "latex_shape",
    "latex_to_text",
    "subscript",
    "superscript",
    "BAR",
    "DOT",
    "SMALL_TENSOR",
    # the engine's, read here too
    "printable",
    "format_number",
    "ROUNDOFF",
    "roundoff_tolerance",
    "is_roundoff",
    "format_difference",
    "roundoff_note",
    "latex_name",
    "latex_operator",
    "latex_text",
]


#: Tensors with at most this many elements are written out in full.
SMALL_TENSOR = 12


#: What :func:`escape` changes: the unprintable characters and ``& < > " ' \ { }`` and line ends.
_TO_ESCAPE = re.compile(f"[{UNPRINTABLE_CHARS}&<>\"'\\\\{{}}\n\r]")


def escape(text: Any) -> str:
    """``text`` made safe inside HTML and Graphviz HTML-like labels: ``& < > " '`` become
    entities, backslashes, braces and newlines are kept as literal characters, and characters
    XML cannot carry are written as visible escapes (:func:`printable`)."""
    text = str(text)
    if not _TO_ESCAPE.search(text):  # most labels: nothing to change
        return text
    out = html.escape(printable(text), quote=True)
    return (
        out.replace("\\", "&#92;")
        .replace("{", "&#123;")
        .replace("}", "&#125;")
        .replace("\n", "&#10;")
        .replace("\r", "&#13;")
    )


def check_decimals(decimals: Any, what: str) -> int:
    """``decimals`` if it is an int from 0 to 15, else an ArgumentError naming ``what``."""
    if isinstance(decimals, bool) or not isinstance(decimals, (int, np.integer)):
        raise ArgumentTypeError(
            f"{what}: decimals must be an int (digits after the point), got "
            f"{type(decimals).__name__} {decimals!r:.40}; give an int from 0 to 15"
        )
    if not 0 <= decimals <= 15:
        raise ArgumentError(f"{what}: decimals must be from 0 to 15, got {decimals}; give one")
    return int(decimals)


def format_value(value: Any, decimals: int = 3, small: int = SMALL_TENSOR) -> str:
    """A value as plain text: a scalar, a small tensor written out, a larger one by shape;
    a tuple value element by element."""
    if isinstance(value, tuple):
        return "(" + ", ".join(format_value(v, decimals, small) for v in value) + ")"
    if isinstance(value, Unrecorded):
        return value.reason
    array = np.asarray(value)
    if array.ndim == 0:
        return format_number(array, decimals)
    if array.size <= small:
        return _nested(array, lambda x: format_number(x, decimals))
    return f"array{array.shape}"


def _nested(array: np.ndarray, fmt) -> str:
    if array.ndim == 1:
        return "[" + ", ".join(fmt(x) for x in array) + "]"
    return "[" + ", ".join(_nested(a, fmt) for a in array) + "]"


def latex_value(value: Any, decimals: int = 3, small: int = SMALL_TENSOR) -> str:
    """A value as LaTeX: scalars as numbers, small vectors and matrices as bmatrix, others by
    shape."""
    if isinstance(value, tuple):
        return r"\left(" + ", ".join(latex_value(v, decimals, small) for v in value) + r"\right)"
    if isinstance(value, Unrecorded):
        return r"\text{" + value.reason + "}"
    array = np.asarray(value)
    if array.ndim == 0:
        return format_number(array, decimals)
    if array.size <= small and array.ndim <= 2:
        rows = array.reshape(1, -1) if array.ndim == 1 else array
        body = r" \\ ".join(" & ".join(format_number(x, decimals) for x in row) for row in rows)
        return r"\begin{bmatrix}" + body + r"\end{bmatrix}"
    return r"\text{array of shape }" + latex_shape(array.shape)


def latex_shape(shape: tuple) -> str:
    """``(3,)``, ``(2, 3)``: a shape as Python writes it."""
    return "(" + ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"


BAR, DOT = "\u0304", "\u0307"  # combining macron (adjoint v̄) and dot above (tangent v̇)


@lru_cache(maxsize=4096)
def subscript(text: str) -> str:
    """``12`` → ``₁₂``: digits (and + − = ( )) as Unicode subscripts."""
    return text.translate(_SUB)


def superscript(text: str) -> str:
    """``(2)`` → ``⁽²⁾``: digits (and + − = ( ) T n) as Unicode superscripts."""
    return text.translate(_SUP)


# -- LaTeX to plain text --------------------------------------------------------------------
_SUB = str.maketrans("0123456789+-=()", "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎")


#: Σₜ and v̄ᵢ→ₜ: the index t of a sum over time steps (only there: broadcast_to is no subscript)
_SUB_T = str.maketrans("t", "ₜ")


_SUP = str.maketrans("0123456789+-=()Tn", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ᵀⁿ")


_SYMBOLS = {
    "times": "×",
    "cdot": "·",
    "sigma": "σ",
    "sum": "Σ",
    "partial": "∂",
    "to": "→",
    "cos": "cos",
    "sin": "sin",
    "ln": "ln",
    "log": "log",
    "tanh": "tanh",
    "exp": "exp",
    "textstyle": "",
    "left": "",
    "right": "",
    ",": " ",
    ";": " ",
    "quad": "  ",
    "backslash": "\\",
    "infty": "∞",
    "Sigma": "Σ",
    "ldots": "…",
}


@lru_cache(maxsize=1 << 14)  # panels and tables convert the same pieces (v_{5}, \cos) often
def latex_to_text(latex: str) -> str:
    """The LaTeX that vizad writes, as readable plain text: ``\\bar{v}_{5} \\cos v_{2}`` →
    ``v̄₅ cos v₂``, ``\\frac{1}{v_{1}}`` → ``1/v₁``. For tables and text reprs."""
    text, _ = _convert(latex, 0, "")
    return re.sub(r"\s+", " ", text).replace("∂ ", "∂").replace("'", "′").strip()


def _unescape_text(body: str) -> str:
    """The inside of ``\text{…}`` as written by :func:`latex_name`, unescaped."""
    return re.sub(
        r"\\(backslash\{\}|[{}_#$%&]|\^\{\}|~\{\})",
        lambda m: "\\" if m.group(1).startswith("backslash") else m.group(1)[0],
        body,
    )


_COMMAND = re.compile(r"\\([A-Za-z]+|.)")  # \frac, \{, \,


_PLAIN = re.compile(r"[^\\_^{}]+")  # a run of characters that are themselves


def _group(s: str, i: int) -> tuple[str, int]:
    """The argument at ``s[i]``: a braced group's inside, a command, or one character."""
    n = len(s)
    while i < n and s[i] == " ":
        i += 1
    if i >= n:
        return "", i
    c = s[i]
    if c == "{":
        depth, j = 0, i
        while j < n:
            c = s[j]
            if c == "\\":
                j += 2
                continue
            if c == "{":
                depth += 1
            elif c == "}":
                depth -= 1
                if depth == 0:
                    return s[i + 1 : j], j + 1
            j += 1
        return s[i + 1 :], n
    if c == "\\":
        m = _COMMAND.match(s, i)
        return m.group(0), m.end()
    return c, i + 1


def _arg(s: str, i: int) -> tuple[str, int]:
    raw, i = _group(s, i)
    return latex_to_text(raw), i


def _wrap(text: str) -> str:
    """``text`` in parentheses unless it is one token (v̄₃, ∂y, 0.5, -2)."""
    return text if re.fullmatch(r"-?[^\s+\-×/·()]+", text) else f"({text})"


def _convert(s: str, i: int, out: str) -> tuple[str, int]:
    while i < len(s):
        c = s[i]
        if c == "\\":
            m = _COMMAND.match(s, i)
            name, i = m.group(1), m.end()
            if name == "frac":
                num, i = _arg(s, i)
                den, i = _arg(s, i)
                out += f"{_wrap(num)}/{_wrap(den)}"
            elif name in ("bar", "dot", "overline"):
                body, i = _arg(s, i)
                out += body[:1] + ("\u0307" if name == "dot" else "\u0304") + body[1:]
            elif name == "sqrt":
                body, i = _arg(s, i)
                out += "√" + _wrap(body)
            elif name in ("operatorname", "mathrm", "text", "mathbf", "mathit"):
                body, i = _group(s, i)
                out += _unescape_text(body) if name == "text" else latex_to_text(body)
            elif name == "begin":
                env, i = _group(s, i)
                end = s.find(r"\end{" + env + "}", i)
                body = s[i : end if end >= 0 else len(s)]
                i = end + len(env) + 6 if end >= 0 else len(s)
                rows = [
                    latex_to_text(r).replace(" & ", ", ").replace("&", ",")
                    for r in body.split(r"\\")
                ]
                out += "[" + "; ".join(rows) + "]"
            elif name in ("backslash", "sim", "hat"):
                # latex_name's symbols for \\ ~ ^: the space or {} after them is syntax
                out += {"backslash": "\\", "sim": "~", "hat": "^"}[name]
                if s.startswith("{}", i):
                    i += 2
                elif s.startswith(" ", i):
                    i += 1
            elif name in _SYMBOLS:
                out += _SYMBOLS[name]
            elif name in "{}_^#$%&~":
                out += name
            else:
                out += name
        elif c in "_^":
            body, i = _arg(s, i + 1)
            table = _SUB if c == "_" else _SUP
            converted = (
                body.replace(" ", "").translate(table) if "→" in body else body.translate(table)
            )
            if c == "_" and ("→" in body or out.endswith("Σ")):
                converted = converted.translate(_SUB_T)
            if all(ch in "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₜ⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ᵀⁿ→" for ch in converted) and converted:
                out += converted
            else:
                out += ("_" if c == "_" else "^") + _wrap(body)
        elif c in "{}":
            i += 1
        else:
            m = _PLAIN.match(s, i)
            out += m.group(0)
            i = m.end()
    return out, i
