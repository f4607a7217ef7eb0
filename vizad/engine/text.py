"""Text shared by every view: the one escaping function, number formatting, and LaTeX.

Every piece of user text (names, values) goes through :func:`escape` before it meets DOT or
HTML. Numbers are formatted like the lecture (3 decimals, trailing zeros dropped: 5.5, 2,
-0.284); small tensors are written out, larger ones shown by shape.
"""

from __future__ import annotations

from functools import lru_cache

import html
import json
import math
import re
import unicodedata
from typing import Any

import numpy as np

from vizad.errors import ArgumentError, ArgumentTypeError
from vizad.engine.tree import Unrecorded, leaves

__all__ = [
    "escape",
    "json_in_html",
    "latex_operator",
    "format_number",
    "format_value",
    "ROUNDOFF",
    "roundoff_tolerance",
    "is_roundoff",
    "format_difference",
    "roundoff_note",
    "latex_value",
    "latex_name",
    "latex_shape",
    "latex_to_text",
    "subscript",
    "superscript",
    "BAR",
    "DOT",
    "SMALL_TENSOR",
]

#: Tensors with at most this many elements are written out in full.
SMALL_TENSOR = 12


#: Characters that XML (so Graphviz's HTML labels and SVG) cannot carry: C0 controls other
#: than tab, newline and carriage return; U+FFFE and U+FFFF; lone surrogates (which cannot
#: even be encoded as UTF-8). And the bidirectional controls (U+061C, U+200E, U+200F,
#: U+202A-U+202E, U+2066-U+2069), which every view could carry but which would reorder what a
#: person reads: "x\u202egnp.exe" shows as "xexe.png". All are written as visible escapes.
_UNPRINTABLE_CHARS = (
    "\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff"
    "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
)
_UNPRINTABLE = re.compile(f"[{_UNPRINTABLE_CHARS}]")


def printable(text: str) -> str:
    """``text`` with the characters that XML, DOT and UTF-8 cannot carry, and the
    bidirectional controls, written as visible escapes (``a\\x00b`` for a NUL,
    ``x\\u202egnp.exe``), so that any name can be drawn and shown as it is."""
    if not _UNPRINTABLE.search(text):
        return text
    return _UNPRINTABLE.sub(
        lambda m: (
            f"\\x{ord(m.group()):02x}" if ord(m.group()) < 0x100 else f"\\u{ord(m.group()):04x}"
        ),
        text,
    )


#: What :func:`escape` changes: the unprintable characters and ``& < > " ' \ { }`` and line ends.
_TO_ESCAPE = re.compile(f"[{_UNPRINTABLE_CHARS}&<>\"'\\\\{{}}\n\r]")


_SURROGATE = re.compile("[\ud800-\udfff]")


def json_in_html(data: Any) -> str:
    """``data`` as JSON text to put inside an HTML ``<script>`` element: no "<" (so that no
    user text can close the element) and no lone surrogate (which a UTF-8 page cannot hold:
    JSON reads its escape back)."""
    text = json.dumps(data, ensure_ascii=False).replace("<", "\\u003c")
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


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


def format_number(x: Any, decimals: int = 3) -> str:
    """A scalar with ``decimals`` decimals, trailing zeros dropped: 5.5, 2, -0.284, 1e-07."""
    if isinstance(x, (bool, np.bool_)):
        return str(bool(x))
    if isinstance(x, (complex, np.complexfloating)):
        return f"{complex(x):.{decimals}g}"
    x = float(x)
    if not math.isfinite(x):  # math's, not numpy's: a Python float (much faster on one)
        return "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")
    if x != 0 and (abs(x) >= 1e6 or abs(x) < 10**-decimals):
        return f"{x:.{max(decimals - 1, 1)}e}".replace("e-0", "e-").replace("e+0", "e+")
    text = f"{x:.{decimals}f}".rstrip("0").rstrip(".") if decimals > 0 else f"{x:.0f}"
    return "0" if text in ("-0", "") else text


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


