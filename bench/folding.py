"""Finding repeated blocks (vizad/view/render/folding.py) costs a fraction of building the scene.

    python bench/folding.py

For the weight-shared chain of vz.examples.rnn at 45, 200 and 1,000 time steps and for
bench/trace.py's 5,000-node random graph, in the forward and the adjoint views: the median time
of ``find_folds`` on a scene, against the baseline of building that scene (``build_scene`` with
every box's text made, what a drawing does), run in turns in the same process. Target: finding
the folds <= 0.5x the baseline (near-linear: µs per box about constant as the graph grows).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import vizad as vz  # noqa: E402
from _timing import load, machine, paired_medians  # noqa: E402
from trace import random_graph  # noqa: E402
from vizad.view.render import build_scene  # noqa: E402
from vizad.view.render.folding import find_folds  # noqa: E402


def scene_with_text(trace, view):
    scene = build_scene(trace, view)
    for item in scene.items:
        item.lines  # noqa: B018 (the text a drawing writes)
    return scene


def main() -> None:
    print(machine())
    print(load())
    print("find_folds against building the scene, medians of 5 runs in turns")
    y, xs, feed = random_graph(5000)
    cases = [(f"rnn, {n} steps", vz.examples.rnn(steps=n)) for n in (45, 200, 1000)]
    cases.append(("random graph", vz.trace_reverse(y, xs, feed)))
    for name, trace in cases:
        for view in ("forward", "adjoint"):
            scene = scene_with_text(trace, view)
            t = paired_medians(
                {
                    "scene": lambda trace=trace, view=view: scene_with_text(trace, view),
                    "folds": lambda scene=scene: find_folds(scene),
                }
            )
            folds = find_folds(scene)
            boxes = len(scene.items)
            print(
                f"  {name:18} {view:8} {boxes:6} boxes: scene {t['scene'] * 1e3:8.1f} ms | "
                f"find_folds {t['folds'] * 1e3:7.1f} ms ({t['folds'] / boxes * 1e6:5.1f} µs/box, "
                f"ratio {t['folds'] / t['scene']:.2f}) | runs "
                + (", ".join(f"× {f.repeats}" for f in folds[:4]) or "none")
                + (" …" if len(folds) > 4 else "")
            )


if __name__ == "__main__":
    main()
