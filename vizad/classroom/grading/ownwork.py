"""Whether a submission's code is the student's own: how much of each file it shares with
vizad's reference engine for the course, an installed course package or another submission
of the batch, read through a fingerprint that renaming, reordering, new layout and comments
do not change.

A fingerprint is the set of hashed 8-token shingles of the code once docstrings, bare strings
and type hints are dropped and ``ast.unparse`` has printed it in one layout, each identifier
read as one token, each string as another, each number as a third. The similarity of two
files is their overlap coefficient: the shingles they share over those of the smaller (the
larger of the two containments), so a copy padded with code, or cut down, still shows.

The threshold, 0.7, comes from these figures. Honest: completions written without vizad (the
test engines student599, needlish, minigrad; seven CSE 599W and seven dlsys hw1 students' and
five micrograd lecture-followers' on GitHub). Disguised: the source with every name it
defines renamed, type hints and docstrings stripped, functions and methods reordered,
comments added and a line added to a third of its functions.

=========  ======================================  =========  ==========================
course     honest vs vizad's reference             disguised  batch: honest / disguised
=========  ======================================  =========  ==========================
599w       student599 .62, students .52–.58,       .87–.88    pairs ≤ .36 / copies ≥ .85
           the skeleton alone .65
needle     needlish .54, students .40–.51          .85–.96    pairs ≤ .61 / copies ≥ .76
micrograd  minigrad .22, students ≤ .15            .87        pairs ≤ .43 / copies ≥ .86
=========  ======================================  =========  ==========================

Given code. Completions of one handout share it: two honest 599W students are up to .84
similar, two needle students .95, as much as a classmate's disguised copy. So a batch leaves
out the shingles that more than half of its submissions (and at least four) hold (the
handout, the lines everyone writes alike) and those of ``given`` texts (a course's handout,
as MOSS's base file): the batch figures above are after that, and with the 599W skeleton
given two students alone are ≤ .51. A batch of fewer than four is compared only when given
its handout. vizad's 599W engine is the skeleton reworded (f-strings, one ``_FilledLikeOp``),
so honest work shares less of it than the skeleton does, and none of it is discounted.

micrograd. The lecture writes micrograd's engine on screen, so an honest student's ``Value``
is micrograd's: minigrad is .92 similar to the installed micrograd, the lecture-followers
.64–.89, a disguised copy .95, a margin a copy edited a little more would close. So an
installed micrograd is the course's lecture code (:func:`handout`), left out rather than
flagged (a re-export of it scores nothing: :mod:`vizad.classroom.gradekit.origin`), and
vizad's micrograd ``nn.py``, which is micrograd's own (.97), is no reference.
"""

from __future__ import annotations

import ast
import importlib.machinery
import io
import keyword
import re
import sys
import threading
import tokenize
import zlib
from collections import Counter
from collections.abc import Iterable, Set
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path

from vizad.classroom.grading.courses import course

__all__ = [
    "AD_LIBRARIES",
    "ad_libraries",
    "complex_numbers",
    "not_own_derivatives",
    "notes",
    "Match",
    "THRESHOLD",
    "fingerprint",
    "similarity",
    "references",
    "handout",
    "matches",
    "batch_matches",
]

#: The similarity from which a file matches a source (the module's figures).
THRESHOLD = 0.7
#: ast.parse in two threads at once (a batch grades several submissions in threads) can fail
#: in CPython 3.11 ("AST constructor recursion depth mismatch"): one at a time.
_AST = threading.Lock()
_K, _OWN, _BATCH = 8, 40, 4  # tokens a shingle, shingles a file needs, submissions a batch
_COURSES = Path(__file__).resolve().parents[1] / "courses"
_REFERENCES = {  # vizad's engine files of each course
    "599w": ("autodiff.py",),
    "needle": ("needle/autograd.py", "needle/ops.py"),
    "micrograd": ("micrograd/engine.py",),
}
_INSTALLED = {"599w": "autodiff", "needle": "needle"}  # installed packages a copy may come from
_LECTURE = {"micrograd": "micrograd"}  # installed packages that are a course's lecture code
_WORD = re.compile(r"\w+|[^\w\s]")
_SKIPPED = {tokenize.COMMENT, tokenize.NL, tokenize.INDENT, tokenize.DEDENT, tokenize.ENCODING}


