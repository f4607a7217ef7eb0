"""The user's line of code on imported nodes, in static drawings too (issue 47 item 5), and never
one of vizad's own files (a JAX scan's steps were said to come from vizad/bridges/jax_loops.py)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import numpy as np
import pytest

import vizad as vz

HERE = Path(__file__).name
VIZAD = Path(vz.__file__).resolve().parent


def _line(marker: str) -> str:
    """``file:N  text`` of the line of this file that holds ``marker``, as a node's source."""
    for n, text in enumerate(Path(__file__).read_text().splitlines(), start=1):
        if marker in text and "_line(" not in text:
            return f"{HERE}:{n}  {text.strip()}"
    raise AssertionError(marker)


def _titles(drawing) -> list[str]:
    svg = drawing.pipe(format="svg").decode()
    return re.findall(r'<g id="([^"]*)" class="(?:node|edge)">\s*<title>([^<]*)</title>', svg)


def test_a_static_drawing_says_each_imported_box_s_line_on_hover():
    torch = pytest.importorskip("torch")

    class Model(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.linear = torch.nn.Linear(3, 2)

        def forward(self, x):
            h = torch.tanh(self.linear(x))  # the line the tanh box names
            return (h * h).sum()

    torch.manual_seed(0)
    imported = vz.from_torch(Model().double(), torch.ones(4, 3, dtype=torch.float64))
    titles = dict(_titles(vz.draw(imported.output)))
    lines = {t.split("&#10;", 1)[1] for t in titles.values() if "&#10;" in t}
    assert _line("# the line the tanh box names") in lines
    assert _line("return (h * h).sum()") in lines
    # each box's name comes first, its line second; an edge names its two boxes only
    tanh = [t for t in titles.values() if "torch.tanh" in t]
    assert tanh and all(re.fullmatch(r"v[₀-₉]+&#10;.+", t) for t in tanh), tanh
    edges = [t for i, t in titles.items() if "&#45;&gt;" in t]
    assert edges and not any("&#10;" in t for t in edges)


def test_a_drawing_of_a_graph_built_by_hand_has_its_names_alone():
    x = vz.Variable("x")
    titles = [t for _, t in _titles(vz.draw(vz.tanh(x) * x))]
    assert titles and not any("&#10;" in t for t in titles)


def _rnn(w, xs):
    import jax
    import jax.numpy as jnp

    def cell(h, x):
        h = jnp.tanh(w * h + x)
        return h, h

    h, hs = jax.lax.scan(cell, 0.0, xs)  # the scan's line
    return jnp.sum(hs)


@pytest.mark.parametrize("how", ["from_jax", "jax_backward"])
def test_a_scan_s_steps_carry_the_user_s_lines_never_vizad_s(how):
    pytest.importorskip("jax")
    w, xs = np.float64(0.5), np.arange(4.0) / 4
    if how == "from_jax":
        nodes = vz.topo_sort([vz.from_jax(_rnn, w, xs).output])
        sources = [n.source for n in nodes]
    else:
        sources = [s.node.source for s in vz.jax_backward(_rnn, w, xs).steps]
    named = [s for s in sources if s]
    assert named and not any(str(VIZAD) in s or "jax_loops" in s for s in named), named
    files = {s.split(":", 1)[0] for s in named}
    assert files == {HERE}, files
    # the steps vizad makes to read xs[t] and to stack the results: the scan's own line
    assert sources.count(_line("# the scan's line")) >= len(xs), sources
    assert _line("h = jnp.tanh(w * h + x)") in sources


def test_vizads_own_folder_is_where_the_package_is():
    from vizad.bridges import jax_import

    pytest.importorskip("jax")
    assert os.path.samefile(jax_import._VIZAD, VIZAD)
