"""A walkthrough as a quiz: the questions each step asks, and how a typed answer is judged.

Each step asks, in order: for each consumer vⱼ, the local partial ∂vⱼ/∂vᵢ (when it is not a
constant) and the partial adjoint v̄ᵢ→ⱼ (when there is more than one to sum), then the step's
result v̄ᵢ (forward mode: ∂vᵢ/∂vₖ of each input, then v̇ᵢ). A tensor result is asked as its
shape and one entry. Every question carries a hint (the consumers to sum over, the rule to use)
shown after a wrong try.

An answer is a number or a simple expression (``2 - cos(5)``, ``1/2``, ``pi``, ``sqrt(2)``),
read by a small recursive-descent reader (never ``eval``) with limits on length and depth.
:data:`RULE` is how it is judged; the browser component (``static/stepper/quiz.js``) reads and
judges answers by the same reader and rule, and tests feed both the same cases.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from vizad.errors import ArgumentError
from vizad.trace.text import format_number, latex_to_text
from vizad.engine.tree import TupleShape

__all__ = [
    "Question",
    "Verdict",
    "questions",
    "judge",
    "by_digits",
    "read_answer",
    "RULE",
    "SIGNIFICANT",
]

#: Digits a number must have to be judged (fewer: "give more digits", not a wrong try).
SIGNIFICANT = 3
#: A wrong number this near the value (relatively) is told it is close (a rounding slip, not
#: a wrong method); it still costs a try.
CLOSE = 0.01
#: The rule, as the student reads it.
RULE = (
    "Type a number or an exact expression (2 - cos(5), 1/2, pi, sqrt(2); functions: "
    "sqrt exp log sin cos tan tanh). A number is judged to the digits you type: it is right "
    "when it is the value rounded to that many decimals (1.72 or 1.716 for 1.71634…), with "
    f"at least {SIGNIFICANT} significant digits unless the value is exact. An answer that "
    "cannot be read costs no try."
)
_FUNCTIONS = {
    "sqrt": math.sqrt,
    "exp": math.exp,
    "log": math.log,
    "ln": math.log,
    "sin": math.sin,
    "cos": math.cos,
    "tan": math.tan,
    "tanh": math.tanh,
}
_CONSTANTS = {"pi": math.pi, "π": math.pi, "e": math.e}
_NUMBER = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$", re.ASCII)


@dataclass(frozen=True)
class Question:
    """One question: ``key`` ("step.index", 0-based), what is asked (``prompt``: v̄₂,
    ∂v₄/∂v₂, "shape of v̄₃"), ``kind`` ("number" or "shape"), the answer and how it is shown
    once revealed, and a hint."""

    key: str
    step: int
    prompt: str
    kind: str
    answer: Any
    shown: str
    hint: str

    def data(self) -> dict:
        """The question for the browser component (the answer encoded by the caller)."""
        answer = list(self.answer) if self.kind == "shape" else float(self.answer)
        return {"key": self.key, "q": self.prompt, "kind": self.kind, "a": answer,
                "shown": self.shown, "hint": self.hint}  # fmt: skip


@dataclass(frozen=True)
class Verdict:
    """What an answer earned: "right", "wrong" (a try used) or "refused" (not read, or too
    few digits: no try used), and what to tell the student."""

    status: str
    message: str

    @property
    def right(self) -> bool:
        return self.status == "right"


def questions(trace) -> list[list[Question]]:
    """Per step of ``trace``, its questions in the order they are asked (none for a step
    whose result is not numbers)."""
    out = []
    for k, step in enumerate(trace.steps):
        asked: list[Question] = []

        def add(prompt, value, hint, kind="number", k=k, asked=asked):
            key = f"{k}.{len(asked)}"
            if kind == "shape":
                shown = "scalar ()" if value == () else "(" + ", ".join(map(str, value)) + ")"
            else:
                shown = _shown(value)
            asked.append(Question(key, k, prompt, kind, value, shown, hint))

        own = getattr(trace, "_questions", None)  # a walkthrough that asks its own (an element)
        if own is not None:
            own(step, add)
        elif trace.mode == "reverse":
            _reverse_questions(trace, step, add)
        else:
            _forward_questions(trace, step, add)
        out.append(asked)
    return out


def _scalar(value) -> float | None:
    array = np.asarray(value) if not isinstance(value, tuple) else None
    if array is None or array.dtype.kind not in "fiu" or array.size != 1:
        return None
    x = float(array.reshape(()))
    return x if math.isfinite(x) else None


def _constant(latex: str | None) -> bool:
    """Whether a local partial's formula is a number (∂(a + b)/∂a = 1 asks nothing)."""
    if not latex:
        return True
    try:
        float(latex_to_text(latex).replace("−", "-"))
    except ValueError:
        return False
    return True


