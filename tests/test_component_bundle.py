"""The browser component as ES modules (vizad/view/widget/static/stepper/, entry mount.js) and its
one committed bundle (static/stepper.bundle.js, built by ``make component`` with esbuild): the
bundle is built from the sources as they are (the hash its first line records, checked here
without Node; a fresh build compared when Node and frontend/node_modules are here), it has
every part, and it exports what anywidget and the pages call. The JavaScript's own unit tests
(frontend/tests/, ``node --test``) read the quiz's cases from tests/quiz_cases.json, checked
here to hold tests/quiz_cases.py's."""

from __future__ import annotations

import hashlib
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from vizad.view.assets import COMPONENT_BUNDLE, STATIC, component_module

REPO = Path(__file__).resolve().parents[1]
SOURCES = STATIC / "stepper"


def source_hash(folder: Path = SOURCES) -> str:
    """frontend/build-component.mjs's sourceHash: sha256 over each ``*.js`` of the folder,
    sorted by name (its name, a NUL, its bytes, a NUL)."""
    digest = hashlib.sha256()
    for path in sorted(folder.glob("*.js"), key=lambda p: p.name):
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def test_the_bundle_is_built_from_the_sources_as_they_are():
    first = component_module().split("\n", 1)[0]
    recorded = re.search(r"sources sha256: ([0-9a-f]{64})$", first)
    assert recorded, first
    assert recorded.group(1) == source_hash(), (
        "vizad/view/widget/static/stepper/ changed since stepper.bundle.js was built: "
        "run `make component` and commit the bundle"
    )


def test_the_hash_sees_a_change(tmp_path):
    for path in SOURCES.glob("*.js"):
        (tmp_path / path.name).write_bytes(path.read_bytes())
    assert source_hash(tmp_path) == source_hash()
    quiz = tmp_path / "quiz.js"
    quiz.write_text(quiz.read_text().replace("QUIZ_SIGNIFICANT = 3", "QUIZ_SIGNIFICANT = 2"))
    assert source_hash(tmp_path) != source_hash()


def test_the_bundle_has_every_part_and_exports_what_its_callers_use():
    module = component_module()
    assert COMPONENT_BUNDLE.name == "stepper.bundle.js"
    parts = re.findall(r"^// vizad/view/widget/static/stepper/(\w+\.js)$", module, re.M)
    assert sorted(parts) == sorted(p.name for p in SOURCES.glob("*.js"))  # none unreachable
    assert parts[-1] == "mount.js"  # the entry
    assert not re.search(r"^(import|export) .* from ", module, re.M)  # one module
    # the pages call `mount` by name after the module's text (vizad/view/widget/page.py)
    assert re.search(r"^(?:async )?function mount\(rootId, dataId", module, re.M)
    exports = re.search(r"^export \{([^}]*)\};\s*$", module, re.M)
    names = {n.strip() for n in exports.group(1).split(",")}
    assert names == {"mount_default as default", "localModel", "mount"}
    # anywidget takes ``render`` from the default export; a ``render`` exported by name draws
    # a deprecation warning on every render
    assert re.search(r"^var mount_default = \{ render \};$", module, re.M)
    entry = (SOURCES / "mount.js").read_text(encoding="utf-8")
    assert re.search(r"^export default \{ render \};$", entry, re.M)


def test_each_part_imports_what_it_uses_from_the_others():
    """Every ``import`` names a part of the folder and names that part exports (ESLint's
    no-undef, run by ``make lint``, checks the other way: nothing used without its import)."""
    exported = {}
    for path in SOURCES.glob("*.js"):
        text = path.read_text(encoding="utf-8")
        exported[path.name] = set(
            re.findall(r"^export (?:async )?(?:function|class|const|let) (\w+)", text, re.M)
        )
    for path in SOURCES.glob("*.js"):
        text = path.read_text(encoding="utf-8")
        for names, part in re.findall(r'^import \{ ([^}]*) \} from "\./(\w+\.js)";$', text, re.M):
            assert part in exported, (path.name, part)
            for name in names.split(", "):
                assert name in exported[part], f"{path.name} imports {name} from {part}"


def _node_with_esbuild() -> str:
    node = shutil.which("node")
    if node is None:
        pytest.skip("Node is not installed: the committed bundle is checked by its hash only")
    if not (REPO / "frontend" / "node_modules" / "esbuild").is_dir():
        pytest.skip("frontend/node_modules has no esbuild (`cd frontend && npm ci` installs it)")
    return node


def test_a_fresh_build_equals_the_committed_bundle():
    node = _node_with_esbuild()
    run = subprocess.run(
        [node, "frontend/build-component.mjs", "--check"],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr


def test_the_js_unit_tests_read_the_cases_python_is_tested_on():
    import quiz_cases

    assert quiz_cases.JSON_FILE.read_text(encoding="utf-8") == quiz_cases.as_json(), (
        "tests/quiz_cases.json is out of date: run `python tests/quiz_cases.py`"
    )
