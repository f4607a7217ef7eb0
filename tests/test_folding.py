"""Repeated structure folded (vizad/view/render/folding.py, ``collapse="repeats"``): which runs are
found (RNN time steps, layers of equal shape, a training loop, scopes with equal contents) and
which are not (similar but different ops or shapes), the folded forward and adjoint views, the
Σₜ v̄ᵢ→ₜ text of a shared weight, stable ids and expanding one fold, determinism, and a large
random graph. The golden DOT of the folded and unfolded drawings is in tests/test_render.py."""

import sys
from pathlib import Path

import numpy as np
import pytest

import vizad as vz
from vizad.errors import ArgumentError
from vizad.view.render import build_scene
from vizad.view.render.folding import MIN_REPEATS, expanded, find_folds
from vizad.trace.derivation import FIRST_TERMS, MANY_TERMS


def folds_of(target, view="forward"):
    return find_folds(build_scene(target, view))


def ops(scene, fold):
    by_id = {i.id: i for i in scene.items}
    return [[by_id[i].node.op.name for i in block] for block in fold.blocks]


# -- what is found -------------------------------------------------------------------------
@pytest.mark.parametrize("steps", [10, 45, 200])
def test_the_time_steps_of_the_weight_shared_chain_are_one_run(steps):
    trace = vz.examples.rnn(steps=steps)
    scene = build_scene(trace, "forward")
    (fold,) = find_folds(scene)
    assert fold.repeats == steps
    assert ops(scene, fold) == [["mul", "add", "tanh"]] * steps
    # every box the time steps made is in the run (h₀ = x₀ is read from outside by the first)
    computed = [i.id for i in scene.items if i.kind == "forward"]
    assert sorted(fold.members) == sorted(computed)
    assert fold.lines[0].startswith(f"× {steps}: ")
    assert fold.lines[1] == "each: mul → add → tanh"


@pytest.mark.parametrize("steps", [10, 45, 200])
def test_the_adjoint_of_the_repeated_block_is_a_repeated_block(steps):
    scene = build_scene(vz.examples.rnn(steps=steps), "adjoint")
    forward, adjoint = find_folds(scene)
    assert forward.repeats == adjoint.repeats == steps
    by_id = {i.id: i for i in scene.items}
    assert {by_id[i].kind for i in forward.members} == {"forward"}
    assert {by_id[i].kind for i in adjoint.members} == {"adjoint"}
    blocks = ops(scene, adjoint)
    assert all(b == blocks[0] for b in blocks) and blocks[0][0] == "sub"  # 1 − tanh² first
    # outside the run: the seed and the ten sums v̄ₓ = Σₜ v̄ₓ→ₜ of the shared inputs
    rest = [i for i in scene.items if i.kind == "adjoint" and i.id not in adjoint.members]
    assert len(rest) == 1 + 10


def mlp_layers(shapes, scoped=False):
    x = vz.Variable("X", shape=(4, shapes[0]))
    h = x
    for k, (a, b) in enumerate(zip(shapes, shapes[1:])):
        with vz.scope(f"layer{k}") if scoped else _nothing():
            w, bias = vz.Variable(f"W{k}", shape=(a, b)), vz.Variable(f"b{k}", shape=(b,))
            h = vz.tanh(h @ w + bias)
    return vz.sum(h * h)


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_layers_of_equal_shape_fold_and_layers_of_other_shapes_do_not():
    scene = build_scene(mlp_layers([8, 8, 8, 8, 8]))
    (fold,) = find_folds(scene)
    assert fold.repeats == 4 and ops(scene, fold) == [["matmul", "add", "tanh"]] * 4
    assert folds_of(mlp_layers([8, 6, 5, 4, 3])) == []
    # four equal layers, then layers of other shapes: the run stops there
    scene = build_scene(mlp_layers([8, 8, 8, 8, 8, 5, 5]))
    (fold,) = find_folds(scene)
    assert fold.repeats == 4 and fold.lines[0] == "× 4: v₁₄ … v₂₅"  # after 13 Variables


