"""Quiz mode, keys only: in the exported page (whose source does not show the answers) and in
JupyterLab, where Python reads the score."""

from __future__ import annotations

from conftest import artifact, write_notebook
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
    page.wait_for_selector("text=python score {'right': 2, 'asked': 3}", timeout=20_000)
    context.close()
    assert not page_errors.errors, "\n".join(page_errors.errors)
