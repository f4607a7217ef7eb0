import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

# the notebook the browser tests open is data, not a tutorial to check with nbval
collect_ignore_glob = ["browser/data/*"]


#: What `pytest` with no arguments runs (no path, no -m): the quick loop.
QUICK = "not browser and not notebook and not slow and not heavy"


def pytest_configure(config):
    """`pytest` alone runs the quick loop; a path or a -m given runs what it names."""
    if config.args_source == pytest.Config.ArgsSource.TESTPATHS and not config.option.markexpr:
        config.option.markexpr = QUICK


def pytest_collection_modifyitems(config, items):
    """nbval's cells of a notebook (notebooks/*.ipynb) are marked ``notebook``: ``make check``
    leaves them out (``-m "not notebook"``). Under pytest-xdist (``make test``) a notebook's
    cells share its kernel, so they must run in order on one worker: --dist loadfile (with
    pytest 9.2 and pytest-xdist 3.8, --dist loadgroup did not keep xdist_group marks together,
    even set by a decorator)."""
    for item in items:
        if Path(str(item.fspath)).suffix == ".ipynb":
            item.add_marker(pytest.mark.notebook)
    _mark_slow_families(items, whole=not any("::" in a for a in config.args))


def _mark_slow_families(items, whole):
    """A long parametrized family marked ``slow_family`` keeps a representative in ``make
    check``: the cases named by ``keep=`` (their ids), else the family's first case; its other
    cases are marked ``slow`` (``make test`` runs them all)."""
    kept, named, seen = {}, {}, {}
    for item in items:
        marker = item.get_closest_marker("slow_family")
        callspec = getattr(item, "callspec", None)
        if marker is None or callspec is None:
            continue
        family = item.nodeid.split("[")[0]
        keep = marker.kwargs.get("keep")
        if keep is None:
            keep = (kept.setdefault(family, callspec.id),)
        else:
            named[family] = set(keep)
            seen.setdefault(family, set()).add(callspec.id)
        if callspec.id not in keep:
            item.add_marker(pytest.mark.slow)
    for family, keep in named.items():  # a case renamed must not drop its family from make check
        if whole and keep - seen[family]:
            raise pytest.UsageError(
                f"{family}: slow_family keeps no case {sorted(keep - seen[family])}"
            )


# -- every drawing the test suite makes obeys the naming rules ---------------------------------
from naming import check_scene_names  # noqa: E402


@pytest.fixture(autouse=True)
def _drawings_obey_the_naming_rules(monkeypatch, request):
    if request.node.get_closest_marker("hostile_names"):  # names an adversary chose
        return
    import vizad.view.render as render
    import vizad.view.render.dot as dot
    import vizad.view.render.layout as layout

    original = dot.to_drawing

    def checked(scene, *args, **kwargs):
        check_scene_names(scene)
        return original(scene, *args, **kwargs)

    for module in (dot, render, layout):
        monkeypatch.setattr(module, "to_drawing", checked)