def _reverse_questions(trace, step, add) -> None:
    names = trace.names
    node = step.node
    result = trace.result_name(node).text
    vi = names.label(node)
    many = len(step.contributions) > 1
    for c in step.contributions:
        local = names.local(c.consumer, node, c.index).text
        partial = names.partial(node, c.consumer, c.index).text
        definition = latex_to_text(trace.step_of(c.consumer).definition)
        if not _constant(c.local_latex) and _scalar(c.local) is not None:
            add(local, _scalar(c.local),
                f"{c.consumer_label} = {definition}: differentiate it with respect to {vi}, "
                f"with the other inputs held fixed")  # fmt: skip
        if many and _scalar(c.partial) is not None and not c.reduced:
            formula = latex_to_text(c.partial_latex) if c.partial_latex else ""
            add(partial, _scalar(c.partial),
                f"{partial} = v̄ⱼ · ∂vⱼ/∂vᵢ for consumer vⱼ = {c.consumer_label}"
                + (f": {partial} = {formula}" if formula else ""))  # fmt: skip
    if step.is_output:
        hint = f"{result} is the seed: the output's adjoint ∂y/∂y"
    else:
        consumers = ", ".join(c.consumer_label for c in step.contributions)
        parts = " + ".join(
            names.partial(node, c.consumer, c.index).text for c in step.contributions
        )
        hint = (
            f"{result} sums what its consumers ({consumers}) pass back: {result} = {parts}, "
            f"each v̄ⱼ · ∂vⱼ/∂{vi}"
        )
    _result_questions(add, result, trace.result(step), step.shape, hint, vi)


def _forward_questions(trace, step, add) -> None:
    names = trace.names
    node = step.node
    result = trace.result_name(node).text
    vi = names.label(node)
    for t in step.terms:  # a term whose input has no tangent (v̇ₖ = 0) adds nothing: not asked
        moving = _scalar(t.tangent) != 0.0
        if moving and not _constant(t.local_latex) and _scalar(t.local) is not None:
            vk = names.label(t.input)
            add(f"∂{vi}/∂{vk}", _scalar(t.local),
                f"{vi} = {latex_to_text(step.definition)}: differentiate it with respect to "
                f"{vk}, with the other inputs held fixed")  # fmt: skip
    if step.seeded:
        hint = f"{result} is a seed: the tangent given to the input"
    else:
        inputs = ", ".join(names.label(t.input) for t in step.terms)
        hint = f"{result} = Σ v̇ₖ ∂{vi}/∂vₖ over its inputs vₖ ({inputs})"
    _result_questions(add, result, trace.result(step), step.shape, hint, vi)


def _result_questions(add, result: str, value, shape, hint: str, vi: str) -> None:
    x = _scalar(value)
    if x is not None:
        add(result, x, hint)
        return
    array = np.asarray(value) if not isinstance(value, tuple) else None
    if array is None or isinstance(shape, TupleShape) or array.dtype.kind not in "fiu":
        return
    add(f"the shape of {result}", tuple(array.shape),
        f"{result} has the shape of {vi}: an adjoint (tangent) is shaped as its value",
        kind="shape")  # fmt: skip
    if array.size:
        where = tuple(int(i) for i in np.unravel_index(int(np.argmax(np.abs(array))), array.shape))
        entry = float(array[where])
        if math.isfinite(entry):
            add(f"{result}[{', '.join(map(str, where))}]", entry, hint)


def _shown(x: float) -> str:
    """A revealed answer: exact when it is short, else six significant digits."""
    text = format_number(x, 6)
    six = f"{x:.6g}"
    return text if len(text) <= len(six) else six


