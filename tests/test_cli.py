"""The expression parser (a whitelist over ast, never eval) and the walkthrough command."""

import json
import math
import re
import subprocess
import sys

import pytest

import vizad as vz
from vizad.view.widget.page import page_data
from vizad.cli import main

pytestmark = pytest.mark.heavy  # runs the command line in fresh interpreters


def test_parse_the_lecture_example():
    y, names = vz.expr.parse_expression("log(x1) + x1*x2 - sin(x2)")
    assert list(names) == ["x1", "x2"]
    x1, x2 = names["x1"], names["x2"]
    assert vz.evaluate(y, {x1: 2.0, x2: 5.0}) == pytest.approx(math.log(2) + 10 - math.sin(5))
    assert [n.op.name for n in vz.extend.ranked_order(y)][2:] == ["log", "mul", "sin", "add", "sub"]
    z, _ = vz.expr.parse_expression("-x**2 / 3 + tanh(+x) ** -1")
    assert z.op.name == "add"


@pytest.mark.parametrize(
    "text,message,column",
    [
        ("log(x1) + __import__('os')", "unknown function '__import__'", 11),
        ("x.real", "Attribute is not allowed", 1),
        ("x[0]", "Subscript is not allowed", 1),
        ("'a' + x", "the str 'a' is not allowed", 1),
        ("lambda: 1", "Lambda is not allowed", 1),
        ("log(x1 + ", "was never closed", 4),
        ("x ** y", "exponent of ** must be a number", 6),
        ("sin(x, y)", "sin takes one argument", 1),
        ("exp + 1", "exp is a function", 1),
    ],
)
def test_bad_expressions_say_where(text, message, column):
    with pytest.raises(vz.errors.ExpressionError, match=re.escape(message)) as info:
        vz.expr.parse_expression(text)
    assert f"at column {column}:" in str(info.value)
    caret_line = str(info.value).splitlines()[-1]
    assert caret_line.index("^") - 2 == column - 1


def test_walkthrough_command_writes_a_page(tmp_path, capsys):
    out = tmp_path / "w.html"
    assert (
        main(["walkthrough", "log(x1) + x1*x2 - sin(x2)", "--at", "x1=2", "x2=5", "-o", str(out)])
        == 0
    )
    page = out.read_text()
    data = json.dumps(page_data(page), ensure_ascii=False)
    assert "1.716" in data and "5.5" in data and "log(x1) + x1*x2 - sin(x2) at x1=2, x2=5" in page
    assert "wrote" in capsys.readouterr().out
    assert (
        main(
            [
                "walkthrough",
                "x1*x2",
                "--at",
                "x1=2",
                "x2=5",
                "--mode",
                "forward",
                "--wrt",
                "x2",
                "-o",
                str(out),
            ]
        )
        == 0
    )
    page = out.read_text()
    data = page_data(page)
    panel = data["steps"][2]["panel"]  # the panel
    assert (panel["sum"], panel["total"]) == ("v̇₃ = Σ v̇ₖ ∂vᵢ/∂vₖ = ", "2")
    assert "v̇₃ = 2<" in data["frames"]["tangents"]["svg"]  # the graph's box


@pytest.mark.parametrize(
    "args,message",
    [
        (["x1*x2", "--at", "x1=2"], "missing a value for x2"),
        (["x1", "--at", "x1=two"], "'two' is not a number"),
        (["x1", "--at", "z=1"], "'z', which is not in the expression"),
        (["x1", "--at", "x1"], "NAME=VALUE"),
        (["open('f')", "--at", "x=1"], "unknown function 'open'"),
    ],
)
def test_walkthrough_command_errors(args, message, capsys, tmp_path):
    assert main(["walkthrough", *args, "-o", str(tmp_path / "x.html")]) == 2
    assert message in capsys.readouterr().err


def test_python_dash_m(tmp_path):
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "vizad",
            "walkthrough",
            "exp(a)*b",
            "--at",
            "a=0",
            "b=3",
            "-o",
            str(tmp_path / "p.html"),
        ],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0 and (tmp_path / "p.html").exists()


# -- limits and errors ----------------------------------------------------------------------
def test_deep_and_long_expressions_are_built_iteratively_or_refused_clearly():
    y, names = vz.expr.parse_expression("-" * 1000 + "x")
    assert vz.evaluate(y, {names["x"]: 2.0}) == 2.0
    y, names = vz.expr.parse_expression("+".join(["x"] * 1000))
    assert vz.evaluate(y, {names["x"]: 1.0}) == 1000.0
    y, names = vz.expr.parse_expression("+".join(f"v{k}" for k in range(2000)))
    assert len(names) == 2000
    for text in ("-" * 50_000 + "x", "+".join(["x"] * 6000), "(" * 6000 + "x" + ")" * 6000):
        with pytest.raises(
            vz.errors.ExpressionError, match="operators and parentheses \\(at most 5,000\\)"
        ):
            vz.expr.parse_expression(text)
    with pytest.raises(vz.errors.ExpressionError, match="at most 100,000"):
        vz.expr.parse_expression("x" * 100_001)
    with pytest.raises(vz.errors.ExpressionError, match="empty"):
        vz.expr.parse_expression("   ")