def test_scopes_with_equal_contents_fold_with_their_weights():
    scene = build_scene(mlp_layers([8, 8, 8, 8, 8], scoped=True))
    (fold,) = find_folds(scene)
    assert fold.repeats == 4
    assert fold.lines == ("× 4: layer0 … layer3", "each: matmul → add → tanh")
    by_id = {i.id: i for i in scene.items}
    assert {by_id[i].name for i in fold.members if by_id[i].kind == "variable"} >= {"v₂", "v₃"}
    drawing = vz.draw(mlp_layers([8, 8, 8, 8, 8], scoped=True), collapse="repeats")
    assert "cluster_s" not in drawing.source  # the scopes' clusters went into the fold
    # parallel scopes (heads of one input) are equal blocks too, two of them are enough
    x = vz.Variable("X", shape=(4, 8))
    heads = []
    for k in range(2):
        with vz.scope(f"head{k}"):
            heads.append(vz.sum(vz.tanh(x @ vz.Variable(f"W{k}", shape=(8, 8)))))
    (fold,) = folds_of(heads[0] + heads[1])
    assert fold.repeats == 2 and fold.lines[0] == "× 2: head0 … head1"


def test_scopes_with_other_contents_do_not_fold():
    x = vz.Variable("X", shape=(4, 8))
    h = x
    for k, f in enumerate([vz.tanh, vz.sigmoid, vz.tanh]):
        with vz.scope(f"layer{k}"):
            h = f(h @ vz.Variable(f"W{k}", shape=(8, 8)))
    assert folds_of(vz.sum(h)) == []


def training_loop(iterations):
    x, y = vz.Variable("X", shape=(6, 3)), vz.Variable("Y", shape=(6,))
    w0 = vz.Variable("w", shape=(3,))
    w = w0
    for _ in range(iterations):
        loss = vz.mean((x @ w - y) ** 2)
        (g,) = vz.gradients(loss, [w])
        w = w - 0.1 * g
    rng = np.random.default_rng(0)
    feed = {x: rng.standard_normal((6, 3)), y: rng.standard_normal(6), w0: np.zeros(3)}
    return vz.trace_reverse(vz.mean((x @ w - y) ** 2), [w0], feed)


def test_the_iterations_of_a_training_loop_are_one_run():
    trace = training_loop(4)
    scene = build_scene(trace, "forward")
    (fold,) = find_folds(scene)
    assert fold.repeats == 4
    blocks = ops(scene, fold)
    assert blocks[0][0] == "matmul" and blocks[0][-1] == "sub"  # the loss, …, w − 0.1 g
    folds = find_folds(build_scene(trace, "adjoint"))
    assert [f.repeats for f in folds] == [4, 4]


def test_similar_but_different_ops_or_shapes_do_not_fold():
    x = vz.Variable("x")
    h = x
    for f in [vz.tanh, vz.sin, vz.cos, vz.exp, vz.sigmoid, vz.tanh]:
        h = f(h * x + x)
    assert folds_of(h) == []
    # the same ops, but an input of another shape in steps that follow no period
    v, w = vz.Variable("v", shape=(3,)), vz.Variable("w", shape=(1,))
    h = v
    for other in "wvwwvwvvw":
        h = vz.tanh(h * (w if other == "w" else v))
    assert folds_of(h) == []
    # with a period (w, v, v), the steps are a run of three blocks of two steps each
    h = v
    for other in "wvvwvvwvv":
        h = vz.tanh(h * (w if other == "w" else v))
    (fold,) = folds_of(h)
    assert fold.repeats == 3 and fold.lines[1] == "each: mul → tanh → mul → tanh → mul → tanh"