@dataclass(frozen=True, order=True)
class Match:
    """A file of a submission and a source it shares most of its code with."""

    #: The submission's file, relative to the submission.
    file: str
    #: What it matches, for a TA: "vizad's reference engine for 599w
    #: (classroom/courses/autodiff.py)", "the submission bob/ (autodiff.py)" …
    source: str
    similarity: float


class _Bare(ast.NodeTransformer):
    """Docstrings, bare strings and type hints removed: what a copier adds or strips freely."""

    def generic_visit(self, node):
        super().generic_visit(node)
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if isinstance(block, list) and block:
                kept = [s for s in block if not _a_string(s)]
                setattr(node, field, kept or ([ast.Pass()] if field == "body" else []))
        if getattr(node, "returns", None) is not None:
            node.returns = None
        return node

    def visit_arg(self, node):
        node.annotation = None
        return node

    def visit_AnnAssign(self, node):
        if node.value is None:
            return None
        return ast.copy_location(ast.Assign([node.target], node.value, type_comment=None), node)


def _a_string(statement) -> bool:
    """A statement of a string alone: a docstring, or a string left as a comment."""
    return isinstance(statement, ast.Expr) and isinstance(getattr(statement.value, "value", 0), str)


def _tokens(text: str) -> list[str]:
    """The code's tokens: an identifier "N", a string "S", a number "0", a statement's end
    ";"; comments, blank lines, indentation and statements of strings alone dropped. Text that
    does not tokenize is read as words and signs."""
    words: list[str] = []
    line: list[str] = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type in (tokenize.NEWLINE, tokenize.ENDMARKER):
                words += [*line, ";"] if set(line) - {"S"} else []
                line = []
            elif tok.type not in _SKIPPED:
                line.append(_word(tok.string, tok.type))
    except (tokenize.TokenError, SyntaxError):
        return [_word(w) for w in _WORD.findall(text)]
    return words


def _word(text: str, kind: int = tokenize.OP) -> str:
    first = text[:1]
    if kind == tokenize.STRING:
        return "S"
    if kind == tokenize.NUMBER or first.isdigit():
        return "0"
    if (kind == tokenize.NAME or first == "_" or first.isalpha()) and not keyword.iskeyword(text):
        return "N"
    return text


def _parse(text: str) -> ast.Module:
    """``ast.parse``, one thread at a time."""
    with _AST:
        return ast.parse(text)


def fingerprint(text: str) -> frozenset[int]:
    """The hashed 8-token shingles of Python source (see the module's docstring): the same for
    a copy with names renamed, layout changed, comments, docstrings or type hints added or
    removed. Source that does not parse is read as it is; nothing raises."""
    try:
        tree = _parse(text)
        with _AST:
            text = ast.unparse(_Bare().visit(tree))
    except (SyntaxError, ValueError, RecursionError):
        pass  # read as it is: its tokens, or its words
    words = _tokens(text)
    count = len(words) - _K + 1 if len(words) >= _K else min(len(words), 1)
    return frozenset(zlib.crc32(" ".join(words[i : i + _K]).encode()) for i in range(count))


def similarity(a: str | Set[int], b: str | Set[int], common: Set[int] = frozenset()) -> float:
    """How much of two files' code is shared, 0 to 1: the overlap coefficient of their
    fingerprints (``a`` and ``b`` are texts or fingerprints) once the ``common`` shingles are
    left out; 0 when either keeps fewer than 40, too little code to judge."""
    a, b = ((fingerprint(x) if isinstance(x, str) else x) - common for x in (a, b))
    smaller = min(len(a), len(b))
    return len(a & b) / smaller if smaller >= _OWN else 0.0


