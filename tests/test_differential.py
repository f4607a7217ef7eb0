"""The differential test against JAX (see tests/differential.py): a few hundred random graphs
in every ``make test``; ``make fuzz N=5000`` runs more."""

import pytest

jax = pytest.importorskip("jax")

import differential  # noqa: E402  (after the skip: it imports jax)

GRAPHS, CHUNK = 300, 25


@pytest.mark.slow  # 12 chunks, most of a run without browsers: make test runs them, in parallel
@pytest.mark.parametrize(
    "start", range(0, GRAPHS, CHUNK), ids=lambda s: f"seeds-{s}-{s + CHUNK - 1}"
)
def test_random_graphs_agree_with_jax(start):
    failures = differential.run(range(start, start + CHUNK))
    assert not failures, "\n\n".join(failures)


def test_the_generator_covers_every_registered_op():
    import vizad as vz

    seen = set()
    for seed in range(GRAPHS):
        g = differential.make_graph(seed)
        seen |= {n.op.name for n in g.nodes}
    # a stop-gradient is left out: its zero derivative is on purpose, and the random graphs
    # are also checked against central differences (tests/test_mutations.py)
    from vizad.trace.check import STOP_GRADIENT

    assert set(vz.extend.registry()) - {"variable", "constant"} - STOP_GRADIENT <= seen


@pytest.mark.slow  # JAX compiles each graph of the run
def test_a_failure_prints_a_minimal_reproduction(monkeypatch):
    """A wrong derivative rule makes the run fail with the smallest failing prefix as code."""
    import numpy as np
    import vizad as vz
    from vizad.engine.ops import elementary

    monkeypatch.setattr(
        elementary.Cos, "partials", lambda self, node: [vz.sin(node.inputs[0])]
    )  # sign dropped
    seeds = [
        s for s in range(200) if "cos" in {n.op.name for n in differential.make_graph(s).nodes}
    ][:3]
    failures = differential.run(seeds)
    assert failures
    text = failures[0]
    assert text.startswith(f"seed {seeds[0]}") and "vz.cos(" in text and "feed = {" in text
    assert np.all([line.split(" = ")[0].startswith("n") for line in text.splitlines()[1:-1]])