def test_fewer_than_min_repeats_and_unchained_repeats_do_not_fold():
    x = vz.Variable("x")
    h = x
    for _ in range(MIN_REPEATS - 1):
        h = vz.tanh(h * x + x)
    assert folds_of(h) == []
    # equal blocks that do not read one another are not a run (outside scopes)
    parts = [vz.tanh(x * vz.Variable(f"w{k}") + x) for k in range(5)]
    assert folds_of(vz.ops.add_n(*parts)) == []


# -- drawn ---------------------------------------------------------------------------------
def test_the_folded_views_draw_one_stacked_box_per_run():
    trace = vz.examples.rnn(steps=45)
    forward = vz.draw(trace, "forward", collapse="repeats")
    assert "× 45: v₁₁ … v₁₄₅" in forward.source
    assert forward.source.count("peripheries=3") == 1 and "id=fold_v11" in forward.source
    adjoint = vz.draw(trace, "adjoint", collapse="repeats")
    scene = vz.render.Layout(trace, "adjoint", collapse="repeats").scene
    assert sorted(scene.folds) == ["fold_a2", "fold_v11"]
    assert [i.id for i in scene.items if i.kind == "fold"] == ["fold_v11", "fold_a2"]
    assert len(scene.items) == 10 + 1 + 1 + 1 + 10  # x's, fold, seed, fold, Σ's
    assert "repeated steps drawn once per run: × 45, × 45" in scene.note
    # the edges from every time step to a sum: one edge, labelled with their number
    sums = {e.head: e.label for e in scene.edges if e.tail == "fold_a2"}
    assert len(sums) == 10 and all(label.startswith("×") for label in sums.values())
    assert adjoint.source.count("peripheries=3") == 2
    # without collapse, nothing is folded
    assert "peripheries" not in vz.draw(trace, "adjoint").source


def test_stepping_inside_a_fold_lights_the_fold():
    trace = vz.examples.rnn(steps=10)
    scene = vz.render.Layout(trace, "adjoint", collapse="repeats").scene
    lit = vz.render.highlight(scene, 5)  # a time step's v̄: its forward node and adjoint
    assert lit.states["fold_v11"] == "current" and lit.states["fold_a2"] == "involved"
    last = vz.render.highlight(scene, len(trace.steps) - 1)  # v̄ of x0: its own box
    assert last.states["v1"] == "current"
    assert last.states["fold_v11"] == "consumer"  # x0's consumers are time steps
    assert last.states["fold_a2"] == "involved"  # and so are its partial adjoints


def test_a_step_inside_a_fold_says_which_block_it_is_at():
    """rnn(45)'s adjoint view folded: steps 1 and 73 both light the "× 45" boxes, and the step
    states say where in them each is (the stepper writes it in the folded box), so that they
    no longer look alike; a step of a shared input spans several blocks."""
    trace = vz.examples.rnn(steps=45)
    layout = vz.render.Layout(trace, "adjoint", collapse="repeats")
    steps = layout.states.steps
    assert steps[0]["current"] == steps[72]["current"] == "fold_v11"
    assert steps[0]["at"] == {"fold_v11": "v₁₄₅, block 45 of 45"}  # h₄₅ = tanh(…), the last
    assert steps[72]["at"] == {"fold_v11": "v₇₃, block 21 of 45", "fold_a2": "v̄₇₃, block 21 of 45"}
    assert steps[-1]["current"] == "v1" and "of 45 blocks" in steps[-1]["at"]["fold_v11"]
    # every step inside a fold says so; a view without folds carries no "at"
    assert all("at" in s for s in steps if s["current"] in layout.scene.folds)
    flat = vz.render.Layout(vz.examples.rnn(steps=5), "adjoint")
    assert not flat.scene.folds and not any("at" in s for s in flat.states.steps)


def block_of(at: str) -> str:
    """The block an "at" line names: "block 21 of 45" of "v̄₇₃, block 21 of 45"."""
    return at[at.rindex("block ") :] if ", block " in at else at.rsplit(", ", 1)[-1]


