"""Quiz mode, keys only: in the exported page (whose source does not show the answers) and in
JupyterLab, where Python reads the score."""

from __future__ import annotations

from conftest import artifact, settled, write_notebook
from test_jupyterlab import ROOT, _delete_sessions, _open_and_run, _run_in_new_cell


def _answer(page, text: str) -> None:
    page.keyboard.type(text)
    page.keyboard.press("Enter")


def _walk_the_quiz(page) -> None:
    """Step 1 right on the first try; step 2 wrong twice (revealed); step 3 wrong then
    right: score 2/3. Only keys: the question takes them, Esc gives them back."""
    answer = page.locator(f"{ROOT} .vz-answer")
    answer.wait_for()
    assert page.locator(f"{ROOT} .vz-quiz-q").inner_text().startswith("v̄₇ =")
    _answer(page, "1")
    page.wait_for_selector(f"{ROOT} .vz-right")
    assert page.locator(f"{ROOT} .vz-score").inner_text() == "score 1/1"
    assert page.locator(f"{ROOT} .vz-panel").count() == 1  # the step's panel, revealed
    page.keyboard.press("ArrowRight")  # the keys are the component's again
    page.wait_for_selector(f"{ROOT} .vz-answer:focus")
    _answer(page, "5")
    assert "try again" in page.locator(f"{ROOT} .vz-feedback").inner_text()
    page.keyboard.press("Control+a")
    _answer(page, "7")
    page.wait_for_selector(f"{ROOT} .vz-wrong")
    assert page.locator(f"{ROOT} .vz-wrong").inner_text() == "the answer: v̄₆ = 1"
    assert page.locator(f"{ROOT} .vz-score").inner_text() == "score 1/2"
    page.keyboard.press("ArrowRight")
    page.wait_for_selector(f"{ROOT} .vz-answer:focus")
    page.keyboard.press("Escape")  # back to the steps without answering
    page.keyboard.press("ArrowLeft")
    page.wait_for_function("() => document.querySelector('.vizad-stepper .vz-counter')"
                           ".textContent.startsWith('Step 2 of 7')")  # fmt: skip
    page.keyboard.press("ArrowRight")
    page.wait_for_selector(f"{ROOT} .vz-answer:focus")
    _answer(page, "3")
    page.keyboard.press("Control+a")
    _answer(page, "-1")  # v̄₅ = −1
    page.wait_for_selector(f"{ROOT} .vz-right")
    assert page.locator(f"{ROOT} .vz-score").inner_text() == "score 2/3"


def test_quiz_in_the_exported_page(browser, tmp_path, page_errors):
    import vizad as vz

    path = vz.export_html(vz.examples.lecture(), tmp_path / "quiz.html", quiz=True)
    source = path.read_text(encoding="utf-8")
    for answer in ("1.716", "5.5", "0.284", "11.652"):  # no value in the page's source
        assert answer not in source
    page = page_errors(browser.new_page(viewport={"width": 1024, "height": 768}))
    page.goto(path.as_uri())
    _walk_the_quiz(page)
    page.screenshot(path=artifact("quiz-export.png"))
    page.close()
    assert not page_errors.errors, "\n".join(page_errors.errors)


def test_quiz_in_jupyterlab_and_the_score_in_python(browser, jupyterlab, page_errors):
    url, root = jupyterlab
    cells = [
        "import vizad as vz\n"
        "x1, x2 = vz.Variable('x1'), vz.Variable('x2')\n"
        "y = vz.log(x1) + x1 * x2 - vz.sin(x2)\n"
        "stepper = vz.step(y, [x1, x2], {x1: 2.0, x2: 5.0}, quiz=True)\nstepper",
    ]
    write_notebook(root / "quiz.ipynb", cells)
    _delete_sessions(url)
    context = browser.new_context(viewport={"width": 1024, "height": 768})
    page = page_errors(context.new_page())
    _open_and_run(page, f"{url}/lab/tree/quiz.ipynb?reset", "quiz", ready=".vz-answer")
    page.locator(f"{ROOT} .vz-title").click()  # the component takes the keys: the question
    page.wait_for_selector(f"{ROOT} .vz-answer:focus")
    _walk_the_quiz(page)
    page.screenshot(path=artifact("quiz-jupyterlab.png"))
    _run_in_new_cell(page, "print('python score', stepper.score)")
    page.wait_for_selector(
        "text=python score {'right': 2, 'asked': 3, 'questions': 15}", timeout=20_000
    )
    # answered from Python (headless grading): the browser shows the verdict and the score
    _run_in_new_cell(page, "stepper.step = 4\nprint('verdict', stepper.answer('1').status)")
    page.wait_for_selector("text=verdict right", timeout=20_000)
    page.wait_for_function(
        "() => document.querySelector('.vizad-stepper .vz-score').textContent === 'score 3/4'"
    )
    assert "right: v̄₄ = 1" in page.locator(f"{ROOT} .vz-earned").inner_text()
    context.close()
    assert not page_errors.errors, "\n".join(page_errors.errors)


