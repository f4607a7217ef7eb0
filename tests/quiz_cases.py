"""How typed answers are judged: the cases that the quiz's two judges, Python's
(vizad/trace/quiz.py) and the browser's (static/stepper/quiz.js), are both tested on.

``python tests/quiz_cases.py`` writes them to tests/quiz_cases.json, which the JavaScript unit
tests (frontend/test/quiz.test.mjs, run by ``node --test``) read; tests/test_component_bundle.py
checks that the JSON file holds these very cases."""

import json
import math
from pathlib import Path

#: (typed, the value, verdict): read by both judges, this one and quiz.js's.
JUDGED = [
    ("1.72", 2 - math.cos(5), "right"),
    ("1.716", 2 - math.cos(5), "right"),
    ("1.7163", 2 - math.cos(5), "right"),
    ("1.71", 2 - math.cos(5), "wrong"),  # close (said so), but not the value rounded
    ("1.8", 2 - math.cos(5), "wrong"),
    ("1.7", 2 - math.cos(5), "refused"),  # too few digits to judge: no try used
    ("2", 2 - math.cos(5), "refused"),
    ("2 - cos(5)", 2 - math.cos(5), "right"),
    ("2 − cos(5)", 2 - math.cos(5), "right"),
    ("2 - cos(5.1)", 2 - math.cos(5), "wrong"),
    ("1/2", 0.5, "right"),
    ("0.5", 0.5, "right"),
    ("0.50", 0.5, "right"),
    ("-1", -1.0, "right"),
    ("1", -1.0, "wrong"),
    ("pi/4", math.pi / 4, "right"),
    ("sqrt(2)/2", math.sqrt(2) / 2, "right"),
    ("exp(1) - e", 0.0, "right"),
    ("tanh(0.5)**2", math.tanh(0.5) ** 2, "right"),
    ("-2**2", -4.0, "right"),
    ("1e-8", 1e-8, "right"),
    ("5.5", 5.5, "right"),
    ("5.50", 5.5, "right"),
    ("0.284", math.cos(5), "right"),
    ("0.2837", math.cos(5), "right"),
    ("0.283", math.cos(5), "wrong"),
    ("x1", 2.0, "refused"),
    ("2^3", 8.0, "refused"),
    ("sqrt(2", 1.0, "refused"),
    ("foo(2)", 1.0, "refused"),
    ("", 1.0, "refused"),
    ("__import__('os')", 1.0, "refused"),
]

#: Wrong answers told they are close (a rounding slip): both judges say so.
CLOSE = ["1.71", "1.7165", "0.2836"]


