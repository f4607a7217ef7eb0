"""Sphinx configuration of vizad's documentation site: `make docs` (output in docs/_build/html).

The API reference is made from the code at each build, so it cannot drift: one page per public
name of each public module (its ``__all__``; the top level's lazily loaded names included),
rendered by autodoc from the docstrings; the command line's page from its argparse parser; the
tutorials are the notebooks with their stored outputs (myst-nb, nothing executed); the guides
(docs/guides/) are MyST notebooks whose code cells run at every build (each asks for it in its
front matter), so their examples cannot drift, and a cell that raises fails the build; each public
callable's ``Examples:`` (its doctest lines) run as its page is made (docs/api_examples.py), and
one that fails, or a callable with none, fails the build. Warnings are errors (``-W`` in the
Makefile).
"""

from __future__ import annotations

import importlib
import os
import shutil
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
GENERATED = DOCS / "_generated"
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(DOCS))
# the guides' kernels import the checkout's vizad too (they inherit this environment)
os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))

from sphinx.util import logging  # noqa: E402

import vizad  # noqa: E402 (after the path: the checkout's vizad, not an installed one)
from api_examples import PENDING, public_callables, run  # noqa: E402 (docs/api_examples.py)
from api_names import MODULES, public_names  # noqa: E402 (docs/api_names.py)

_LOGGER = logging.getLogger("vizad.docs")

project = "vizad"
author = "the vizad developers"
copyright = "2026, the vizad developers"  # noqa: A001 (Sphinx's name)
release = vizad.__version__
version = ".".join(release.split(".")[:2])

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.napoleon",
    "sphinx.ext.mathjax",
    "myst_nb",
]
source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}
root_doc = "index"
exclude_patterns = ["_build", "_templates", "gallery/*.md", "myst", "Thumbs.db", ".DS_Store"]
# autosummary's class page lists a class's own members only (docs/_templates/autosummary)
templates_path = ["_templates"]
html_theme = "furo"
html_title = f"vizad {release}"
html_static_path: list[str] = []

# the tutorials as stored (their outputs are what `make notebooks` wrote and nbval checks); the
# guides run: each says `mystnb: {execution_mode: force}` in its front matter
nb_execution_mode = "off"
nb_execution_raise_on_error = True  # a guide's cell that raises fails the build
nb_execution_show_tb = True  # and its traceback says where
nb_execution_timeout = 120  # per cell (importing a framework the first time is slow)
myst_enable_extensions = ["dollarmath", "amsmath"]
myst_heading_anchors = 3
# links in the README and the notes point at files of the repository (sources, screenshots,
# notebooks): fine on GitHub, not pages of this site. A walkthrough's output shows as its
# text/html (the component with its data, and its static picture); myst-nb also meets its
# application/vnd.vizad.walkthrough+json (the saved step, for vizad's JupyterLab renderer),
# which a page has no use for: said once per output, and not worth a warning
suppress_warnings = ["myst.xref_missing", "myst.header", "mystnb.unknown_mime_type"]

autodoc_default_options = {"members": True, "show-inheritance": True}
autodoc_member_order = "bysource"
autodoc_typehints = "description"
autosummary_generate = True
napoleon_google_docstring = True
napoleon_numpy_docstring = False


def _write_api() -> None:
    """A page per module listing its names; a page per object, under the first module (in
    MODULES' order) that offers it — the others link there (``vz.Op`` is ``vizad.extend.Op``)."""
    api = GENERATED / "api"
    api.mkdir(parents=True, exist_ok=True)
    toc = ["API reference", "=============", ""]
    toc += ["Each example runs with ``import vizad as vz`` and ``import numpy as np`` done.", ""]
    toc += [".. toctree::", "   :maxdepth: 1", ""]
    home: dict[int, str] = {}  # id of a documented object: the name of its page
    for module_name, what in MODULES.items():
        toc.append(f"   {module_name}")
        title = f"``{module_name}``: {what}"
        lines = [title, "=" * len(title), "", f".. automodule:: {module_name}"]
        lines += ["   :no-members:", "", f".. currentmodule:: {module_name}", ""]
        lines += [".. autosummary::", "   :toctree: names", ""]
        elsewhere = []
        module = importlib.import_module(module_name)
        for name in public_names(module_name):
            key = id(getattr(module, name))
            if key in home and not _is_plain_value(getattr(module, name)):
                elsewhere.append(f":py:obj:`{name} <{home[key]}>`")
                continue
            home.setdefault(key, f"{module_name}.{name}")
            lines.append(f"   {name}")
        if elsewhere:
            lines += ["", "Also here, documented where they were first listed: "]
            lines[-1] += ", ".join(elsewhere) + "."
        (api / f"{module_name}.rst").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (api / "index.rst").write_text("\n".join(toc) + "\n", encoding="utf-8")


def _is_plain_value(value) -> bool:
    """Numbers, strings and the like: shared objects (small ints are one object) that each
    module documents as its own constant."""
    return isinstance(value, int | float | str | bytes | tuple | frozenset | type(None))


def _write_cli() -> None:
    from vizad.cli import _parser

    parser = _parser()
    parts = ["# The command line", "", "```text", parser.format_help().rstrip(), "```", ""]
    commands = next(a for a in parser._actions if a.dest == "command")
    for name, sub in commands.choices.items():
        parts += [f"## `python -m vizad {name}`", "", "```text", sub.format_help().rstrip()]
        parts += ["```", ""]
    (GENERATED / "cli.md").write_text("\n".join(parts), encoding="utf-8")


def _copy_tutorials() -> None:
    target = GENERATED / "tutorials"
    target.mkdir(parents=True, exist_ok=True)
    notebooks = sorted((ROOT / "notebooks").glob("*.ipynb"))
    for nb in notebooks:
        shutil.copyfile(nb, target / nb.name)
    toc = ["# Tutorials", "", "```{toctree}", ":maxdepth: 1", ""]
    toc += [nb.stem for nb in notebooks] + ["```", ""]
    (target / "index.md").write_text("\n".join(toc), encoding="utf-8")


def _write_gallery() -> None:
    shots = sorted((DOCS / "gallery").glob("*.png"))
    parts = ["# Gallery", "", "Screenshots at 1024×768 and 1920×1080, light and dark.", ""]
    for shot in shots:
        parts += [f"## {shot.stem}", "", f"![{shot.stem}](../gallery/{shot.name})", ""]
    (GENERATED / "gallery.md").write_text("\n".join(parts), encoding="utf-8")


def _generate() -> None:
    shutil.rmtree(GENERATED, ignore_errors=True)
    GENERATED.mkdir()
    _write_api()
    _write_cli()
    _copy_tutorials()
    _write_gallery()


# written when Sphinx reads this file: before it looks for sources and autosummary for pages
_generate()


_CALLABLES = public_callables()  # page name → the public callable it documents
_RAN: set[str] = set()


def _run_example(app, what, name, obj, options, lines) -> None:
    """Run the example of a public callable's page once (see docs/api_examples.py)."""
    if name not in _CALLABLES or name in _RAN:
        return
    _RAN.add(name)
    status, report = run(name, _CALLABLES[name])
    if status == "skipped" or (status == "missing" and name in PENDING):
        _LOGGER.info(report)
    elif status != "passed":
        _LOGGER.warning(report, type="vizad", subtype="example")


def setup(app):
    from pygments.lexers.special import TextLexer

    # docs/architecture.md's ```layers block (the layer list tests/test_architecture.py reads)
    app.add_lexer("layers", TextLexer)
    app.connect("autodoc-process-docstring", _run_example)
