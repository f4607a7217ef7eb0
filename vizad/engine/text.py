"""The engine's text: names as LaTeX (the op's and the variables' own, in derivations and
errors), names made printable, numbers as the lecture writes them, and the round-off rule.

Numbers are formatted like the lecture (3 decimals, trailing zeros dropped: 5.5, 2, -0.284).
A difference within round-off (:data:`ROUNDOFF`) is said to be one, never shown as digits
that change with the BLAS kernel and the CPU. What every view adds (the one escaping
function, values and tensors written out, LaTeX to text) is :mod:`vizad.trace.text`.
"""

from __future__ import annotations

import math
import re
import unicodedata
from typing import Any

import numpy as np

from vizad.engine.tree import Unrecorded, leaves

__all__ = [
    "printable",
    "UNPRINTABLE_CHARS",
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


#: Characters that XML (so Graphviz's HTML labels and SVG) cannot carry: C0 controls other
#: than tab, newline and carriage return; U+FFFE and U+FFFF; lone surrogates (which cannot
#: even be encoded as UTF-8). And the bidirectional controls (U+061C, U+200E, U+200F,
#: U+202A-U+202E, U+2066-U+2069), which every view could carry but which would reorder what a
#: person reads: "x\u202egnp.exe" shows as "xexe.png". All are written as visible escapes.
UNPRINTABLE_CHARS = (
    "\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff"
    "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
)


_UNPRINTABLE = re.compile(f"[{UNPRINTABLE_CHARS}]")


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