# -- reading and judging an answer ---------------------------------------------------------


#: The longest answer read (characters): longer is refused, "too long" (no try used).
MAX_ANSWER = 200
#: How deep parentheses and function calls may nest in an answer.
MAX_DEPTH = 20
#: What an answer may hold: printable ASCII, tabs and line ends, and π − × · (anything else
#: cannot be part of a number or an expression: refused, as quiz.js refuses it).
_READABLE = re.compile(r"[\t\n\r\x20-\x7eπ−×·]*")
_TOKEN = re.compile(
    r"\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?|\*\*|[A-Za-zπ_]\w*|\S", re.ASCII
)


def read_answer(text: str, kind: str = "number"):
    """A typed answer: for a number question (value, decimals typed or None for an exact
    expression, significant digits typed); for a shape question a tuple of ints. Raises an
    ArgumentError saying what could not be read, whatever the text (too long, too deep, too
    large: never another exception). The same reader as quiz.js's ``readAnswer``."""
    if not isinstance(text, str):
        text = str(text)
    if len(text) > MAX_ANSWER:
        raise ArgumentError(f"this answer is too long: type at most {MAX_ANSWER} characters")
    if not _READABLE.fullmatch(text):
        raise ArgumentError(
            "cannot read this answer: type a number or an expression of digits, + - * / **, "
            "pi, e, sqrt(…)"
        )
    text = text.strip(" \t\n\r").replace("−", "-").replace("×", "*").replace("·", "*")
    if not text:
        raise ArgumentError("type an answer")
    if kind == "shape":
        return _read_shape(text)
    if re.fullmatch(r"[+-]?\d+,\d+", text, re.ASCII):
        text = text.replace(",", ".")
    if "^" in text:
        raise ArgumentError("write powers with **, as in 2**3 (^ is not a power here)")
    if _NUMBER.match(text):
        mantissa, _, exponent = text.lower().lstrip("+-").partition("e")
        whole, _, fraction = mantissa.partition(".")
        digits = (whole + fraction).lstrip("0")
        significant = len(digits) if digits else 1
        decimals = len(fraction) - (int(exponent) if exponent else 0)
        return _finite(float(text)), decimals, significant
    value = _Reader(text).read()
    return value, None, None


def _finite(x: float) -> float:
    """``x``, or an ArgumentError when it is not a finite number (too large, or none)."""
    if not math.isfinite(x):
        raise ArgumentError("this number is too large (or has no finite value): type another")
    return x


def _power(a: float, b: float) -> float:
    """``a ** b`` as a float: inf or nan where Python raises or gives a complex (as in JS)."""
    try:
        x = a**b
    except ZeroDivisionError:
        return math.inf
    except OverflowError:
        return math.inf
    return x if isinstance(x, float) else math.nan


def _call(f, x: float) -> float:
    try:
        return f(x)
    except (ValueError, OverflowError):
        return math.nan


