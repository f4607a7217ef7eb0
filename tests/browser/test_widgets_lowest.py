"""vizad's JupyterLab extension with the LOWEST jupyter-widgets of the range pyproject.toml
pins (`make widgets-lowest` builds that environment: JupyterLab, jupyterlab_widgets 3.0.8 =
@jupyter-widgets/jupyterlab-manager 5.0.8, ipywidgets 8.0.7, this checkout's vizad); the
project's own environment holds the highest. The extension reads a private field of the
manager's renderer: here it must find the manager, so a saved walkthrough opens at its saved
step and, once its cell runs, steps live with Python both ways. Skipped when the environment
is missing (failing under `make test`, as tests/built.py says)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import tomllib
from pathlib import Path

import pytest
from built import require
from conftest import CHROMIUM, HOW_TO_ENABLE, REPO, _server, artifact, write_notebook
from test_jupyterlab import ROOT, _delete_sessions, _run_in_new_cell, _wait_step
from test_live_front_ends import LECTURE, _execute, _signed

VENV = REPO / ".venv-widgets-lowest"
PYTHON = VENV / "bin" / "python"


def _lowest(package: str) -> str:
    """The lowest version of ``package`` that pyproject.toml's dependencies allow."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    for spec in project["dependencies"]:
        found = re.match(rf"{package}\s*>=\s*([\w.]+)", spec)
        if found:
            return found.group(1)
    raise AssertionError(f"pyproject.toml does not bound {package} from below")


@pytest.fixture(scope="module")
def lowest_lab(tmp_path_factory):
    """JupyterLab run by the lowest environment's Python (its kernels too), with its own data
    folder (notebooks signed there are trusted)."""
    require(PYTHON, "make widgets-lowest")
    if not Path(CHROMIUM).exists():
        pytest.skip(HOW_TO_ENABLE)
    installed = subprocess.run(
        [
            str(PYTHON),
            "-c",
            "import importlib.metadata as m; "
            "print(m.version('jupyterlab_widgets'), m.version('ipywidgets'))",
        ],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    assert installed == [_lowest("jupyterlab_widgets"), _lowest("ipywidgets")], installed
    root = tmp_path_factory.mktemp("widgets-lowest")
    env = {**os.environ, "JUPYTER_DATA_DIR": str(root / "data")}
    with _server("jupyterlab", root, env, python=str(PYTHON)) as url:
        yield url, root


def test_saved_walkthrough_steps_live_with_the_lowest_widgets(browser, lowest_lab, page_errors):
    """Executed headless by the lowest environment with ``st.step = 6`` in the second cell and
    reopened there: the saved page at step 6; run again, the live widget (the extension found
    the manager): a click moves ``st.step`` in Python, ``st.step = 2`` moves the page."""
    url, root = lowest_lab
    notebook = root / "lowest.ipynb"
    write_notebook(notebook, [LECTURE, "st.step = 6"])
    _execute(notebook, python=str(PYTHON))
    _signed(notebook, root)
    _delete_sessions(url)
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    page = page_errors(context.new_page())
    page.goto(f"{url}/lab/tree/{notebook.name}?reset")
    page.wait_for_selector(".vizad-walkthrough[data-shown='page']", timeout=60_000)
    _wait_step(page, 6, timeout=30_000)
    page.screenshot(path=artifact("widgets-lowest-saved.png"))
    # Run All only once the kernel is up: clicked while the status bar still said "No Kernel |
    # Initializing" (a loaded make test), the run never happened and no widget went live
    page.wait_for_function("() => document.body.innerText.includes('| Idle')", timeout=120_000)
    page.locator(".lm-MenuBar-item", has_text="Run").click()
    page.locator(".lm-Menu-item[data-command='runmenu:run-all']").click()
    page.wait_for_selector(".vizad-walkthrough[data-shown='live']", timeout=60_000)
    _wait_step(page, 6, timeout=30_000)
    page.locator(f"{ROOT} .vz-next").click()
    _wait_step(page, 7)
    _run_in_new_cell(page, "print('python step', st.step)")
    page.wait_for_selector("text=python step 7", timeout=30_000)
    _run_in_new_cell(page, "st.step = 2")
    _wait_step(page, 2, timeout=30_000)
    assert page.locator(f"{ROOT} .vz-offline").count() == 0  # connected: no such note
    assert not page.get_by_text("model not found").count()
    page.screenshot(path=artifact("widgets-lowest-live.png"))
    context.close()
    versions = json.loads(
        (
            VENV / "share/jupyter/labextensions/@jupyter-widgets/jupyterlab-manager/package.json"
        ).read_text()
    )["version"]
    print(f"\njupyterlab-manager {versions} (jupyterlab_widgets {_lowest('jupyterlab_widgets')})")
    assert not page_errors.errors, "\n".join(page_errors.errors)
