"""The bridges to PyTorch and JAX: what importing a function and recording a backward pass
cost, against the framework's own forward and backward pass of the same function.

    python bench/bridges.py

The function: 250 residual steps h = tanh(h @ w) * 0.5 + h on a 4×4 matrix, then the sum
(1,001 ops: matmul, tanh, mul, add per step), in float64; its ``_fallbacks`` variant puts
``abs`` (an op vizad does not have, so a FrameworkOp running the framework) around the tanh.
Baselines, measured in the same process: PyTorch's forward + ``backward()``; JAX's
``jax.value_and_grad`` run op by op (not jitted; the jitted figure is printed too). Medians of
5 runs, taken in turns; what a run built is freed outside its timing.

    python bench/bridges.py --jax

only the cost of ``vz.jax_backward`` per equation of the jaxpr it walks, on a 2-layer MLP with
a dict of parameters, a ``lax.scan`` RNN of 20 steps and the MLP with ``jax.nn.relu`` (a
``custom_jvp``) and a ``custom_vjp`` gradient clip, before (commit ``BEFORE``, its module
read from git: one compiled vjp per primitive, the forward op by op) and after (one compiled
program per function, cached): the first call (median of 3 fresh processes, JAX's backend
started first) and the median of later calls taken in turns in one process, against
``jax.grad`` jitted and op by op.

    python bench/bridges.py --jax --before REV

the same against commit REV's ``jax_backward``, ``jax_program``, ``jax_segment`` and
``trace/recorded`` (those of them that exist there), run in the same process; ``--repeat N``
takes N rounds of later calls (7 by default).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import numpy as np  # noqa: E402

import vizad as vz  # noqa: E402
from _timing import load, machine, paired_medians  # noqa: E402

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import torch  # noqa: E402
from torch.fx.experimental.proxy_tensor import make_fx  # noqa: E402

STEPS = 250
RNG = np.random.default_rng(0)
X, W = RNG.standard_normal((4, 4)), 0.3 * RNG.standard_normal((4, 4))


def torch_fn(x, w, fallbacks=False):
    h = x
    for _ in range(STEPS):
        t = torch.tanh(h @ w)
        h = (torch.abs(t) if fallbacks else t) * 0.5 + h
    return h.sum()


def jax_fn(x, w, fallbacks=False):
    h = x
    for _ in range(STEPS):
        t = jnp.tanh(h @ w)
        h = (jnp.abs(t) if fallbacks else t) * 0.5 + h
    return jnp.sum(h)


def torch_forward_backward(fallbacks=False):
    x, w = (torch.tensor(a, requires_grad=True) for a in (X, W))
    torch_fn(x, w, fallbacks).backward()
    return w.grad


def torch_recorded(fallbacks=False):
    x, w = (torch.tensor(a, requires_grad=True) for a in (X, W))
    return vz.torch_backward(torch_fn(x, w, fallbacks), {"x": x, "w": w})


def vizad_gradients(imported):
    """vizad's gradients of an imported graph: extend it, plan, run."""
    grads = vz.gradients(imported.output, imported.inputs)
    return vz.Executor(grads).run(imported.feed)


