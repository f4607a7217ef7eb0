"""The release files: `python -m build` gives a wheel with the licences, `py.typed` and one copy
of each asset (the JupyterLab extension once, where JupyterLab looks), and an sdist that holds
what its tests need. (`make dist` also installs the sdist in a fresh environment and runs its
tests there.)"""

from __future__ import annotations

import collections
import email
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def dist(tmp_path_factory) -> Path:
    if not (REPO / ".git").exists():
        pytest.skip("the release files are built from a git checkout (this is an unpacked sdist)")
    out = tmp_path_factory.mktemp("dist")
    work = tmp_path_factory.mktemp("src")
    # from a copy of the tracked files: the build writes build/ and *.egg-info where it runs
    files = subprocess.run(
        ["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True
    ).stdout.split(b"\0")
    for name in filter(None, files):
        source = REPO / name.decode()
        if source.is_file():
            target = work / name.decode()
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(source.read_bytes())
    subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "-o", str(out), str(work)],
        check=True,
        capture_output=True,
    )
    return out


@pytest.mark.slow  # the dist fixture builds the wheel and the sdist (python -m build)
def test_the_wheel_holds_the_licences_py_typed_and_each_asset_once(dist):
    (wheel,) = dist.glob("vizad-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    licences = [n for n in names if ".dist-info/licenses/" in n]
    assert any(n.endswith("/LICENSE") for n in licences)
    assert any(n.endswith("graphviz.LICENSES.txt") for n in licences)
    assert "vizad/py.typed" in names
    assets = [n for n in names if not n.endswith(".py") and ".dist-info/" not in n]
    twice = [
        k for k, v in collections.Counter(n.rsplit("/", 1)[-1] for n in assets).items() if v > 1
    ]
    assert not twice, twice
    assert not [n for n in names if n.startswith("vizad/labextension/")]
    assert any(n.endswith("share/jupyter/labextensions/vizad/package.json") for n in names)
    metadata = email.message_from_bytes(
        zipfile.ZipFile(wheel).read(next(n for n in names if n.endswith(".dist-info/METADATA")))
    )
    assert metadata["License-Expression"] == "MIT"
    assert "Typing :: Typed" in metadata.get_all("Classifier")


@pytest.mark.slow  # the dist fixture builds the wheel and the sdist (python -m build)
def test_the_sdist_holds_what_its_tests_need(dist):
    (sdist,) = dist.glob("vizad-*.tar.gz")
    names = {n.split("/", 1)[1] for n in tarfile.open(sdist).getnames() if "/" in n}
    for needed in [
        "LICENSE",
        "CHANGELOG.md",
        "tests/conftest.py",
        "tests/opcases.py",
        "tests/golden",
        "tests/classroom/engines/__init__.py",
        "tests/classroom/hostile",
        "tests/browser/conftest.py",
        "notebooks/05_reverse_mode.ipynb",
        "notebooks/nbval-sanitize.cfg",
        "tools/architecture.py",
        "vizad/labextension/package.json",
        "docs/architecture.md",
        "vizad/view/widget/static/stepper/sanitize.js",
        "vizad/view/widget/static/stepper/refused.js",
    ]:
        assert needed in names, needed