def run_cli(*args, cwd=None):
    done = subprocess.run(
        [sys.executable, "-m", "vizad", "walkthrough", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
    )
    return done.returncode, done.stdout, done.stderr


@pytest.mark.slow_family  # each case starts the command line in a child interpreter
@pytest.mark.parametrize(
    "output, message",
    [
        ("", "-o: the file name is empty; give a file name"),
        (".", "-o: . is a directory; give a file name such as ./walkthrough.html"),
        (
            "missing/page.html",
            "-o: the directory missing does not exist; make it first, or give "
            "a path in a directory that exists",
        ),
    ],
)
def test_bad_outputs_are_one_line_with_status_2(tmp_path, output, message):
    code, out, err = run_cli("x*y", "--at", "x=1", "y=2", "-o", output, cwd=tmp_path)
    assert code == 2 and out == "" and err == f"error: {message}\n"
    assert list(tmp_path.iterdir()) == []


def test_unknown_wrt_and_look_alike_names(tmp_path):
    code, _, err = run_cli("x*y", "--at", "x=1", "y=2", "--wrt", "z", cwd=tmp_path)
    assert (code, err) == (
        2,
        "error: --wrt gives 'z', which is not in the expression (it has x, y)\n",
    )
    # Python reads the micro sign µ as the Greek μ: so does --at
    code, out, err = run_cli("\u00b5*y", "--at", "\u00b5=1", "y=2", "-o", "p.html", cwd=tmp_path)
    assert code == 0, err


def test_output_to_stdout(tmp_path):
    code, out, err = run_cli("x*y", "--at", "x=1", "y=2", "-o", "-", cwd=tmp_path)
    assert code == 0 and out.startswith("<!DOCTYPE html>") and err == ""
    assert list(tmp_path.iterdir()) == []  # no file named "-"


def test_a_failed_write_leaves_nothing_half_written(tmp_path, monkeypatch, capsys):
    import vizad.view.files as files

    target = tmp_path / "page.html"
    target.write_text("the previous page")

    def full_disk(fd, payload):  # every write into the temporary file: the disk is full
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(files, "_write_all", full_disk)
    x, y = vz.Variable("x"), vz.Variable("y")
    with pytest.raises(OSError, match="No space left"):
        vz.export_html(vz.trace_reverse(x * y, [x, y], {x: 1.0, y: 2.0}), target)
    assert target.read_text() == "the previous page"
    assert [p.name for p in tmp_path.iterdir()] == ["page.html"]  # no temporary file left
    code = main(["walkthrough", "x*y", "--at", "x=1", "y=2", "-o", str(target)])
    assert code == 2 and target.read_text() == "the previous page"
    assert capsys.readouterr().err == (
        f"error: -o: cannot write {target}: No space left on device "
        "(free some space or write elsewhere)\n"
    )


def test_forward_mode_takes_its_own_view_names(tmp_path, capsys):
    out = tmp_path / "t.html"
    args = ["walkthrough", "x1*x2", "--at", "x1=2", "x2=5", "--mode", "forward", "-o", str(out)]
    for view in ("tangent", "tangents", "forward"):
        assert main([*args, "--view", view]) == 0
        assert page_data(out.read_text())["view"] == view
    assert main([*args, "--view", "adjoint"]) == 2  # reverse mode's name: one name per view
    assert "here it is 'tangent'" in capsys.readouterr().err


def test_help_is_whole_sentences():
    import argparse

    from vizad.cli import _parser

    parser = _parser()
    text = parser.format_help()
    assert "graded with its course's cases." in " ".join(text.split())
    frames = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices[
        "frames"
    ]
    for action in frames._actions:
        if action.option_strings:
            assert action.help, f"frames {action.option_strings[0]} has no help"


@pytest.mark.parametrize("text", ["np.sin(x)", "x.exp()", "math.log(x) + 1"])
def test_an_attribute_call_is_named(text, capsys):
    assert main(["walkthrough", text, "--at", "x=1", "-o", "-"]) == 2
    err = capsys.readouterr().err
    assert "cannot be called: call a function by its own name" in err and "'this'" not in err
    assert repr(text.split("(")[0]) in err