_VALUES = ("1.716", "0.284", "5.5")  # v̄₂, ∂v₅/∂v₂ (and v̄₂→₅), v̄₁: asked at steps 6 and 7


def _shown_values(page) -> str:
    """Everything a student can read: the step panel, the running table, the boxes' visible
    text, and the tooltip of every box and edge hovered in turn."""
    text = page.locator(f"{ROOT} .vz-below").inner_text()
    text += page.evaluate(
        "() => [...document.querySelectorAll('.vizad-stepper .vz-stage g.node text')]"
        ".filter(t => getComputedStyle(t).visibility !== 'hidden' && getComputedStyle(t).display"
        " !== 'none' && !t.classList.contains('vz-hidden')).map(t => t.textContent).join(' ')"
    )  # fmt: skip
    for box in page.locator(f"{ROOT} .vz-stage g.node, {ROOT} .vz-stage g.edge").all():
        box.hover(force=True)
        tip = page.locator(f"{ROOT} .vz-tip")
        if tip.is_visible():
            text += "\n" + tip.inner_text()
    return text


def test_a_quiz_hides_what_it_asks_and_reads_expressions(browser, tmp_path, page_errors):
    """Keys only, in the exported page: steps 1-5 answered; at step 6 nothing on screen
    (panel, table, boxes, tooltips) shows ∂v₅/∂v₂ or v̄₂; a wrong expression costs a try and
    brings a hint, something unreadable costs none, the value to 3 digits is right."""
    import vizad as vz

    path = vz.export_html(vz.examples.lecture(), tmp_path / "quiz.html", quiz=True)
    page = page_errors(browser.new_page(viewport={"width": 1280, "height": 900}))
    page.goto(path.as_uri())
    page.locator(f"{ROOT} .vz-answer").wait_for()
    for typed in ("1", "1", "-1", "1", "1"):
        _answer(page, typed)
        page.wait_for_selector(f"{ROOT} .vz-right")
        page.keyboard.press("ArrowRight")
        page.wait_for_selector(f"{ROOT} .vz-answer:focus")
    assert page.locator(f"{ROOT} .vz-quiz-q").inner_text().startswith("∂v₅/∂v₂ =")
    seen = _shown_values(page)
    assert not any(v in seen for v in _VALUES), seen
    page.locator(f"{ROOT} .vz-answer").focus()
    _answer(page, "sin(5)")  # a wrong expression: a try, and a hint
    note = page.locator(f"{ROOT} .vz-feedback")
    assert "try again" in note.inner_text() and "sin v₂" in note.inner_text()
    page.keyboard.press("Control+a")
    _answer(page, "cosine(5)")  # cannot be read: no try used
    assert "no try used" in note.inner_text() and "unknown" in note.inner_text()
    page.keyboard.press("Control+a")
    _answer(page, "0.284")  # to 3 digits: right
    page.wait_for_function(
        "() => document.querySelector('.vizad-stepper .vz-quiz-q b').textContent.startsWith('v̄₂→₅')"
    )
    page.wait_for_selector(f"{ROOT} .vz-answer:focus")
    for typed in ("-cos(5)", "2", "2"):
        _answer(page, typed)
        settled(page)
    assert page.locator(f"{ROOT} .vz-quiz-q").inner_text().startswith("v̄₂ =")
    seen = _shown_values(page)
    assert "1.716" not in seen, seen
    page.screenshot(path=artifact("quiz-asking.png"))
    page.locator(f"{ROOT} .vz-answer").focus()
    _answer(page, "1.72")
    page.wait_for_selector(f"{ROOT} .vz-panel")
    assert "right: v̄₂ = 1.71634" in page.locator(f"{ROOT} .vz-earned").inner_text()
    assert "1.716" in page.locator(f"{ROOT} .vz-table").inner_text()
    assert page.locator(f"{ROOT} .vz-score").inner_text() == "score 10/10"
    page.screenshot(path=artifact("quiz-answered.png"))
    page.emulate_media(color_scheme="dark")
    page.keyboard.press("ArrowRight")
    page.wait_for_selector(f"{ROOT} .vz-answer:focus")
    _answer(page, "4")
    page.screenshot(path=artifact("quiz-dark.png"))
    # the inputs are read-only without a kernel, and the page says so
    assert page.locator(f"{ROOT} .vz-input[data-name='x1']").get_attribute("readonly") is not None
    assert "read-only: not connected to Python" in page.locator(f"{ROOT} .vz-inputs").inner_text()
    page.close()
    assert not page_errors.errors, "\n".join(page_errors.errors)