def main() -> int:
    print(machine(), "·", load())
    print(f"torch {torch.__version__}, jax {jax.__version__}\n")
    x64 = jax.enable_x64(True)
    x64.__enter__()
    jitted = jax.jit(jax.value_and_grad(jax_fn, argnums=(0, 1)), static_argnums=2)
    for fallbacks in (False, True):
        name = "with abs (fallbacks)" if fallbacks else "vizad ops only"
        imported_t = vz.from_torch(lambda x, w: torch_fn(x, w, fallbacks), X, W)
        imported_j = vz.from_jax(lambda x, w: jax_fn(x, w, fallbacks), X, W)
        ops = sum(1 for n in vz.graph.topo_sort(imported_t.output) if n.inputs)
        steps = len(torch_recorded(fallbacks).steps)
        jitted(X, W, fallbacks)  # compiled outside the timing
        times = paired_medians(
            {
                "torch f+b": lambda: torch_forward_backward(fallbacks),
                "jax f+b": lambda: jax.value_and_grad(jax_fn, argnums=(0, 1))(X, W, fallbacks),
                "jax f+b jit": lambda: jax.block_until_ready(jitted(X, W, fallbacks)),
                "make_fx": lambda: make_fx(lambda x, w: torch_fn(x, w, fallbacks))(
                    torch.tensor(X), torch.tensor(W)
                ),
                "make_jaxpr": lambda: jax.make_jaxpr(lambda x, w: jax_fn(x, w, fallbacks))(X, W),
                "from_torch": lambda: vz.from_torch(lambda x, w: torch_fn(x, w, fallbacks), X, W),
                "from_jax": lambda: vz.from_jax(lambda x, w: jax_fn(x, w, fallbacks), X, W),
                "torch_backward": lambda: torch_recorded(fallbacks),
                "jax_backward": lambda: vz.jax_backward(lambda x, w: jax_fn(x, w, fallbacks), X, W),
                "vizad grads (torch graph)": lambda: vizad_gradients(imported_t),
                "vizad grads (jax graph)": lambda: vizad_gradients(imported_j),
            },
            repeat=5,
        )
        tf, jf = times["torch f+b"], times["jax f+b"]
        print(f"## {name}: {ops} ops imported, {steps} grad_fn nodes recorded")
        print("| what | time | ratio |")
        print("| --- | --- | --- |")
        print(f"| PyTorch forward + backward | {tf * 1e3:.1f} ms | 1 |")
        print(f"| JAX value_and_grad, op by op | {jf * 1e3:.1f} ms | 1 |")
        print(f"| JAX value_and_grad, jitted | {times['jax f+b jit'] * 1e3:.2f} ms | — |")
        rows = [
            ("PyTorch's tracer alone (make_fx)", "make_fx", tf, "PyTorch"),
            ("vz.from_torch (make_fx, then vizad's graph)", "from_torch", tf, "PyTorch"),
            ("vz.torch_backward (forward, then the recorded backward)", "torch_backward", tf,
             "PyTorch"),
            ("vizad's gradients of the imported PyTorch graph (extend, plan, run)",
             "vizad grads (torch graph)", tf, "PyTorch"),
            ("JAX's tracer alone (make_jaxpr)", "make_jaxpr", jf, "JAX"),
            ("vz.from_jax (make_jaxpr, then vizad's graph)", "from_jax", jf, "JAX"),
            ("vz.jax_backward (one JAX vjp per equation; trace.program not read)",
             "jax_backward", jf, "JAX"),
            ("vizad's gradients of the imported JAX graph", "vizad grads (jax graph)", jf, "JAX"),
        ]  # fmt: skip
        for label, key, base, of in rows:
            t = times[key]
            print(f"| {label} | {t * 1e3:.1f} ms | {t / base:.2f} × {of}'s forward + backward |")
        ratio = times["from_torch"] / times["make_fx"]
        print(f"\nvz.from_torch ÷ make_fx alone: {ratio:.2f} (the goal: ≤ 1.2)")
        print()
    x64.__exit__(None, None, None)
    return 0


def _mlp(params, x, labels):
    h = jnp.tanh(x @ params["W1"] + params["b1"])
    logp = jax.nn.log_softmax(h @ params["W2"] + params["b2"], axis=-1)
    return -jnp.mean(jnp.sum(logp * labels, axis=-1))


@jax.custom_vjp
def _clip_gradient(x):
    return x


_clip_gradient.defvjp(lambda x: (x, None), lambda _, g: (jnp.clip(g, -0.1, 0.1),))


def _custom_mlp(params, x, labels):
    """The MLP with ``jax.nn.relu`` (a custom_jvp) and a gradient clip (a custom_vjp)."""
    h = _clip_gradient(jax.nn.relu(x @ params["W1"] + params["b1"]))
    logp = jax.nn.log_softmax(h @ params["W2"] + params["b2"], axis=-1)
    return -jnp.mean(jnp.sum(logp * labels, axis=-1))


def _rnn(params, xs):
    def step(h, x):
        h = jnp.tanh(params["W"] @ h + params["U"] @ x + params["b"])
        return h, jnp.sum(h * h)

    h, ys = jax.lax.scan(step, jnp.zeros(8), xs)
    return jnp.sum(h) + jnp.sum(ys)


