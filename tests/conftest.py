import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

# the notebook the browser tests open is data, not a tutorial to check with nbval
collect_ignore_glob = ["browser/data/*"]


# -- every drawing the test suite makes obeys the naming rules ---------------------------------
import pytest  # noqa: E402

from naming import check_scene_names  # noqa: E402


@pytest.fixture(autouse=True)
def _drawings_obey_the_naming_rules(monkeypatch, request):
    if request.node.get_closest_marker("hostile_names"):  # names an adversary chose
        return
    import vizad.render as render
    import vizad.render.dot as dot
    import vizad.render.layout as layout

    original = dot.to_drawing

    def checked(scene, *args, **kwargs):
        check_scene_names(scene)
        return original(scene, *args, **kwargs)

    for module in (dot, render, layout):
        monkeypatch.setattr(module, "to_drawing", checked)
