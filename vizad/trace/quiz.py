"""A walkthrough as a quiz: the questions each step asks, and how a typed answer is judged.

Each step asks, in order: for each consumer vⱼ, the local partial ∂vⱼ/∂vᵢ (when it is not a
constant) and the partial adjoint v̄ᵢ→ⱼ (when there is more than one to sum), then the step's
result v̄ᵢ (forward mode: ∂vᵢ/∂vₖ of each input, then v̇ᵢ). A tensor result is asked as its
shape and one entry. Every question carries a hint (the consumers to sum over, the rule to use)
shown after a wrong try.

An answer is a number or a simple expression (``2 - cos(5)``, ``1/2``, ``pi``, ``sqrt(2)``),
read by a whitelist over Python's ``ast``, never ``eval``. :data:`RULE` is how it is judged;
the browser component (``static/stepper/quiz.js``) reads and judges answers by the same rule,
and tests feed both the same cases.
"""

from __future__ import annotations

import ast
import math
import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import ArgumentError
from ..text import format_number, latex_to_text
from ..tree import TupleShape

__all__ = ["Question", "Verdict", "questions", "judge", "read_answer", "RULE", "SIGNIFICANT"]

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
_NUMBER = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")


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

        if trace.mode == "reverse":
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


def read_answer(text: str, kind: str = "number"):
    """A typed answer: for a number question (value, decimals typed or None for an exact
    expression, significant digits typed); for a shape question a tuple of ints. Raises an
    ArgumentError saying what could not be read."""
    if not isinstance(text, str):
        text = str(text)
    text = text.strip().replace("−", "-").replace("×", "*").replace("·", "*")
    if not text:
        raise ArgumentError("type an answer")
    if kind == "shape":
        return _read_shape(text)
    if re.fullmatch(r"[+-]?\d+,\d+", text):
        text = text.replace(",", ".")
    if "^" in text:
        raise ArgumentError("write powers with **, as in 2**3 (^ is not a power here)")
    if _NUMBER.match(text):
        mantissa, _, exponent = text.lower().lstrip("+-").partition("e")
        whole, _, fraction = mantissa.partition(".")
        digits = (whole + fraction).lstrip("0")
        significant = len(digits) if digits else 1
        decimals = len(fraction) - (int(exponent) if exponent else 0)
        return float(text), decimals, significant
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError:
        raise ArgumentError(f"cannot read {text!r}: type a number or an expression") from None
    value = _evaluate(tree.body)
    if not math.isfinite(value):
        raise ArgumentError(f"{text} is not a finite number")
    return value, None, None


def _evaluate(node: ast.AST) -> float:
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return float(node.value)
    if isinstance(node, ast.Name):
        if node.id in _CONSTANTS:
            return _CONSTANTS[node.id]
        raise ArgumentError(f"unknown name {node.id!r}: use numbers, pi, e and functions")
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        x = _evaluate(node.operand)
        return -x if isinstance(node.op, ast.USub) else x
    if isinstance(node, ast.BinOp):
        a, b = _evaluate(node.left), _evaluate(node.right)
        try:
            if isinstance(node.op, ast.Add):
                return a + b
            if isinstance(node.op, ast.Sub):
                return a - b
            if isinstance(node.op, ast.Mult):
                return a * b
            if isinstance(node.op, ast.Div):
                return a / b
            if isinstance(node.op, ast.Pow):
                return float(a**b)
        except (ZeroDivisionError, OverflowError, TypeError):
            raise ArgumentError("this expression has no finite value") from None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        if node.func.id not in _FUNCTIONS:
            raise ArgumentError(
                f"unknown function {node.func.id!r} (known: {', '.join(sorted(_FUNCTIONS))})"
            )
        if len(node.args) != 1 or node.keywords:
            raise ArgumentError(f"{node.func.id} takes one argument")
        try:
            return _FUNCTIONS[node.func.id](_evaluate(node.args[0]))
        except (ValueError, OverflowError):
            raise ArgumentError(f"{node.func.id} has no value there") from None
    raise ArgumentError("type a number or an expression of numbers, + - * / **, pi, e, sqrt(…)")


def _read_shape(text: str) -> tuple[int, ...]:
    if text.lower() in ("scalar", "()", "[]", "( )"):
        return ()
    inner = text.strip("()[] ")
    parts = [p for p in re.split(r"[,x*\s]+", inner) if p]
    if not parts or not all(p.isdigit() for p in parts):
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
    value = float(question.answer)
    scale = max(1.0, abs(value))
    if abs(x - value) <= 1e-9 * scale:
        return Verdict("right", "")
    if decimals is None:  # an expression is exact
        return Verdict("wrong", "")
    if abs(x - value) <= 0.5 * 10.0 ** (-decimals) * (1 + 1e-9) + 1e-12 * scale:
        if significant >= SIGNIFICANT:
            return Verdict("right", "")
        return Verdict(
            "refused",
            f"{text.strip()} has too few digits to judge: give at least {SIGNIFICANT} "
            "significant digits, or an exact expression (no try used)",
        )
    if abs(x - value) <= CLOSE * abs(value):  # the method is likely right: say so
        return Verdict("wrong", "close, but not the value rounded to the digits typed")
    return Verdict("wrong", "")