def references(course_key: str) -> list[tuple[str, str]]:
    """(label, source text) of what a copy for the course may come from: vizad's reference
    engine files, and an installed package of the course (found in site-packages or
    dist-packages without importing it)."""
    key = course(course_key).key
    found = [
        (f"vizad's reference engine for {key} (classroom/courses/{name})", _read(_COURSES / name))
        for name in _REFERENCES.get(key, ())
    ]
    return found + (_installed(_INSTALLED[key]) if key in _INSTALLED else [])


def handout(course_key: str) -> list[str]:
    """The code every student of the course is given, as far as vizad finds it: an installed
    micrograd for the micrograd course (the lecture's code). vizad holds no course's handout:
    pass a course's own as ``given`` to :func:`matches` and :func:`batch_matches`."""
    key = course(course_key).key
    return [text for _, text in _installed(_LECTURE[key])] if key in _LECTURE else []


def _read(path: Path) -> str:
    return path.read_text(encoding="utf-8", errors="replace")


def _installed(name: str) -> list[tuple[str, str]]:
    """The .py files (at most 50, each under 1 MB) of the package or module ``name`` in
    site-packages or dist-packages, labelled with their path there."""
    sites = [p for p in sys.path if p.endswith(("site-packages", "dist-packages"))]
    spec = importlib.machinery.PathFinder.find_spec(name, sites)
    if spec is None or not spec.origin or not spec.origin.endswith(".py"):
        return []
    origin = Path(spec.origin)
    if spec.submodule_search_locations is None:  # a module: its one file
        root, files = origin.parent, [origin]
    else:
        root = origin.parent.parent
        files = sorted(p for p in origin.parent.rglob("*.py") if "__pycache__" not in p.parts)
    return [
        (f"the installed package {name} ({path.relative_to(root).as_posix()})", _read(path))
        for path in files[:50]
        if path.is_file() and path.stat().st_size < 1_000_000
    ]


def _shingles(texts: Iterable[str]) -> frozenset[int]:
    return frozenset().union(*map(fingerprint, texts))


def matches(
    files: dict[str, str],
    others: list[tuple[str, str]],
    threshold: float = THRESHOLD,
    given: Iterable[str] = (),
) -> list[Match]:
    """Each file of a submission (relative name -> text) and each of ``others`` ((label,
    text), as :func:`references` gives) it matches at ``threshold`` or more, the shingles of
    the ``given`` texts (the course's handout) left out; sorted."""
    common = _shingles(given)
    sources = [(label, fingerprint(text) - common) for label, text in others]
    found = []
    for name, text in files.items():
        mine = fingerprint(text) - common
        for label, theirs in sources:
            if (score := similarity(mine, theirs)) >= threshold:
                found.append(Match(name, label, round(score, 3)))
    return sorted(found)


#: Libraries that differentiate (or that a submission could differentiate with): gradients
#: through them are not the student's.
AD_LIBRARIES = frozenset({
    "torch", "jax", "jaxlib", "autograd", "tensorflow", "tinygrad", "mxnet", "theano",
    "chainer", "paddle", "mlx", "sympy", "casadi", "aesara", "pytensor", "funsor", "tangent",
})  # fmt: skip


def ad_libraries(files: dict[str, str]) -> list[str]:
    """The automatic differentiation libraries the submission's files import, sorted (read
    from their syntax: ``import torch``, ``from jax import grad``, ``__import__("torch")``,
    ``importlib.import_module("autograd")``)."""
    found = set()
    for text in files.values():
        try:
            tree = _parse(text)
        except (SyntaxError, ValueError, RecursionError):
            continue
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                names = [node.module]
            elif isinstance(node, ast.Call) and node.args:
                called = getattr(node.func, "id", getattr(node.func, "attr", ""))
                first = node.args[0]
                if called in ("__import__", "import_module") and isinstance(first, ast.Constant):
                    names = [str(first.value)]
            found |= {n.split(".")[0] for n in names} & AD_LIBRARIES
    return sorted(found)