class _Reader:
    """Numbers, + - * / ** (right-associative, above unary minus as in Python), parentheses,
    pi, e and one-argument functions: recursive descent over tokens, step for step as
    quiz.js's ``ExpressionReader``; every value on the way must be finite."""

    def __init__(self, text: str):
        self.tokens = _TOKEN.findall(text)
        self.at = 0
        self.text = text
        self.depth = 0

    def peek(self) -> str | None:
        return self.tokens[self.at] if self.at < len(self.tokens) else None

    def take(self, token: str) -> bool:
        if self.peek() == token:
            self.at += 1
            return True
        return False

    def fail(self):
        raise ArgumentError(
            f"cannot read {json.dumps(self.text, ensure_ascii=False)}: type a number or an "
            "expression of numbers, + - * / **, pi, e, sqrt(…)"
        )

    def read(self) -> float:
        x = self.sum()
        if self.at != len(self.tokens):
            self.fail()
        return x

    def nested(self) -> float:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise ArgumentError(
                f"this answer nests too deep: at most {MAX_DEPTH} parentheses inside each other"
            )
        x = self.sum()
        self.depth -= 1
        return x

    def sum(self) -> float:
        x = self.product()
        while True:
            if self.take("+"):
                x = _finite(x + self.product())
            elif self.take("-"):
                x = _finite(x - self.product())
            else:
                return x

    def product(self) -> float:
        x = self.unary()
        while True:
            if self.take("*"):
                x = _finite(x * self.unary())
            elif self.take("/"):
                y = self.unary()
                x = _finite(x / y if y else math.copysign(math.inf, x) if x else math.nan)
            else:
                return x

    def unary(self) -> float:
        sign = 1.0
        while self.peek() in ("-", "+"):  # a run of signs (a loop: any length reads)
            if self.take("-"):
                sign = -sign
            else:
                self.at += 1
        return sign * self.power() if sign < 0 else self.power()

    def power(self) -> float:
        x = self.atom()
        return _finite(_power(x, self.unary())) if self.take("**") else x

    def atom(self) -> float:
        t = self.peek()
        if t is None:
            self.fail()
        self.at += 1
        if t == "(":
            x = self.nested()
            if not self.take(")"):
                self.fail()
            return x
        if t[0].isdigit() or t[0] == ".":  # "." alone reads as no number (NaN in quiz.js)
            return _finite(float(t) if t != "." else math.nan)
        if t in _CONSTANTS:
            return _CONSTANTS[t]
        if re.match(r"[A-Za-zπ_]", t):
            if t not in _FUNCTIONS:
                what = "function" if self.peek() == "(" else "name"
                known = ", ".join(_FUNCTIONS)
                raise ArgumentError(f"unknown {what} '{t}' (known: {known}, pi, e)")
            if not self.take("("):
                raise ArgumentError(f"{t} is a function: call it, as in {t}(2)")
            x = self.nested()
            if not self.take(")"):
                raise ArgumentError(f"{t} takes one argument")
            return _finite(_call(_FUNCTIONS[t], x))
        self.fail()


def _read_shape(text: str) -> tuple[int, ...]:
    if text.lower() in ("scalar", "()", "[]", "( )"):
        return ()
    inner = re.sub(r"^[(\[\s]+|[)\]\s]+$", "", text)
    parts = [p for p in re.split(r"[,x*\s]+", inner) if p]
    if not parts or not all(re.fullmatch(r"[0-9]+", p) for p in parts):
        raise ArgumentError("type a shape such as (2, 3), 2x3, or scalar")
    return tuple(int(p) for p in parts)


def judge(question: Question, text: str) -> Verdict:
    """How ``text`` answers ``question``, by :data:`RULE`."""
    try:
        typed = read_answer(text, question.kind)
    except ArgumentError as exc:
        return Verdict("refused", f"{exc} (no try used)")
    if question.kind == "shape":
        ok = tuple(typed) == tuple(question.answer)
        return Verdict("right" if ok else "wrong", "")
    x, decimals, significant = typed
    verdict = by_digits(x, float(question.answer), decimals, significant)
    if verdict == "too few":
        return Verdict(
            "refused",
            f"{text.strip()} has too few digits to judge: give at least {SIGNIFICANT} "
            "significant digits, or an exact expression (no try used)",
        )
    if verdict == "close":  # the method is likely right: say so
        return Verdict("wrong", "close, but not the value rounded to the digits typed")
    return Verdict(verdict, "")


def by_digits(x: float, value: float, decimals: int | None, significant: int) -> str:
    """:data:`RULE` on a number ``x`` typed with ``decimals`` digits after the point
    (``None``: an exact expression) and ``significant`` significant digits: ``"right"``,
    ``"too few"`` (the value rounded, to fewer than :data:`SIGNIFICANT` digits), ``"close"``
    (within :data:`CLOSE` of the value, not rounded from it) or ``"wrong"``. The one copy of
    the rule in Python: the notebooks' checks (``vizad.classroom.exercises``) use it too."""
    scale = max(1.0, abs(value))
    if abs(x - value) <= 1e-9 * scale:
        return "right"
    if decimals is None:
        return "wrong"
    try:  # half a unit of the last digit typed (any number of digits: inf when huge)
        half = 0.5 * 10.0 ** (-decimals)
    except OverflowError:
        half = math.inf
    if abs(x - value) <= half * (1 + 1e-9) + 1e-12 * scale:
        return "right" if significant >= SIGNIFICANT else "too few"
    return "close" if abs(x - value) <= CLOSE * abs(value) else "wrong"
