import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

# the notebook the browser tests open is data, not a tutorial to check with nbval
collect_ignore_glob = ["browser/data/*"]


def pytest_collection_modifyitems(config, items):
    """nbval's cells of a notebook (notebooks/*.ipynb) are marked ``notebook`` and kept on one
    pytest-xdist worker, in order (``make test`` runs with --dist loadgroup): they share the
    notebook's kernel. ``make check`` leaves them out (``-m "not notebook"``)."""
    import pytest

    for item in items:
        path = Path(str(item.fspath))
        if path.suffix == ".ipynb":
            item.add_marker(pytest.mark.notebook)
            item.add_marker(pytest.mark.xdist_group(f"notebook-{path.stem}"))


# -- every drawing the test suite makes obeys the naming rules ---------------------------------
import pytest  # noqa: E402

from naming import check_scene_names  # noqa: E402


@pytest.fixture(autouse=True)
def _drawings_obey_the_naming_rules(monkeypatch):
    import vizad.render as render
    import vizad.render.dot as dot
    import vizad.render.layout as layout

    original = dot.to_drawing

    def checked(scene, *args, **kwargs):
        check_scene_names(scene)
        return original(scene, *args, **kwargs)

    for module in (dot, render, layout):
        monkeypatch.setattr(module, "to_drawing", checked)