def _hostile() -> list[str]:
    """Answers an adversary types (or pastes): each gets a verdict from both judges, the
    same one, never an exception: overflow, huge integers, long sums and sign runs, deep
    parentheses, code, controls and look-alike characters."""
    out = [
        "1e400",
        "-1e400",
        "1e-400",
        "0e999",
        "9" * 5000,
        "9" * 199,
        "1" + "0" * 400,
        "-" * 3000 + "1",
        "-" * 100_000 + "1",
        "+" * 100_000 + "1",
        "-+" * 99 + "1",
        "+".join(["1"] * 100_000),
        "+".join(["1"] * 99),
        "*".join(["2"] * 99),
        "(" * 3000 + "1" + ")" * 3000,
        "(" * 20 + "1" + ")" * 20,
        "(" * 21 + "1" + ")" * 21,
        "sqrt(" * 30 + "1" + ")" * 30,
        "10**400",
        "10**308*10",
        "2**1024",
        "(-8)**(1/3)",
        "1/0",
        "0/0",
        "0**-1",
        "exp(1000)",
        "1/exp(1000)",
        "tanh(exp(1000))",
        "log(0)",
        "sqrt(-1)",
        "sin(1e308*10)",
        "1e308+1e308",
        "-1e308-1e308",
        "1e308-(-1e308)",
        "__import__('os').system('id')",
        "open('/etc/passwd')",
        "lambda: 1",
        "[1]*10**9",
        "'a'*10**9",
        "9**9**9**9",
        "2**2**2**2**2",
        "1 if 1 else 2",
        "(1)(2)",
        "1_000",
        "0x10",
        "0b1",
        "1j",
        "True",
        "None",
        "...",
        "1..2",
        "1.e5",
        ".e1",
        "e",
        "pi",
        "π",
        "ｐｉ",
        "１",
        "٣",
        "²",
        "1\u00a02",
        "1\u2009",
        "\u200b1",
        "\ufeff1",
        "1\x00",
        "\x00",
        "\x1b[31m1",
        "1\r\n",
        "\t1\t",
        "\n",
        "\r",
        " ",
        "",
        "−1",
        "1×2",
        "1·2",
        "2 × 3",
        "1,5",
        "1,500,000",
        "1e5e5",
        "1e",
        "e1",
        "1e+",
        "--",
        "++",
        "**",
        "*",
        "/",
        "()",
        "(",
        ")",
        "((",
        "sqrt",
        "sqrt()",
        "sqrt(1,2)",
        "sqrt(x=1)",
        "constructor",
        "toString(1)",
        "__proto__",
        "hasOwnProperty(1)",
        "valueOf",
        "Infinity",
        "NaN",
        "inf",
        "nan",
        "-inf",
        "1e308",
        "1.7976931348623157e308",
        "1.8e308",
        "5e-324",
        "2.5e-324",
        "-0",
        "-0.0",
        "0.000",
        "00000000001",
        "2*05",
        "2*0005",
        "1" * 20,
        "1." + "0" * 190,
        "0." + "0" * 190 + "1",
        "1e" + "9" * 150,
        "1e-" + "9" * 150,
        "x" * 201,
        "1" * 201,
        "{}",
        "[]",
        "${1}",
        "`1`",
        "<script>1</script>",
        "&#49;",
        "1;2",
        "1:2",
        "a=1",
        "1 2",
        "sin 1",
        "sin(1)(2)",
        "sin(1) 2",
        "**2",
        "2**",
        "2***3",
        "2//3",
        "2%3",
        "2@3",
        "~1",
        "!1",
        "1!",
        "2^3",
        "√2",
        "sqrt(2)^2",
        "ln(e)",
        "LOG(1)",
        "Sin(1)",
        "SQRT(4)",
        "ee",
        "pie",
        "e.1",
        "pi.5",
        "1pi",
        "2(3)",
        "(2)3",
        "-(-(-(1)))",
        "-" * 199 + "1",
        "+" * 199 + "1",
        "(" * 99 + ")" * 99,
        "\\",
        "'",
        '"',
        "\\x00",
        "%s%s%s",
        "{0}",
        "\ud800",
        "a\udc00",
        "1\u202e2",
        "\U0001f600",
        "1\U0001f600",
    ]
    out += [f"{d}e{k}" for d in ("1", "9.99", "-5") for k in (300, 308, 309, 400, -330)]
    out += ["(" * k + "2" + ")" * k for k in (19, 20, 21, 50)]
    out += [".", "..", "1.", ".5", "-.5e-3", "1.2.3", "0x", "1e-5.5"]
    out += ["sin(" * k + "1" + ")" * k for k in (19, 20, 21)]
    return out


#: Hostile answers (see _hostile): at least 200.
HOSTILE = _hostile()

#: (typed, the shape, verdict): shapes read by both judges.
SHAPES = [
    ("(2, 3)", (2, 3), "right"),
    ("2x3", (2, 3), "right"),
    ("[2,3]", (2, 3), "right"),
    ("2 3", (2, 3), "right"),
    ("2×3", (2, 3), "right"),
    ("(3, 2)", (2, 3), "wrong"),
    ("two", (2, 3), "refused"),
    ("scalar", (), "right"),
]

#: Where the cases are written for the JavaScript tests.
JSON_FILE = Path(__file__).with_name("quiz_cases.json")


def as_json() -> str:
    """The cases as the JSON text of JSON_FILE, one case a line (floats written exactly: their
    repr round-trips)."""
    cases = {
        "judged": [list(case) for case in JUDGED],
        "close": CLOSE,
        "shapes": [[typed, list(shape), status] for typed, shape, status in SHAPES],
    }
    parts = []
    for key, rows in cases.items():
        lines = ",\n".join(f"    {json.dumps(row, ensure_ascii=False)}" for row in rows)
        parts.append(f'  "{key}": [\n{lines}\n  ]')
    return "{\n" + ",\n".join(parts) + "\n}\n"


if __name__ == "__main__":
    JSON_FILE.write_text(as_json(), encoding="utf-8")