def test_every_view_counts_blocks_in_the_forward_order():
    """Reverse mode makes the adjoint's blocks from the last time step back (fold_a2's first
    block is v̄ of h₄₅'s); a person reads blocks as time steps, so both folded boxes, in every
    view, number a step's block as the forward computation does: rnn's time step t is block
    t, whose nodes are v₁₁₊₃₍ₜ₋₁₎ … v₁₃₊₃₍ₜ₋₁₎ (mul, add, tanh) after the ten inputs."""
    trace = vz.examples.rnn(steps=45)
    adjoint = vz.render.Layout(trace, "adjoint", collapse="repeats").states.steps
    forward = vz.render.Layout(trace, "forward", collapse="repeats").states.steps
    a2 = vz.render.Layout(trace, "adjoint", collapse="repeats").scene.folds["fold_a2"]
    assert a2.ordered and a2.count == 45 and a2.places()[0] == 45  # made first: time step 45
    for k in (0, 1, 72, len(trace.steps) - 1):  # steps 1, 2, 73 and the last
        assert adjoint[k]["at"]["fold_v11"] == forward[k]["at"]["fold_v11"]
    assert adjoint[1]["at"]["fold_a2"] == "v̄₁₄₄, ∂v₁₄₅/∂v₁₄₄, block 45 of 45"
    checked = 0
    for k, (step, states) in enumerate(zip(trace.steps, adjoint)):
        number = trace.numbers[step.node]
        if not 11 <= number <= 145:  # an input: its step spans blocks (below)
            continue
        time = (number - 11) // 3 + 1
        assert block_of(forward[k]["at"]["fold_v11"]) == f"block {time} of 45", k
        for at in states["at"].values():  # the forward fold and the adjoint's alike
            assert block_of(at) == f"block {time} of 45", (k, states["at"])
        checked += "fold_a2" in states["at"]
    assert checked == 134  # every time step's v̄ but h₄₅'s (the seed, drawn apart)
    # x₀'s step: its partial adjoints, one per time step that multiplies by it (1, 11, … 41)
    assert block_of(adjoint[-1]["at"]["fold_a2"]) == "in 5 of 45 blocks"


def test_opening_a_fold_keeps_the_others_numbers():
    trace = vz.examples.rnn(steps=10)
    both = vz.render.Layout(trace, "adjoint", collapse="repeats")
    alone = vz.render.Layout(trace, "adjoint", collapse=["fold_a2"])  # the forward run opened
    assert alone.scene.folds["fold_a2"] == both.scene.folds["fold_a2"]
    assert [s.get("at", {}).get("fold_a2") for s in alone.states.steps] == [
        s.get("at", {}).get("fold_a2") for s in both.states.steps
    ]


def test_a_fold_with_no_forward_order_counts_its_blocks_as_made_and_says_so():
    """Two sibling scopes whose forward contents differ (exp, × 2) but whose adjoints are the
    same (v̄ times a value): the adjoint's run has no forward run to be counted by."""
    x = vz.Variable("x")
    with vz.scope("s1"):
        h = vz.exp(x)
    with vz.scope("s2"):
        h = h * 2.0
    with vz.scope("s3"):
        h = vz.exp(h)
    trace = vz.trace_reverse(h, [x], {x: 0.1})
    layout = vz.render.Layout(trace, "adjoint", collapse="repeats")
    (fold,) = layout.scene.folds.values()
    assert fold.lines[0] == "× 2: s2 … s1 (adjoint)" and not fold.ordered
    assert fold.places() == [1, 2] and fold.count == 2  # s2's made first: block 1
    at = [s["at"] for s in layout.states.steps if "at" in s]
    assert at == [
        {fold.id: "v̄₃, block 1 of 2 (in the order made)"},
        {fold.id: "v̄₂, block 2 of 2 (in the order made)"},
    ]


