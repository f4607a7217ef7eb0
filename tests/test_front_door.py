"""The package's front door: a small top level, every name of it documented, every public name
of 0.2.0 still reached by the same path after the move into wings, errors with one builtin
base that keep the line an op author wrote."""

import builtins
import json
import re
import subprocess
import sys
import traceback
import warnings
from pathlib import Path

import numpy as np
import pytest

import vizad as vz
import vizad.errors
import vizad.extend
import vizad.engine.ops

ROOT = Path(__file__).resolve().parent.parent


def _top_level() -> list[str]:
    """The public names of the top level that are not modules."""
    return [n for n in dir(vz) if not n.startswith("_") and not _is_module(getattr(vz, n))]


def _fresh_python(code: str) -> list[str]:
    """The lines ``code`` prints in a fresh interpreter."""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return done.stdout.splitlines()


def _is_module(value) -> bool:
    return isinstance(value, type(vz))


def _documentation() -> str:
    """The README and every notebook's cells."""
    text = [(ROOT / "README.md").read_text(encoding="utf-8")]
    for path in sorted(ROOT.glob("notebooks/**/*.ipynb")):
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        text += ["".join(c["source"]) for c in cells]
    return "\n".join(text)


def test_the_top_level_is_small_and_each_name_is_documented():
    names = _top_level()
    assert len(names) <= 50, names
    docs = _documentation()
    missing = [n for n in names if not re.search(rf"\b(vz|vizad)\.{n}\b", docs)]
    assert not missing, f"top-level names used nowhere in the README or a notebook: {missing}"


def test_star_import_binds_the_engine_without_the_widget_or_shadowing_builtins():
    code = (
        "import sys\n"
        "from vizad import *\n"
        "print(sorted(m for m in ('anywidget', 'ipywidgets', 'graphviz') if m in sys.modules))\n"
        "print(sum([1, 2]), Variable('x'), callable(gradients), callable(trace_reverse))"
    )
    assert _fresh_python(code) == ["[]", "3 x True True"]
    assert not set(vz.__all__) & set(dir(builtins))
    assert set(vz.__all__) <= set(_top_level())


def test_an_export_and_a_drawing_load_no_widget_library():
    """A script that exports pages or draws (a course site's build) never pays for the widget
    libraries: vizad.view.widget's Stepper is imported on first use; a Stepper still exports."""
    code = (
        "import sys, tempfile\n"
        "import vizad as vz\n"
        "lecture = vz.examples.lecture()\n"
        "vz.export_html(lecture, tempfile.mktemp(suffix='.html'))\n"
        "vz.draw(lecture)._repr_mimebundle_()\n"
        "print(sorted(m for m in ('anywidget', 'ipywidgets') if m in sys.modules))\n"
        "page = vz.export.page_html(vz.Stepper(lecture, step=3))\n"
        "print(sorted(m for m in ('anywidget', 'ipywidgets') if m in sys.modules))\n"
        "print('data-vizad-step' in page or 'vz-root' in page)"
    )
    assert _fresh_python(code) == ["[]", "['anywidget', 'ipywidgets']", "True"]


def test_all_is_derived_from_what_the_package_imports():
    """Every name of __all__ is reachable, and the ops' list is their modules' lists."""
    for name in vz.__all__:
        assert getattr(vz, name) is not None
    from vizad.engine.ops import arithmetic, elementary, nn, structure, tensor

    parts = [arithmetic, elementary, tensor, nn, structure]
    assert vz.ops.__all__ == [n for m in parts for n in m.__all__]
    assert len(set(vz.ops.__all__)) == len(vz.ops.__all__) == 32  # stop_gradient the newest


def test_every_public_name_is_reached_by_its_path():
    """Every name of ``vz.__all__``, of the lazy names and of each documented module's
    ``__all__`` before the move into wings (tests/public_names.py) is reached as before:
    ``vz.name``, ``vz.ops.name``, ``vz.render.name``..."""
    from public_names import ALL, BY_MODULE

    assert sorted(vz.__all__) == ALL
    missing = []
    for path, names in BY_MODULE.items():
        module = vz
        for part in filter(None, path.split(".")):
            module = getattr(module, part)
        missing += [f"vz.{path}.{n}".replace("..", ".") for n in names if not hasattr(module, n)]
    assert missing == []


def test_a_documented_module_is_one_object_by_either_path():
    from vizad.classroom import diagnosis
    from vizad.engine import ops
    from vizad.view import render

    assert vz.ops is ops and vz.render is render and vz.diagnosis is diagnosis


def test_an_unknown_name_is_an_attribute_error_without_a_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(AttributeError, match="no attribute 'nonsense'"):
            vz.nonsense  # noqa: B018


def test_extend_holds_what_an_op_author_needs():
    from vizad.extend import ElementwiseOp, register

    class Cube(ElementwiseOp):
        def compute(self, x):
            return x**3

        def partials(self, node):
            (x,) = node.inputs
            return [3.0 * x * x]

    cube = register(Cube())
    try:
        x = vz.Variable("x")
        (g,) = vz.gradients(cube(x), [x])
        assert vz.evaluate(g, {x: 2.0}) == 12.0
        assert vz.extend.registry()["cube"] is cube
    finally:
        vizad.engine.op._REGISTRY.pop("cube")  # the registry is what the op tests loop over


