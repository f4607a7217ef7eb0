"""Loading a student's module from a path for :func:`vizad.grade` and the command line: a
``.py`` file (its directory on ``sys.path`` while it runs, for helpers beside it), or a
package directory (``needle/`` with its ``__init__.py``), imported under its own name so that
its relative imports work; a module of that name already loaded is put back afterwards."""

from __future__ import annotations

import importlib.util
import os
import sys
import types
from pathlib import Path

from ..diagnosis.hints import exc_text, student_frame
from ..errors import ArgumentError

__all__ = ["load_module"]


def load_module(path: str | os.PathLike) -> types.ModuleType:
    """The module at ``path`` (a ``.py`` file or a package directory), run now."""
    path = Path(os.fsdecode(path)).expanduser().resolve()
    if path.is_dir():
        init = path / "__init__.py"
        if not init.is_file():
            raise ArgumentError(
                f"grade: {path} is a directory without __init__.py; give a package directory "
                "(such as needle/) or a .py file"
            )
        spec = importlib.util.spec_from_file_location(
            path.name, init, submodule_search_locations=[str(path)]
        )
    elif path.suffix == ".py" and path.is_file():
        spec = importlib.util.spec_from_file_location(path.stem, path)
    else:
        raise ArgumentError(f"grade: {path} is neither a .py file nor a package directory")
    module = importlib.util.module_from_spec(spec)
    name = spec.name
    before = {k: v for k, v in sys.modules.items() if k == name or k.startswith(name + ".")}
    sys.modules[name] = module  # relative imports of a package find it there
    sys.path.insert(0, str(path.parent))
    try:
        spec.loader.exec_module(module)
    except Exception as exc:  # the student's code
        raise ArgumentError(
            f"grade: importing {path} raised {exc_text(exc)}{student_frame(exc)}: fix it so "
            "that the module imports, then grade it again"
        ) from exc
    finally:
        sys.path.remove(str(path.parent))
        for key in [k for k in sys.modules if k == name or k.startswith(name + ".")]:
            if key not in before:
                del sys.modules[key]
        sys.modules.update(before)
    return module
