"""Where a submission's names come from: a function, class or op object whose code is not the
student's (vizad's reference engines, an installed course package such as micrograd in
site-packages) counts as not implemented, so that ``from vizad.classroom.courses.autodiff import *``
or ``from micrograd.engine import Value`` scores nothing."""

from __future__ import annotations

import os
import sys
import sysconfig
import types

__all__ = ["foreign_file"]

_STDLIB = os.path.realpath(sysconfig.get_paths()["stdlib"])
#: The vizad package (in the grading process; in a jail this module stands alone, and every
#: name is checked against the submission's copy instead).
_VIZAD = os.path.realpath(os.path.join(os.path.dirname(__file__), *[os.pardir] * 3))


def _files(value, given: tuple = ()) -> list[str]:
    """The source files of ``value``: a function's code, every class of a class's (or an
    object's class's) method resolution order and the functions each defines (but the
    handout's classes ``given``, which a student's class may extend)."""
    found = []
    value = getattr(value, "__func__", value)  # a bound method
    code = getattr(value, "__code__", None)
    if isinstance(value, types.FunctionType) and code is not None:
        return [code.co_filename]
    if isinstance(value, types.ModuleType):
        return []  # a submodule: its names are checked when looked up
    classes = value.__mro__ if isinstance(value, type) else type(value).__mro__
    for cls in classes:
        if cls.__module__ == "builtins" or any(cls is g for g in given):
            continue
        functions = [getattr(m, "__func__", m) for m in vars(cls).values()]
        files = [f.__code__.co_filename for f in functions if isinstance(f, types.FunctionType)]
        # a class's methods say where it was written (its module may be a notebook's
        # __main__); a class without any, its module's file
        found += files or [getattr(sys.modules.get(cls.__module__), "__file__", None) or "?"]
    return found


def _ours(path: str, root: str | None) -> bool:
    if path.startswith("<"):  # code made by exec in a notebook or a test: the student's
        return root is None
    full = os.path.realpath(path)
    if root is not None:
        return full.startswith(os.path.realpath(root) + os.sep)
    return not (full.startswith(_VIZAD + os.sep) or "-packages" + os.sep in full)


def foreign_file(value, root: str | None, given: tuple = ()) -> str | None:
    """The first file of ``value`` that is not the submission's (outside ``root``, the
    submission's copy; with no root, inside vizad or an installed package), or None. Classes
    of the standard library (abc, enum) are anyone's, and so are the handout's classes
    ``given`` (the base class an exercise's ops extend)."""
    for path in _files(value, given):
        full = os.path.realpath(path) if not path.startswith("<") else path
        if full.startswith(_STDLIB + os.sep) and "-packages" + os.sep not in full:
            continue
        if not _ours(path, root):
            return path
    return None