def test_every_error_has_exactly_one_builtin_base():
    for name in vizad.errors.__all__[1:]:  # VizadError itself is an Exception
        error = getattr(vizad.errors, name)
        builtin = [b for b in error.__mro__ if b.__module__ == "builtins" and b is not object]
        direct = {b for b in builtin if b not in (BaseException, Exception)}
        roots = {b for b in direct if not any(b is not c and issubclass(c, b) for c in direct)}
        assert len(roots) == 1, f"{name} derives from {sorted(r.__name__ for r in roots)}"


def test_an_op_authors_failing_line_shows_in_the_traceback():
    class Broken(vz.Op):
        def compute(self, x):
            return x.no_such_method()  # the op author's line

        def vjp(self, node, adjoint):
            return [adjoint]

    x = vz.Variable("x")
    y = Broken()(x)
    for run in (lambda: vz.evaluate(y, {x: 1.0}), lambda: vz.Executor([y]).run({x: 1.0})):
        with pytest.raises(vz.errors.EvaluationError, match="op 'broken' failed") as caught:
            run()
        assert isinstance(caught.value.__cause__, AttributeError)
        shown = "".join(traceback.format_exception(caught.value))
        assert "return x.no_such_method()  # the op author's line" in shown
    with pytest.raises(vz.errors.EvaluationError) as caught:  # eager: computed at once
        Broken()(vz.tensor(np.ones(2)))
    assert "x.no_such_method()" in "".join(traceback.format_exception(caught.value))


def test_traces_name_their_abstract_methods():
    with pytest.raises(TypeError, match="abstract"):
        vz.trace.Trace()


def _lecture():
    x1, x2 = vz.Variable("x1"), vz.Variable("x2")
    return x1, x2, vz.log(x1) + x1 * x2 - vz.sin(x2), {x1: 2.0, x2: 5.0}


@pytest.mark.parametrize(
    ("call", "old"),
    [
        (lambda y, xs, feed: vz.gradients(y, xs, seed=2.0), "seed"),
        (lambda y, xs, feed: vz.evaluate(y, feed_dict=feed), "feed_dict"),
        (lambda y, xs, feed: vz.Executor([y]).run(feed_dict=feed), "feed_dict"),
        (lambda y, xs, feed: vz.extend.build_adjoints(y, xs, seed=1.0), "seed"),
        (lambda y, xs, feed: vz.gradcheck(y, xs, feed, seed=3), "seed"),
        (lambda y, xs, feed: vz.trace_reverse(y, xs, feed).check(seed=1), "seed"),
        (lambda y, xs, feed: vz.tensor(3.0).backward(seed=2.0), "seed"),
        (lambda y, xs, feed: vz.diagnose(y, xs, feed, seed=1), "seed"),
    ],
)
def test_the_keywords_of_0_1_are_gone(call, old):
    """One word, one meaning (``feed``, ``cotangent``, ``rng``): 0.1's keywords, kept with a
    DeprecationWarning through 0.2, are Python's own TypeError now (CHANGELOG.md)."""
    x1, x2, y, feed = _lecture()
    with pytest.raises(TypeError, match=f"unexpected keyword argument '{old}'"):
        call(y, [x1, x2], feed)


def test_trace_forward_takes_the_arguments_of_trace_reverse():
    x1, x2, y, feed = _lecture()
    new = vz.trace_forward(y, x2, feed)
    assert new.tangent(y) == pytest.approx(2 - np.cos(5))
    assert vz.trace_forward(y, feed=feed).tangent(y) == pytest.approx(5.5)  # ∂/∂x1 by default
    direction = vz.trace_forward(y, feed=feed, tangents={x1: 1.0, x2: 1.0})
    assert direction.tangent(y) == pytest.approx(5.5 + 2 - np.cos(5))
    with pytest.raises(vz.errors.ArgumentError, match="the second argument is the input"):
        vz.trace_forward(y, feed, {x2: 1.0})  # the order of 0.1
    with pytest.raises(vz.errors.ArgumentError, match="one direction per pass"):
        vz.trace_forward(y, [x1, x2], feed)
    with pytest.raises(vz.errors.ArgumentError, match="not both"):
        vz.trace_forward(y, x1, feed, tangents={x2: 1.0})


@pytest.mark.slow  # starts fresh interpreters, one per framework hidden
def test_import_vizad_imports_no_framework_and_a_missing_one_names_its_extra():
    pytest.importorskip("torch")
    pytest.importorskip("jax")
    code = (
        "import sys, vizad as vz\n"
        "print(sorted(m for m in ('torch', 'jax') if m in sys.modules))\n"
        "from vizad import *\n"
        "print(sorted(m for m in ('torch', 'jax') if m in sys.modules))\n"
        "vz.torch_backward, vz.from_torch\n"
        "print(sorted(m for m in ('torch', 'jax') if m in sys.modules))\n"
        "vz.from_jax\n"
        "print('jax' in sys.modules)\n"
    )
    assert _fresh_python(code) == ["[]", "[]", "['torch']", "True"]
    code = (
        "import sys\n"
        "sys.modules['torch'] = None  # as if it were not installed\n"
        "import vizad as vz\n"
        "try:\n"
        "    vz.torch_backward\n"
        "except vz.errors.MissingExtraError as exc:\n"
        "    print(isinstance(exc, ImportError), 'vizad[torch]' in str(exc))\n"
        "sys.modules['jax'] = None\n"
        "try:\n"
        "    vz.from_jax\n"
        "except vz.errors.MissingExtraError as exc:\n"
        "    print('vizad[jax]' in str(exc))\n"
    )
    assert _fresh_python(code) == ["True True", "True"]