#: Rounds of later calls (``--repeat N``; each round runs every function once, in turns).
_REPEAT = int(sys.argv[sys.argv.index("--repeat") + 1]) if "--repeat" in sys.argv else 7
#: An earlier jax_backward to compare with besides jax.grad, ``--before REV`` (e.g. 6b6d90e,
#: the first commit of the wings); none by default: an old commit's modules import names
#: today's vizad no longer has (6b6d90e's trace/recorded.py wants engine.text.check_decimals).
BEFORE = sys.argv[sys.argv.index("--before") + 1] if "--before" in sys.argv else None


def _cases() -> list[tuple[str, object, tuple]]:
    rng = np.random.default_rng(0)
    mlp = (
        {
            "W1": rng.standard_normal((16, 32)),
            "b1": np.zeros(32),
            "W2": rng.standard_normal((32, 4)),
            "b2": np.zeros(4),
        },
        rng.standard_normal((8, 16)),
        np.eye(4)[rng.integers(0, 4, 8)],
    )
    rnn = (
        {
            "W": 0.3 * rng.standard_normal((8, 8)),
            "U": rng.standard_normal((8, 4)),
            "b": np.zeros(8),
        },
        rng.standard_normal((20, 4)),
    )
    return [
        ("2-layer MLP, dict params", _mlp, mlp),
        ("scan RNN, T = 20", _rnn, rnn),
        ("the MLP with relu and a custom_vjp clip", _custom_mlp, mlp),
    ]


#: The modules a baseline takes from its commit (those that exist there; today's otherwise),
#: each importing the others' baseline copies: jax_backward's walk, the plan and its programs,
#: and the trace layer's reading of a recording.
_BASELINE = ("trace/recorded", "bridges/jax_segment", "bridges/jax_program", "bridges/jax_backward")


def _before(rev: str):
    """The module of ``jax_backward`` as it was at commit ``rev``, with ``jax_program``,
    ``jax_segment`` and ``trace/recorded`` as they were there too (read from git and run
    beside today's, on today's other modules), or None when git cannot give it."""
    import subprocess
    import types

    root = Path(__file__).resolve().parent.parent
    tag = "".join(c for c in rev if c.isalnum())
    loaded: dict[str, str] = {}  # path → the baseline module's name
    module = None
    for path in _BASELINE:
        try:
            source = subprocess.run(
                ["git", "-C", str(root), "show", f"{rev}:vizad/{path}.py"],
                capture_output=True,
                text=True,
                check=True,
            ).stdout
        except (OSError, subprocess.CalledProcessError):
            if path.endswith("jax_backward"):
                return None
            continue  # not there at rev: today's
        package, short = path.split("/")
        for earlier, name in loaded.items():
            other_package, other = earlier.split("/")
            relative = f".{other}" if other_package == package else f"..{other_package}.{other}"
            source = source.replace(f"from {relative} import", f"from {name} import")
        name = f"vizad.{package}._baseline_{tag}_{short}"
        module = types.ModuleType(name)
        module.__package__ = f"vizad.{package}"
        sys.modules[name] = module
        exec(compile(source, f"{rev}:vizad/{path}.py", "exec"), module.__dict__)
        loaded[path] = name
    return module


def _started() -> None:
    """JAX's backend started (outside the timings, as in any session that imported JAX)."""
    with jax.enable_x64(True):
        jax.block_until_ready(jax.jit(lambda v: v + 1)(np.ones(2)))


def _first_call(which: str, case: int) -> float:
    """The first call of ``which`` ("before", "after") on case ``case`` in a fresh process
    (this one, run as a child: ``--first WHICH CASE``)."""
    import time

    _, fn, args = _cases()[case]
    backward = _before(BEFORE).jax_backward if which == "before" else vz.jax_backward
    _started()
    start = time.perf_counter()
    backward(fn, *args)
    return time.perf_counter() - start