def test_what_if_x1_changes_in_jupyterlab(browser, jupyterlab, page_errors):
    """The lecture's walkthrough at step 6: x1 edited from 2 to 3 in the stepper; Python
    traces it again and v̄₂ = x1 − cos 5 becomes 3 − cos 5 ≈ 2.716, still at step 6."""
    url, root = jupyterlab
    cells = [
        "import vizad as vz\nstepper = vz.Stepper(vz.examples.lecture())\nstepper.step = 6\nstepper"
    ]
    write_notebook(root / "whatif.ipynb", cells)
    _delete_sessions(url)
    context = browser.new_context(viewport={"width": 1024, "height": 900})
    page = page_errors(context.new_page())
    _open_and_run(page, f"{url}/lab/tree/whatif.ipynb?reset", "whatif")
    assert "v̄₂ = Σ v̄ᵢ→ⱼ = 1.716" in page.locator(f"{ROOT} .vz-sum").inner_text()
    field = page.locator(f"{ROOT} .vz-input[data-name='x1']")
    assert field.get_attribute("readonly") is None
    field.fill("3")
    field.press("Enter")
    page.wait_for_function(
        "() => (document.querySelector('.vizad-stepper .vz-sum') || {}).textContent"
        "?.includes('2.716')",
        timeout=30_000,
    )
    assert page.locator(f"{ROOT} .vz-counter").inner_text().startswith("Step 6 of 7")
    assert page.locator(f"{ROOT} .vz-input[data-name='x1']").input_value() == "3"
    # the step's result checked by finite differences, in Python, from a button
    page.locator(f"{ROOT} .vz-check-differences").click()
    page.wait_for_function(
        "() => document.querySelector('.vizad-stepper .vz-difference').textContent"
        ".includes('they agree')",
        timeout=20_000,
    )
    said = page.locator(f"{ROOT} .vz-difference").inner_text()
    assert said.startswith("v̄₂ by central differences: 2.71634"), said
    page.screenshot(path=artifact("whatif-jupyterlab.png"))
    _run_in_new_cell(page, "print('python adjoint', round(float(stepper.current.adjoint), 4))")
    page.wait_for_selector("text=python adjoint 2.7163", timeout=20_000)
    context.close()
    assert not page_errors.errors, "\n".join(page_errors.errors)


def test_the_browser_judges_answers_as_python_does(browser, page_errors):
    """quiz.js's reader and judge (no eval) on the cases of tests/quiz_cases.py, which
    vizad.trace.quiz.judge passes too (tests/test_quiz_answers.py)."""
    from quiz_cases import CLOSE, JUDGED

    from vizad.view.assets import STATIC

    page = page_errors(browser.new_page())
    # the component's own ES modules (static/stepper/), served at a made-up origin: quiz.js
    # imported as it is, with what it imports
    folder = STATIC / "stepper"
    page.route(
        "http://vizad.test/**",
        lambda route: route.fulfill(
            content_type="text/javascript" if route.request.url.endswith(".js") else "text/html",
            body=(folder / route.request.url.rsplit("/", 1)[1]).read_text()
            if route.request.url.endswith(".js")
            else "<html><body></body></html>",
        ),
    )
    page.goto("http://vizad.test/index.html")
    page.evaluate("async () => { window.judgeAnswer = (await import('/quiz.js')).judgeAnswer; }")
    got = page.evaluate(
        "cases => cases.map(([typed, value]) => judgeAnswer(typed, 'number', value).status)",
        [[typed, value] for typed, value, _ in JUDGED],
    )
    assert got == [status for _, _, status in JUDGED]
    close = page.evaluate(
        "cases => cases.map(t => judgeAnswer(t, 'number', t.startsWith('0.') ? Math.cos(5)"
        " : 2 - Math.cos(5)).message.startsWith('close'))",
        CLOSE,
    )
    assert close == [True] * len(CLOSE)
    shapes = page.evaluate(
        "() => ['(2, 3)', '2x3', '[2,3]', '(3, 2)', 'two']"
        ".map(t => judgeAnswer(t, 'shape', [2, 3]).status)"
    )
    assert shapes == ["right", "right", "right", "wrong", "refused"]
    # hostile answers: the same verdict and the same message from both, never an exception
    import math

    from quiz_cases import HOSTILE

    from vizad.trace.quiz import Question, judge

    cases = [(t, "number", 2 - math.cos(5)) for t in HOSTILE]
    cases += [(t, "shape", [2, 3]) for t in HOSTILE]
    python = []
    for typed, kind, answer in cases:
        question = Question("0.0", 0, "v", kind, tuple(answer) if kind == "shape" else answer,
                            "", "")  # fmt: skip
        verdict = judge(question, typed)
        python.append([verdict.status, verdict.message])
    browser_verdicts = page.evaluate(
        "cases => cases.map(([t, k, a]) => { const v = judgeAnswer(t, k, a);"
        " return [v.status, v.message]; })",
        cases,
    )
    assert browser_verdicts == python
    code = (STATIC / "stepper" / "quiz.js").read_text()
    assert "eval(" not in code and "Function(" not in code  # read, never run as code
    page.close()
    assert not page_errors.errors, "\n".join(page_errors.errors)