def complex_numbers(files: dict[str, str]) -> str:
    """Where the submission's files compute with complex numbers (``file:line (what)``), or
    "": an imaginary literal (``1e-20j``), ``complex(…)``, ``.imag``, a complex dtype or
    ``cmath``. The courses' values are real: complex numbers in an engine are complex-step
    differentiation, whose derivatives are exact and no rule's."""
    for name, text in sorted(files.items()):
        try:
            tree = _parse(text)
        except (SyntaxError, ValueError, RecursionError):
            continue
        for node in ast.walk(tree):
            what = None
            if isinstance(node, ast.Constant) and isinstance(node.value, complex):
                what = f"the imaginary number {node.value!r}"
            elif isinstance(node, ast.Name) and node.id in ("complex", "cmath"):
                what = node.id
            elif isinstance(node, ast.Attribute) and (
                node.attr == "imag" or node.attr.startswith(("complex", "csingle", "cdouble"))
            ):
                what = f".{node.attr}"
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                modules = [a.name for a in node.names] if isinstance(node, ast.Import) else [
                    node.module or ""
                ]  # fmt: skip
                what = "cmath" if "cmath" in modules else None
            if what:
                return f"{name}:{getattr(node, 'lineno', '?')} ({what})"
    return ""


def not_own_derivatives(files: dict[str, str]) -> str:
    """Why the submission's derivatives are not its rules' (another library differentiates,
    or complex-step), or "" (what the grader says of each case it would have passed)."""
    libraries = ad_libraries(files)
    if libraries:
        return (
            f"the submission imports {', '.join(libraries)}, which differentiates: derivatives "
            "computed by another library are not the student's, and score nothing"
        )
    where = complex_numbers(files)
    if where:
        return (
            f"the submission computes with complex numbers at {where}: complex-step "
            "derivatives are not rules, and score nothing"
        )
    return ""


def notes(found: list[Match]) -> list[str]:
    """What a report says of ``found``: a line each."""
    return [
        f"not the student's own work? {m.file} is {m.similarity:.0%} like {m.source}" for m in found
    ]


def batch_matches(
    submissions: dict[str, dict[str, str]],
    threshold: float = THRESHOLD,
    given: Iterable[str] = (),
) -> dict[str, list[Match]]:
    """For each submission of a batch (name -> its files, relative name -> text), its files
    that match a file of another submission, each flagged with the other's name (a pair that
    matches is flagged on both sides), sorted. Left out: the shingles that more than half of
    the submissions (and at least four) hold and those of the ``given`` texts. A batch of
    fewer than four with nothing given is not compared (its handout cannot be told)."""
    found: dict[str, list[Match]] = {who: [] for who in sorted(submissions)}
    given = list(given)
    if len(submissions) < _BATCH and not given:
        return found
    prints = {
        who: {n: fingerprint(t) for n, t in files.items()} for who, files in submissions.items()
    }
    held = Counter(s for files in prints.values() for s in frozenset().union(*files.values()))
    common = _shingles(given) | {s for s, n in held.items() if n >= _BATCH and n > len(prints) / 2}
    own = {who: {n: f - common for n, f in files.items()} for who, files in prints.items()}
    for a, b in combinations(sorted(own), 2):
        for me, other in ((a, b), (b, a)):
            for name, mine in own[me].items():
                scores = [(similarity(mine, f), theirs) for theirs, f in own[other].items()]
                score, theirs = max(scores, default=(0.0, ""))
                if score >= threshold:
                    found[me].append(
                        Match(name, f"the submission {other}/ ({theirs})", round(score, 3))
                    )
    return {who: sorted(flagged) for who, flagged in found.items()}
