"""The naming rules every drawing obeys (checked on every drawing the test suite makes)."""

import re

import numpy as np

#: What an internal id looks like in text: "#12", "node 12", or a DOM id such as v3, a17, c2.
INTERNAL_ID = re.compile(r"#\d|\bnode \d|\b[vacz]\d+\b")


def check_scene_names(scene) -> None:
    """The naming rules of a drawing: no internal id in any label, title or tooltip, no two
    boxes with the same name, every tensor value of a trace drawn as a heatmap."""
    from vizad.view.render.dot import dot_names

    texts = [scene.title, scene.note, *scene.clusters.values()]
    texts += [line for item in scene.items for line in item.lines]
    texts += [edge.label for edge in scene.edges]
    names = dot_names(scene)
    texts += list(names.values())
    leaks = [t for t in texts if INTERNAL_ID.search(t)]
    assert not leaks, f"internal ids in the drawing's text: {leaks[:5]}"
    boxes = [i.name for i in scene.items if i.kind != "constant"]
    twice = {n for n in boxes if boxes.count(n) > 1}
    assert not twice, f"boxes sharing a name: {sorted(twice)}"
    assert len(set(names.values())) == len(names), "two DOT nodes share a name"
    if scene.trace is not None:
        for item in scene.items:
            if item.node is None or item.node not in scene.trace.values:
                continue
            value = scene.trace.values[item.node]
            if isinstance(value, np.ndarray) and (value.ndim >= 2 or value.size > 8):
                assert item.heatmaps, f"tensor box {item.name} has no heatmap"