#: Round-off: the one rule for showing a difference between two computations of one value
#: (``vz.compare``'s table and summary, ``trace.check()``'s messages, ``vz.gradcheck``'s
#: report). Two computations agree to round-off when they differ by at most this fraction of
#: the values' size (their largest absolute entry), the fraction of the least precise float
#: type among them, keyed by its size in bytes: float64 rounds by about 1e-16 of a value per
#: operation, float32 by about 1e-7, float16 by about 1e-3, and a computation adds up many.
#: Such a difference is shown as "round-off", never as a number: its digits change with the
#: BLAS kernel, the CPU's vector instructions and the order of a sum. The numbers themselves
#: stay exact wherever they are returned as data.
ROUNDOFF = {8: 1e-12, 4: 1e-5, 2: 1e-2}


def roundoff_tolerance(*values: Any) -> float:
    """The relative size of round-off for ``values`` (:data:`ROUNDOFF`): that of the least
    precise float type among them (integers, booleans and Python floats count as float64;
    a complex type as the float type of its parts)."""
    tolerance = ROUNDOFF[8]
    for value in values:
        for leaf in leaves(value):
            if isinstance(leaf, Unrecorded):
                continue
            dtype = np.asarray(leaf).dtype
            if dtype.kind not in "fc":
                continue
            size = dtype.itemsize // 2 if dtype.kind == "c" else dtype.itemsize
            tolerance = max(tolerance, ROUNDOFF.get(min(size, 8), ROUNDOFF[2]))
    return tolerance


def _size(values: tuple) -> float:
    """The largest absolute finite entry of ``values`` (0 when there is none)."""
    size = 0.0
    for value in values:
        for leaf in leaves(value):
            if isinstance(leaf, Unrecorded):
                continue
            array = np.asarray(leaf)
            if array.dtype.kind not in "biufc":
                continue
            array = np.abs(array.astype(float) if array.dtype.kind == "b" else array)
            finite = array[np.isfinite(array)]
            if finite.size:
                size = max(size, float(finite.max()))
    return size


def is_roundoff(difference: float, *values: Any, tolerance: float | None = None) -> bool:
    """Whether ``difference`` between two computations of ``values`` is round-off: at most
    :func:`roundoff_tolerance` (or ``tolerance``) times the values' largest absolute entry.
    NaN and infinite differences never are."""
    difference = float(difference)
    if not math.isfinite(difference):
        return False
    rtol = roundoff_tolerance(*values) if tolerance is None else tolerance
    return difference <= rtol * _size(values)


def format_difference(difference: float, *values: Any, tolerance: float | None = None) -> str:
    """A difference between two computations of ``values`` as a person reads it: "round-off"
    when :func:`is_roundoff` says so, else the number to 3 significant digits (0.909, 3.1e-07,
    nan)."""
    if is_roundoff(difference, *values, tolerance=tolerance):
        return "round-off"
    return f"{float(difference):.3g}"


def roundoff_note(*values: Any, tolerance: float | None = None) -> str:
    """What round-off means for ``values`` (or at ``tolerance``), to follow "agree to
    round-off": "relative difference ≤ 1e-12" (1e-5 for float32)."""
    rtol = roundoff_tolerance(*values) if tolerance is None else tolerance
    return f"relative difference ≤ {rtol:.0e}".replace("e-0", "e-")


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


#: Capital Greek letters that TeX has commands for (the others look like Latin capitals).
_TEX_CAPITALS = {
    "Gamma",
    "Delta",
    "Theta",
    "Lambda",
    "Xi",
    "Pi",
    "Sigma",
    "Upsilon",
    "Phi",
    "Psi",
    "Omega",
}
_SIMPLE_NAME = re.compile(r"^([A-Za-z]+)(\d*)$")
_GREEK_NAME = re.compile(r"^([\u0391-\u03c9])([0-9]*)$")
#: Characters that mean something in TeX, as math-mode symbols (MathJax and LaTeX alike):
#: a name is never read as TeX, whatever it contains.
_LATEX_SPECIAL = {
    "\\": r"\backslash ",
    "{": r"\{",
    "}": r"\}",
    "_": r"\_",
    "^": r"\hat{}",
    "#": r"\#",
    "$": r"\$",
    "%": r"\%",
    "&": r"\&",
    "~": r"\sim ",
    " ": r"\ ",
}


