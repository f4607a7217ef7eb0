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