def test_a_fold_has_a_stable_id_and_opens_with_collapse_minus_it():
    trace = vz.examples.rnn(steps=10)
    scene = vz.render.Layout(trace, "adjoint", collapse="repeats").scene
    keep = expanded(scene, "fold_a2")
    assert keep == ["fold_v11"]
    opened = vz.draw(trace, "adjoint", collapse=keep)
    assert "id=fold_v11" in opened.source and "id=fold_a2" not in opened.source
    for member in scene.folds["fold_a2"].members:
        assert f"id={member} " in opened.source
    # ids do not depend on what else is folded, nor on the other views
    again = vz.render.Layout(vz.examples.rnn(steps=10), "adjoint", collapse=keep).scene
    assert sorted(again.folds) == ["fold_v11"]
    assert again.folds["fold_v11"] == scene.folds["fold_v11"]
    both = vz.draw(trace, "adjoint", collapse=["fold_v11", "fold_a2"])
    assert both.source == vz.draw(trace, "adjoint", collapse="repeats").source
    with pytest.raises(ArgumentError, match="fold_v11"):
        expanded(scene, "fold_zz")
    with pytest.raises(ArgumentError, match="fold_a2"):
        vz.draw(trace, "adjoint", collapse=["fold_v999"])


def test_repeats_and_scopes_together():
    loss = mlp_layers([8, 8, 8, 8, 8, 8], scoped=True)
    drawing = vz.draw(loss, collapse=["repeats"])
    assert "× 5: layer0 … layer4" in drawing.source
    with pytest.raises(ArgumentError, match="no scope named 'nothing'"):
        vz.draw(loss, collapse=["repeats", "nothing"])


def test_the_stepper_data_lists_each_views_folds():
    from vizad.view.widget.data import frame_data

    trace = vz.examples.rnn(steps=10)
    layout = vz.render.Layout(trace, "adjoint", collapse="repeats")
    frame = frame_data(layout, trace, 3)
    assert frame["folds"]["fold_a2"]["repeats"] == 10
    assert frame["folds"]["fold_a2"]["expand"] == ["fold_v11"]
    assert frame["folds"]["fold_v11"]["blocks"][0] == ["v11", "v12", "v13"]
    assert frame["tips"]["fold_v11"]["head"].startswith("× 10: v₁₁ … v₄₀")
    assert "folds" not in frame_data(vz.render.Layout(trace, "adjoint"), trace, 3)


# -- Σₜ v̄ᵢ→ₜ ---------------------------------------------------------------------------------
def test_a_shared_weight_is_written_as_a_sum_over_time_steps():
    trace = vz.examples.rnn(steps=45)
    x0 = trace.graph[0]
    step = trace.step_of(x0)
    n = len(step.contributions)
    assert n > MANY_TERMS
    line = trace.line(step)
    assert line.startswith(r"\bar{v}_{1} = \sum_{t} \bar{v}_{1\to t} = ")
    more = n - FIRST_TERMS - 1
    assert line.count(rf"\ldots\text{{ ({more} more terms) }}") == 3  # symbols, rules, numbers
    text = str(trace.derivation()).splitlines()[step.index]
    assert text.startswith("v̄₁ = Σₜ v̄₁→ₜ = ") and f"… ({more} more terms)" in text
    # the terms are the partial adjoints, one a use, and they add up to the gradient
    total = sum(float(c.partial) for c in step.contributions)
    (grad,) = vz.evaluate(vz.gradients(trace.output, [x0]), trace.feed)
    assert total == pytest.approx(float(grad), rel=1e-12) == pytest.approx(float(step.adjoint))
    numeric = vz.numerical_gradient(trace.output, [x0], trace.feed)[0]
    assert float(grad) == pytest.approx(float(numeric), rel=1e-5)
    # the drawing's box of v̄₁ and the step's panel say the same
    source = vz.draw(trace, "adjoint", collapse="repeats").source
    assert "= Σₜ v̄₁→ₜ<BR/>" in source and f"+ … ({more} more terms) + " in source
    from vizad.trace.panel import step_panel

    assert step_panel(trace, step.index)["sum"] == f"v̄₁ = Σₜ v̄₁→ₜ ({n} terms) = "


