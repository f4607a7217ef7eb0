"""docs/architecture.md and the README's "Where things are" stay true: every package and
every module directly under vizad/ is described in docs/architecture.md's prose (not only in
its checked list of layers), and the README's map names every package."""

from __future__ import annotations

import re
from pathlib import Path

import vizad

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = Path(vizad.__file__).parent


def _packages() -> list[str]:
    """vizad's packages, as paths under vizad/ (``view/render``, ``classroom/courses/needle``)."""
    return sorted(
        str(p.parent.relative_to(PACKAGE))
        for p in PACKAGE.rglob("__init__.py")
        if p.parent != PACKAGE and "labextension" not in p.parts
    )


def _modules() -> list[str]:
    """The modules directly under vizad/ (``cli``, ``extend``)."""
    return sorted(p.stem for p in PACKAGE.glob("*.py") if p.stem != "__init__")


def _named(text: str, path: str) -> bool:
    """Whether ``text`` names ``path`` (``render``, ``compat/needle``, ``node``) as a path
    (`` `render/` ``, `` `node.py` ``, `` `vizad/view/render/` ``), a dotted name
    (``vizad.view.render``) or in backticks (`` `node` ``)."""
    dotted = "vizad." + path.replace("/", ".")
    forms = [f"`{path}/", f"`{path}.py`", f"`vizad/{path}/", f"`vizad/{path}.py`", f"`{path}`"]
    forms += [f"`{dotted}`", f"`{dotted}.", f"{path}/`"]
    return any(form in text for form in forms) or re.search(rf"\b{re.escape(dotted)}\b", text)


def _architecture_prose() -> str:
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    return re.sub(r"```layers\n.*?```", "", text, flags=re.S)


def _readme_map() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    start = text.index("## Where things are")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else len(text)]


def test_architecture_describes_every_package_and_module():
    prose = _architecture_prose()
    missing = [p for p in _packages() + _modules() if not _named(prose, p)]
    assert not missing, f"docs/architecture.md does not describe: {missing}"


def test_readme_map_names_every_package():
    readme = _readme_map()
    missing = [p for p in _packages() if not _named(readme, p)]
    assert not missing, f"the README's 'Where things are' does not name: {missing}"


def test_the_check_sees_what_is_missing():
    assert _named("`bridges/` holds", "bridges")
    assert _named("`classroom/courses/needle/` and", "classroom/courses/needle")
    assert _named("`cli.py` and", "cli")
    assert not _named("the nodes and the bridges", "bridges")
    assert not _named("`clis.py`", "cli")
    assert "bridges" in _packages() and "classroom/grading" in _packages()
    assert "engine/ops" in _packages() and "view/render" in _packages()
    assert "cli" in _modules() and "__init__" not in _modules()