_GREEK_NAMES = (
    "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho "
    "varsigma sigma tau upsilon phi chi psi omega"
).split()
#: Greek letters as TeX's math commands (pdflatex reads no Unicode in maths; MathJax reads
#: both), and Unicode sub- and superscript digits as TeX's.
_LATEX_UNICODE = {
    **{chr(0x3B1 + k): f"\\{n} " for k, n in enumerate(_GREEK_NAMES)},
    **{
        chr(0x391 + k): f"\\{n.capitalize()} " if n.capitalize() in _TEX_CAPITALS else latin
        for k, (n, latin) in enumerate(zip(_GREEK_NAMES, "ABGDEZHQIKLMNXOPRSSTYFXYW"))
        if k != 17  # U+03A2 is not a letter
    },
    "ο": "o",
    "ϵ": "\\epsilon ",
    "ϑ": "\\vartheta ",
    "ϕ": "\\phi ",
    "ϖ": "\\varpi ",
    "µ": "\\mu ",
    **{d: f"_{{{k}}}" for k, d in enumerate("₀₁₂₃₄₅₆₇₈₉")},
    **{d: f"^{{{k}}}" for k, d in enumerate("⁰¹²³⁴⁵⁶⁷⁸⁹")},
}
_COMBINING = {"\u0304": "bar", "\u0307": "dot", "\u0302": "hat", "\u0303": "tilde",
              "\u0301": "acute", "\u0300": "grave", "\u0308": "ddot", "\u20d7": "vec"}  # fmt: skip


def latex_name(name: str) -> str:
    """A user's name as LaTeX: ``x1`` → ``x_{1}``, ``W`` → ``W``, ``α`` → ``\\alpha``,
    anything else upright with every TeX character written as a symbol (``\\$``,
    ``\\backslash``), so that no name can inject a TeX command (MathJax runs none of them:
    no ``\\href``). Greek letters, sub- and superscript digits and accents become TeX's
    commands, and any other character that is not ASCII its code point, so that pdflatex
    reads every name (see :func:`latex_text`)."""
    match = _SIMPLE_NAME.match(name)
    if match:
        letters, digits = match.groups()
        letters = letters if len(letters) == 1 else rf"\mathrm{{{letters}}}"
        return f"{letters}_{{{digits}}}" if digits else letters
    greek = _GREEK_NAME.match(name)
    if greek and greek.group(1) in _LATEX_UNICODE:  # α, α1: a letter, italic, as x1 is
        letter, digits = _LATEX_UNICODE[greek.group(1)].strip(), greek.group(2)
        return f"{letter}_{{{digits}}}" if digits else letter
    return rf"\mathrm{{{latex_text(printable(name).replace(chr(10), ' '))}}}"


def latex_operator(name: str) -> str:
    """An op's name (vizad's, a framework's, a student's op class) as TeX's
    ``\\operatorname{…}``, every TeX character written as a symbol (:func:`latex_text`): no
    name can close the group or inject a command."""
    return rf"\operatorname{{{latex_text(printable(str(name)).replace(chr(10), ' '))}}}"


def latex_text(text: str) -> str:
    """``text`` for TeX's math mode in ASCII only: TeX's special characters as symbols,
    Greek letters as commands, subscript digits as ``_{2}``, accents as ``\\bar{}`` and the
    like, and anything else as its code point (``\\text{U+4E2D}``)."""
    out: list[str] = []
    for c in unicodedata.normalize("NFC", text):
        if c in _LATEX_SPECIAL:
            out.append(_LATEX_SPECIAL[c])
        elif c.isascii():
            out.append(c)
        elif c in _LATEX_UNICODE:
            out.append(_LATEX_UNICODE[c])
        else:
            base, *marks = unicodedata.normalize("NFD", c)
            if base.isascii() and marks and all(m in _COMBINING for m in marks):
                for m in marks:
                    base = f"\\{_COMBINING[m]}{{{base}}}"
                out.append(base)
            elif c in _COMBINING and out:  # a mark after a letter NFC cannot join
                out[-1] = f"\\{_COMBINING[c]}{{{out[-1]}}}"
            else:
                out.append(rf"\text{{U+{ord(c):04X}}}")
    return "".join(out)


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