def test_the_rnn_example_checks_its_arguments():
    assert len(vz.examples.rnn(steps=3).steps) == 6 + 3 * 3  # x6 … x9 are read by no step
    for bad in (0, -2, 2.5, True):
        with pytest.raises(ArgumentError, match="steps must be a positive int"):
            vz.examples.rnn(steps=bad)
    with pytest.raises(ArgumentError, match="inputs must be an int of at least 4"):
        vz.examples.rnn(inputs=3)


def test_short_sums_are_written_out():
    trace = vz.examples.lecture()
    assert "sum" not in str(trace.derivation()) and "more terms" not in str(trace.derivation())
    assert "Σₜ" not in vz.draw(trace, "adjoint").source


# -- deterministic and fast enough -----------------------------------------------------------
def test_the_same_graph_gives_the_same_folds_and_dot():
    for view in ("forward", "adjoint"):
        first = vz.draw(vz.examples.rnn(steps=45), view, collapse="repeats").source
        second = vz.draw(vz.examples.rnn(steps=45), view, collapse="repeats").source
        assert first == second


@pytest.mark.slow  # traces a 5,000-node random graph and finds its folds
def test_a_5000_node_random_graph_completes():
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
    from trace import random_graph

    y, xs, feed = random_graph(5000)
    trace = vz.trace_reverse(y, xs, feed)
    scene = build_scene(trace, "adjoint")
    folds = find_folds(scene)
    members = [m for f in folds for m in f.members]
    assert len(members) == len(set(members))  # runs never overlap
    assert all(f.repeats >= MIN_REPEATS for f in folds)
    assert vz.draw(trace, "forward", collapse="repeats").source.startswith("digraph")


# -- loops from the bridges: every time step folds, and only equal ones ------------------------
def _lstm(steps):
    torch = pytest.importorskip("torch")
    from torch_models import LanguageModelStep, _module

    model = _module(LanguageModelStep(), 3)
    tokens = torch.arange(2 * steps).reshape(2, steps) % 7
    return model, (tokens, tokens.roll(1, 1))


@pytest.mark.slow_family  # each length imports and records a torch LSTM
@pytest.mark.parametrize("steps", [4, 5, 6, 10])
def test_an_imported_lstm_folds_every_time_step(steps):
    model, args = _lstm(steps)
    imported = vz.from_torch(model, *args)
    trace = vz.trace_reverse(imported.output, imported.inputs, imported.feed)
    scene = build_scene(trace, "forward")
    (fold,) = find_folds(scene)
    assert fold.repeats == steps  # the last step too (it feeds the output, not a next step)
    blocks = ops(scene, fold)
    assert all(b == blocks[0] for b in blocks) and blocks[0][:2] == ["transpose", "matmul"]
    # each step's gates: one sigmoid for i, f, o and a tanh for g, c and h
    assert sorted(blocks[0]).count("sigmoid") == 3 and blocks[0].count("tanh") == 2


