"""A submission as the grader takes it: a ``.py`` file, a package directory (``micrograd/``,
``needle/``), a notebook (``.ipynb``: its code cells, magics and shell lines dropped), or a
student's folder holding one of those; copied into a fresh temporary directory (the submission
runs there, and only there may it write), with the module name it is imported under."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from vizad.errors import ArgumentError

__all__ = ["Submission", "find", "prepare", "notebook_cells"]

#: The most a student's folder may hold to be copied whole (else only the engine is copied).
MAX_FILES, MAX_BYTES = 500, 20 * 1024 * 1024
#: The largest notebook read, and the most code cells taken from it (checked before parsing).
MAX_NOTEBOOK_BYTES, MAX_CELLS = 20 * 1024 * 1024, 2000
_SKIPPED = shutil.ignore_patterns("__pycache__", ".git", ".ipynb_checkpoints", "*.pyc")


@dataclass
class Submission:
    """Where a submission is, and what kind it is ("file", "package", "notebook" or
    "cells": the source of a kernel's cells)."""

    path: Path | None
    kind: str
    #: The module's name in reports and in ``sys.modules`` of its process.
    name: str
    #: Only for "cells": the cells' sources.
    cells: list[str] = field(default_factory=list)


def find(path: str | os.PathLike, entries: tuple[str, ...] = ()) -> Submission:
    """The submission at ``path``: a ``.py`` file, a ``.ipynb`` notebook, a package
    directory, or a student's folder holding one of ``entries`` (the course's usual names),
    else its one notebook or its one ``.py`` file. A link is never followed: a student's
    ``autodiff.py`` that links to a classmate's (or to an installed package) is refused."""
    given = Path(os.fsdecode(path)).expanduser()
    if given.is_symlink():
        raise ArgumentError(
            f"grade: {given} is a link (to {os.readlink(given)}): a submission is graded "
            "from its own files, never through a link"
        )
    path = given.resolve()
    if path.is_file() and path.suffix == ".py":
        return Submission(path, "file", path.stem)
    if path.is_file() and path.suffix == ".ipynb":
        return Submission(path, "notebook", _identifier(path.stem))
    if path.is_dir() and (path / "__init__.py").is_file():
        return Submission(path, "package", path.name)
    if path.is_dir():
        for entry in entries:
            if (path / entry).exists() or (path / entry).is_symlink():
                return find(path / entry)
        for pattern in ("*.ipynb", "*.py"):
            found = sorted(path.glob(pattern))
            if len(found) == 1:
                return find(found[0])
        raise ArgumentError(
            f"grade: {path} holds no engine: expected {', '.join(entries) or 'a package'}, or "
            "one notebook or one .py file"
        )
    raise ArgumentError(
        f"grade: {path} is neither a .py file, a notebook, a package directory nor a folder"
    )


def _identifier(stem: str) -> str:
    name = "".join(c if c.isalnum() or c == "_" else "_" for c in stem) or "notebook"
    return name if not name[0].isdigit() else "_" + name


def notebook_cells(path: Path) -> list[str]:
    """The code cells of a notebook, with IPython's magics (``%time``, ``%%capture``) and
    shell lines (``!pip install``) dropped."""
    size = path.stat().st_size
    if size > MAX_NOTEBOOK_BYTES:
        raise ArgumentError(
            f"grade: {path} is not a notebook the grader reads ({size} bytes; at most "
            f"{MAX_NOTEBOOK_BYTES})"
        )
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if len(data["cells"]) > MAX_CELLS:
            raise ArgumentError(
                f"grade: {path} is not a notebook the grader reads ({len(data['cells'])} "
                f"cells; at most {MAX_CELLS})"
            )
        cells = [c for c in data["cells"] if c.get("cell_type") == "code"]
        sources = [c.get("source", "") for c in cells]
    except ArgumentError:
        raise
    except (OSError, ValueError, KeyError, TypeError, AttributeError, RecursionError) as exc:
        why = "nested too deep" if isinstance(exc, RecursionError) else exc
        raise ArgumentError(f"grade: {path} is not a notebook that can be read ({why})") from None
    for k, source in enumerate(sources, 1):
        lines = source if isinstance(source, list) else [source]
        if not all(isinstance(line, str) for line in lines):
            raise ArgumentError(
                f"grade: {path} is not a notebook that can be read (code cell {k}'s source is "
                "not text)"
            )
    return [code_of(source) for source in sources]


def code_of(source) -> str:
    """A cell's Python: magics and shell lines dropped (kept as blank lines, so line numbers
    stay the cell's); a cell magic (``%%bash``) drops the whole cell."""
    text = "".join(source) if isinstance(source, list) else str(source)
    if text.lstrip().startswith("%%"):
        return ""
    lines = text.splitlines()
    kept = [
        "" if ln.lstrip().startswith(("%", "!")) or "get_ipython()" in ln else ln for ln in lines
    ]
    return "\n".join(kept) + "\n"


def _small(folder: Path) -> bool:
    count = size = 0
    for _root, dirs, files in os.walk(folder):
        dirs[:] = [d for d in dirs if d not in ("__pycache__", ".git")]
        count += len(files)
        size += sum(
            os.path.getsize(os.path.join(_root, f))
            for f in files
            if not os.path.islink(os.path.join(_root, f))
        )
        if count > MAX_FILES or size > MAX_BYTES:
            return False
    return True


def _no_links(directory, names):
    return [n for n in names if os.path.islink(os.path.join(directory, n))] + list(
        _SKIPPED(directory, names)
    )


def prepare(submission: Submission) -> tuple[Path, Path, str]:
    """A fresh copy of ``submission``: (the temporary directory to delete afterwards, the
    working directory the submission runs in, what its process loads: the file, package
    directory or folder of cell files, relative to the working directory)."""
    temp = Path(tempfile.mkdtemp(prefix="vizad-grade-"))
    try:
        return temp, *_copied(submission, temp / "work")
    except BaseException:  # a submission that cannot be copied or read leaves nothing behind
        shutil.rmtree(temp, ignore_errors=True)
        raise


def _copied(submission: Submission, work: Path) -> tuple[Path, str]:
    """:func:`prepare`'s copy of ``submission`` into ``work``: (``work``, what its process
    loads)."""
    if submission.kind == "package":
        if not _small(submission.path):
            raise ArgumentError(f"grade: {submission.path} holds more than the grader copies")
        work.mkdir()
        shutil.copytree(submission.path, work / submission.name, ignore=_no_links)
        return work, submission.name
    if submission.kind == "cells":
        work.mkdir()
        cells = submission.cells
    else:
        folder = submission.path.parent
        if _small(folder):
            shutil.copytree(folder, work, ignore=_no_links)
        else:
            work.mkdir()
            shutil.copy2(submission.path, work / submission.path.name)
        if submission.kind == "file":
            return work, submission.path.name
        cells = notebook_cells(submission.path)
    holder = work / f".{submission.name}_cells"
    holder.mkdir()
    for k, cell in enumerate(cells, 1):
        (holder / f"cell_{k:03d}.py").write_text(cell, encoding="utf-8")
    return work, holder.name
