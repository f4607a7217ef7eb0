"""Real-browser fixtures: Debian's Chromium driven by Playwright, and a real JupyterLab server.

Without /usr/bin/chromium (and Playwright's Python package) the browser tests are skipped with
a message saying how to enable them. Servers are started on 127.0.0.1 on a free port, in a
temporary folder, and stopped by their process id.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO / "artifacts"
HOW_TO_ENABLE = (
    "browser tests need Debian's chromium at /usr/bin/chromium and the playwright "
    "package: `sudo apt-get install chromium` then `make test` (never "
    "`playwright install`)"
)


def pytest_collection_modifyitems(config, items):
    # under pytest-xdist (`make test`, --dist loadfile) a file's tests run on one worker: its
    # servers (session fixtures) are started once per worker that runs such a file
    for item in items:
        if "tests/browser" in str(item.fspath).replace(os.sep, "/"):
            item.add_marker(pytest.mark.browser)


@pytest.fixture(scope="session")
def browser():
    if not Path(CHROMIUM).exists():
        pytest.skip(HOW_TO_ENABLE)
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip(HOW_TO_ENABLE)
    with sync_playwright() as p:
        chromium = p.chromium.launch(
            executable_path=CHROMIUM,
            headless=True,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
                "--disable-quic",
                "--disable-dev-shm-usage",
            ],
        )
        yield chromium
        chromium.close()


@pytest.fixture
def page_errors():
    """Collects console errors and page errors of a page: call ``watch(page)``."""
    errors: list[str] = []

    def watch(page):
        page.on(
            "console",
            lambda m: errors.append(f"console.{m.type}: {m.text}") if m.type == "error" else None,
        )
        page.on("pageerror", lambda e: errors.append(f"pageerror: {e}"))
        return page

    watch.errors = errors
    return watch


def settled(page, frames: int = 2) -> None:
    """Waits until the page has drawn ``frames`` more frames: what a key, a click or a resize
    just set off (its handlers, the ResizeObservers, the styles) has run. A condition on the
    page, not a fixed sleep."""
    page.evaluate(
        "n => new Promise(done => { const f = k => k ? requestAnimationFrame(() => f(k - 1))"
        " : done(); f(n); })",
        frames,
    )


def wait_until(predicate, timeout: float = 20.0, what: str = "the condition") -> None:
    """Polls ``predicate()`` (a file written by the server, say) until it is true; fails
    saying ``what`` after ``timeout`` seconds. A file caught half written (OSError,
    ValueError such as a JSONDecodeError) counts as not yet."""

    def holds() -> bool:
        try:
            return bool(predicate())
        except (OSError, ValueError):
            return False

    deadline = time.monotonic() + timeout
    while not holds():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not true after {timeout:.0f} s")
        time.sleep(0.1)


def read_json(path: Path, timeout: float = 20.0):
    """The JSON in ``path``, a file the server writes: Jupyter's "atomic" save copies the
    file aside and then writes it in place, so a read can catch it empty or half written;
    polls until it parses."""
    found: list = []
    wait_until(
        lambda: found.append(json.loads(path.read_text())) or True, timeout, f"{path.name} parsed"
    )
    return found[-1]


def kernel_connected(page_url: str, timeout: float = 60.0) -> None:
    """Waits until the server at ``page_url`` (a notebook's page, JupyterLab or Notebook 7)
    has a kernel that a page is connected to and that is idle: a Run menu click before that
    can be lost."""
    base = page_url.split("/lab/")[0].split("/notebooks/")[0]

    def ready() -> bool:
        with urllib.request.urlopen(f"{base}/api/kernels", timeout=5) as answer:
            kernels = json.load(answer)
        return any(k.get("connections", 0) >= 1 and k["execution_state"] == "idle" for k in kernels)

    wait_until(ready, timeout, "a kernel connected to the page and idle")


def artifact(name: str) -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS / name


def write_notebook(path: Path, cells: list[str]) -> None:
    """A notebook of these code cells, on the python3 kernel, at ``path``."""
    import nbformat

    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    nbformat.write(nb, path)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def _server(
    app: str,
    root: Path,
    env: dict[str, str] | None = None,
    widget_state: bool = True,
    python: str = sys.executable,
):
    """A Jupyter server (``jupyterlab`` or ``notebook``, i.e. Notebook 7) in ``root`` on a free
    port of 127.0.0.1, with ``env`` (default: this process's); yields its base url and stops
    it, with its kernels, by process id. ``widget_state=False``: JupyterLab's default of not
    saving widget state in notebooks. ``python``: the environment's interpreter that runs the
    server (and so its kernels; default this one's)."""
    port = _free_port()
    env = dict(os.environ if env is None else env)
    # the kernels import this checkout's vizad, not another copy installed (e.g. editable)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    # and the server finds this checkout's JupyterLab extension (vizad/labextension) first
    extensions = root / "jupyter-path" / "labextensions"
    extensions.mkdir(parents=True, exist_ok=True)
    if not (extensions / "vizad").exists():
        (extensions / "vizad").symlink_to(REPO / "vizad" / "labextension")
    env["JUPYTER_PATH"] = os.pathsep.join(
        filter(None, [str(root / "jupyter-path"), env.get("JUPYTER_PATH")])
    )
    overrides = root / "app-settings"
    overrides.mkdir(exist_ok=True)
    settings = {
        "@jupyterlab/apputils-extension:notification": {
            "fetchNews": "false",
            "checkForUpdates": False,
        },
    }
    if widget_state:
        # what a user turns on to reopen notebooks with their widgets (Settings → Widget
        # Manager → save widget state)
        settings["@jupyter-widgets/jupyterlab-manager:plugin"] = {"saveState": True}
    (overrides / "overrides.json").write_text(json.dumps(settings))
    env["JUPYTER_CONFIG_DIR"] = str(root / "config")
    env["JUPYTER_RUNTIME_DIR"] = str(root / "runtime")
    env["JUPYTERLAB_WORKSPACES_DIR"] = str(root / "workspaces")
    log_path = root / f"{app}-server.log"
    log = open(log_path, "w")
    process = subprocess.Popen(
        [
            python,
            "-m",
            app,
            "--no-browser",
            "--ip",
            "127.0.0.1",
            "--port",
            str(port),
            "--IdentityProvider.token=",
            "--ServerApp.password=",
            "--allow-root",
            "--ServerApp.root_dir",
            str(root),
            "--ServerApp.disable_check_xsrf=True",  # lets the tests DELETE leftover sessions
            *(
                [
                    f"--LabApp.app_settings_dir={overrides}",
                    "--LabApp.news_url=",
                    "--LabApp.extension_manager=readonly",
                ]
                if app == "jupyterlab"
                else []
            ),
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
        env=env,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 60
        while True:
            try:
                urllib.request.urlopen(f"{url}/api/status", timeout=2)
                break
            except OSError:
                if process.poll() is not None or time.time() > deadline:
                    raise RuntimeError(
                        f"{app} did not start:\n" + log_path.read_text()[-3000:]
                    ) from None
                time.sleep(0.5)
        yield url
    finally:
        os.killpg(process.pid, signal.SIGTERM)  # the server and the kernels it started
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
        log.close()
        shutil.copy(log_path, artifact(log_path.name))


def _serve(
    tmp_path_factory, app: str, env: dict[str, str] | None = None, widget_state: bool = True
):
    if not Path(CHROMIUM).exists():
        pytest.skip(HOW_TO_ENABLE)
    root = tmp_path_factory.mktemp(app)
    with _server(app, root, env, widget_state) as url:
        yield url, root


def without_dot() -> dict[str, str]:
    """This process's environment with Graphviz's ``dot`` out of reach: PATH is the virtual
    environment's bin folder alone (the kernel is started by absolute path)."""
    env = {k: v for k, v in os.environ.items() if k != "VIZAD_LAYOUT"}
    env["PATH"] = str(Path(sys.executable).parent)
    assert shutil.which("dot", path=env["PATH"]) is None
    return env


@pytest.fixture(scope="session")
def jupyterlab(tmp_path_factory):
    """A JupyterLab server in a temporary folder: yields (base url, folder)."""
    yield from _serve(tmp_path_factory, "jupyterlab")


@pytest.fixture(scope="session")
def jupyterlab_defaults(tmp_path_factory):
    """A JupyterLab server with JupyterLab's default settings (widget state not saved)."""
    yield from _serve(tmp_path_factory, "jupyterlab", widget_state=False)


@pytest.fixture(scope="session")
def jupyterlab_without_dot(tmp_path_factory):
    """A JupyterLab server whose kernels cannot find Graphviz's ``dot``: yields (url, folder)."""
    yield from _serve(tmp_path_factory, "jupyterlab", without_dot())


@pytest.fixture(scope="session")
def notebook7(tmp_path_factory):
    """A Notebook 7 server in a temporary folder: yields (base url, folder)."""
    yield from _serve(tmp_path_factory, "notebook")