def test_a_recorded_lstm_folds_its_whole_time_steps_and_not_the_first():
    model, args = _lstm(6)
    trace = vz.torch_backward(lambda: model(*args), model)
    scene = build_scene(trace, "forward")
    (fold,) = find_folds(scene)
    # step t reads slice t of the input projection (which output of unbind: wiring, not the
    # op); PyTorch records step 1's nodes apart, before the embedding: it stays outside
    assert fold.repeats == 5 and len(fold.blocks[0]) == 13
    assert sorted(ops(scene, fold)[0]) == sorted(
        ["t", "addmm", "add", "unsafe_split", "sigmoid", "sigmoid", "sigmoid", "tanh"]
        + ["mul", "mul", "add", "tanh", "mul"]
    )
    # folded, its adjoint is counted by the forward steps: every step says the same block
    # in both boxes, the first step's adjoint (made last) is block 1
    layout = vz.render.Layout(trace, "adjoint", collapse="repeats")
    forward, adjoint = layout.scene.folds.values()
    assert adjoint.ordered and adjoint.count == 5 and adjoint.places()[-1] == 1
    both = [s["at"] for s in layout.states.steps if len(s.get("at", {})) == 2]
    assert len(both) > 5 * 10 and all(len({block_of(a) for a in at.values()}) == 1 for at in both)


def _scan_trace():
    pytest.importorskip("jax")
    from jax_models import models

    _, fn, args, _ = {m[0]: m for m in models()}["scan_rnn"]
    return vz.jax_backward(fn, *args)


def test_a_scans_steps_fold_with_the_first_reading_the_constant_h0():
    trace = _scan_trace()
    scene = build_scene(trace, "forward")
    (fold,) = find_folds(scene)
    # step 1 reads h₀ = 0, which JAX records no node for, where the others read hₜ₋₁
    assert fold.repeats == 4 and fold.lines[0] == "× 4: scan t=1 … scan t=4"
    first = [by.node for by in scene.items if by.id in fold.blocks[0]]
    assert any(len(n.inputs) < n.attrs["arity"] for n in first)  # the constant argument


def test_a_scans_adjoint_folds_its_equal_steps_and_keeps_the_last_apart():
    trace = _scan_trace()
    scene = build_scene(trace, "adjoint")
    forward, adjoint = find_folds(scene)
    assert forward.repeats == 4
    # v̄ of steps 1…3 are the same computation; step 4's receives v̄ of the final h (sum(h))
    # in place of Wᵀ z̄₅ from a next step: a different block, not hidden in the fold
    assert adjoint.lines[0] == "× 3: scan t=1 … scan t=3 (adjoint)"
    # counted as the forward steps are: the adjoint of step t is block t of 4 (its 4th apart)
    assert adjoint.ordered and adjoint.count == 4 and sorted(set(adjoint.places())) == [1, 2, 3]
    steps = vz.render.Layout(trace, "adjoint", collapse="repeats").states.steps
    both = [s["at"] for s in steps if len(s.get("at", {})) == 2]
    assert len(both) == 3 * 9 and all(len({block_of(a) for a in at.values()}) == 1 for at in both)
    blocks = ops(scene, adjoint)
    assert all(b == blocks[0] for b in blocks) and blocks[0][0] == "stack_transpose"
    drawing = vz.draw(trace, "adjoint", collapse="repeats")
    assert drawing.source.count("peripheries=3") == 2
    # folding changes the picture only: the gradients are JAX's, the unfolded DOT the same
    assert vz.draw(trace, "adjoint").source == vz.draw(_scan_trace(), "adjoint").source


def test_recorded_steps_that_read_another_output_do_not_fold():
    torch = pytest.importorskip("torch")
    x = torch.linspace(-1, 1, 6, dtype=torch.float64).reshape(2, 3).requires_grad_()
    w = torch.linspace(0.5, 1, 3, dtype=torch.float64, requires_grad=True)

    def run(reads):
        h = x
        for k in reads:  # row k of the previous h (output k of unbind)
            h = torch.tanh(h.unbind(0)[k] * w + x)
        return vz.torch_backward(h.sum(), {"w": w, "x": x})

    def repeats(trace):
        return [f.repeats for f in find_folds(build_scene(trace, "forward"))]

    assert repeats(run([0] * 6)) == [6]
    differs = repeats(run([0, 0, 0, 1, 0, 0]))  # step 4 reads row 1: not the same step
    assert 6 not in differs and all(r <= 3 for r in differs)