def _first_in_child(which: str, case: int, repeat: int = 3) -> float:
    """The median over ``repeat`` fresh processes of a first call."""
    import os
    import statistics
    import subprocess

    times = []
    for _ in range(repeat):
        done = subprocess.run(
            [sys.executable, __file__, "--first", which, str(case), "--before", str(BEFORE)],
            capture_output=True,
            text=True,
            check=True,
            env=os.environ,
        )
        times.append(float(done.stdout.split()[-1]))
    return statistics.median(times)


def jax_backward_cost() -> int:
    """Issue 34's budget: jax_backward ≤ 0.2 ms per equation after the first call, the first
    call ≤ 2 s; before (commit BEFORE: one compiled vjp per primitive) and after (one
    compiled program per function), against jax.grad."""
    import inspect
    import time

    from vizad.bridges.jax_backward import _Walk
    from vizad.bridges.jax_import import traced

    print(machine(), "·", load())
    before = None
    if BEFORE:
        try:
            before = _before(BEFORE)
        except ImportError as exc:  # the commit's modules no longer fit today's vizad
            print(f"before = commit {BEFORE} does not load here ({exc}): left out")
    print(f"jax {jax.__version__}; before = {f'commit {BEFORE}' if before else 'none'}\n")
    _started()
    if before:
        print(
            "| function | equations (walked after) | first call: before | after "
            "| later calls (median): before | after | after ÷ before | per equation: before "
            "| after | jax.grad jitted: first call (compile) | later | jax.grad op by op |"
        )
        print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    else:
        print(
            "| function | equations | first call | later calls (median) | per equation "
            "| jax.grad jitted: first call (compile) | later | jax.grad op by op "
            "| ÷ op by op |"
        )
        print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for case, (name, fn, args) in enumerate(_cases()):
        arguments, framework, closed = traced(fn, args, {}, (), (), "bench")
        with framework.mode():  # the equations of the function (as the walk before saw them)
            walked = len(_Walk(closed, arguments.leaves, eager=False).eqns)
            equations = walked
            if before and "eager" not in inspect.signature(before._Walk).parameters:
                equations = len(before._Walk(closed, arguments.leaves, arguments.names).eqns)
        first = {w: _first_in_child(w, case) for w in ("before", "after") if before or w == "after"}
        with jax.enable_x64(True):
            jitted = jax.jit(jax.grad(fn))
            start = time.perf_counter()
            jax.block_until_ready(jitted(*args))
            compiled = time.perf_counter() - start
            fns = {
                "after": lambda: vz.jax_backward(fn, *args),
                "jit": lambda: jax.block_until_ready(jitted(*args)),
                "op by op": lambda: jax.block_until_ready(jax.grad(fn)(*args)),
            }
            if before:
                fns["before"] = lambda: before.jax_backward(fn, *args)
            times = paired_medians(fns, repeat=_REPEAT)
        a = times["after"]
        jax_part = (
            f"| {compiled * 1e3:,.0f} ms | {times['jit'] * 1e3:.3f} ms "
            f"| {times['op by op'] * 1e3:.1f} ms |"
        )
        if before:
            b = times["before"]
            print(
                f"| {name} | {equations} ({walked}) | {first['before'] * 1e3:,.0f} ms "
                f"| {first['after'] * 1e3:,.0f} ms | {b * 1e3:.2f} ms | {a * 1e3:.2f} ms "
                f"| {a / b:.2f} | {b / equations * 1e3:.3f} ms | {a / equations * 1e3:.3f} ms "
                + jax_part
            )
        else:
            print(
                f"| {name} | {walked} | {first['after'] * 1e3:,.0f} ms | {a * 1e3:.2f} ms "
                f"| {a / walked * 1e3:.3f} ms " + jax_part + f" {a / times['op by op']:.2f} |"
            )
    print("\nFirst calls: medians of 3 fresh processes each (JAX's backend started first).")
    print("Per equation: later calls over the function's equations as the walk before saw")
    print("them (after, a scan's xs[t] is a dynamic index: its index arithmetic is walked too).")
    print(load())
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["--first"]:
        print(_first_call(sys.argv[2], int(sys.argv[3])))
        sys.exit(0)
    sys.exit(jax_backward_cost() if "--jax" in sys.argv[1:] else main())
