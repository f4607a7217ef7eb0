"""Exercise B with a student's bugs, in a real JupyterLab at 1024×768 with the file browser open
(issue 45): the solution with two planted bugs (SinOp's rule with its sign flipped, and
``gradients()`` replacing a node's list of partial adjoints instead of appending to it), Run
All. After the checks, the live stepper opens at the first failing step, that step's box red;
the printout shows the student's OWN sums (what their ``gradients()`` did, with its ⚠); the
replay sets their walk beside the lecture's, with its ⚠. What the page must show is computed
first by running the planted notebook headless (nbclient), never written in here.

Screenshots of the 1024×768 window: artifacts/exercise-b-after-run-all.png (where Run All
leaves the page), artifacts/exercise-b-stepper-failing.png (scrolled to the stepper, at the
failing step), artifacts/exercise-b-printout.png, artifacts/exercise-b-replay.png.
"""

from __future__ import annotations

import json
import os
import re

import nbformat
from conftest import REPO, artifact, kernel_connected
from test_jupyterlab import ROOT, _delete_sessions

SOLUTION = REPO / "notebooks" / "exercises" / "solutions" / "b_gradients.ipynb"
#: (cell's marker, the solution's text, the student's bug)
BUGS = [
    (
        "class SinOp",
        "return [mul(output_grad, cos(node.inputs[0]))]",
        "return [mul(output_grad, neg(cos(node.inputs[0])))]",  # the sign flipped
    ),
    (
        "def gradients",
        "node_to_output_grads_list.setdefault(i, []).append(g)",
        "node_to_output_grads_list[i] = [g]",  # = where the list must be appended to
    ),
]
#: asked of the planted notebook's kernel after its own cells: the stepper its cell shows
#: (the step it opens at, the failures) and the student's gradients() of the lecture's y
PROBE = """
import json as _json
_stepper = vz.diagnose(lecture, [x1, x2], feed_2_5).step()
_grads = ad.Executor(gradients(lecture, [x1, x2])).run(feed_2_5)
print(_json.dumps({
    "opens_at": _stepper.step,
    "n": _stepper.n_steps,
    "failures": sorted(_stepper.failures),
    "x1": np.array2string(np.asarray(_grads[0]), precision=4).strip(),
}))
"""
FAILED_FILL = "rgb(255, 214, 204)"  # STATE_STYLE["failed"] of vizad/view/render/palette.py
FAILED_STROKE = "rgb(192, 57, 43)"


def _planted(path) -> None:
    """The solution of exercise B with the two bugs, its stored outputs cleared (as a student's
    notebook before it is run), written at ``path``."""
    nb = nbformat.read(SOLUTION, as_version=4)
    for marker, right, wrong in BUGS:
        cells = [c for c in nb.cells if c.cell_type == "code" and marker in c.source]
        assert len(cells) == 1 and cells[0].source.count(right) == 1, (
            f"the solution's {marker!r} cell no longer holds {right!r}"
        )
        cells[0].source = cells[0].source.replace(right, wrong)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    nbformat.write(nb, path)


def _expected(path) -> dict:
    """What the planted notebook computes, run headless with this checkout's vizad: PROBE's
    answers."""
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell(PROBE))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    NotebookClient(nb, timeout=120, kernel_name="python3").execute(cwd=str(path.parent), env=env)
    out = "".join(o.get("text", "") for o in nb.cells[-1].outputs if o.output_type == "stream")
    return json.loads(out.strip().splitlines()[-1])


def _box_facts(page) -> dict:
    """The stepper's drawing: the red boxes, the current one, the first red box's colours and
    whether it lies inside the graph's view and inside the window; the step's boxes (the red
    one, its consumers, the boxes computing its result) outside the graph's view."""
    return page.evaluate(
        """() => {
          const root = document.querySelector('.vizad-stepper');
          const failed = [...root.querySelectorAll('.vz-stage g.node.vz-s-failed')];
          const view = root.querySelector('.vz-viewport').getBoundingClientRect();
          const ids = (state) => [...root.querySelectorAll('.vz-stage g.node.vz-s-' + state)]
            .map((g) => g.id);
          const inside = (g) => { const b = g.getBoundingClientRect();
            return b.left >= view.left && b.right <= view.right && b.top >= view.top
              && b.bottom <= view.bottom; };
          const step = [...root.querySelectorAll(
            '.vz-stage g.node:is(.vz-s-failed, .vz-s-consumer, .vz-s-involved)')];
          const facts = {
            failed: failed.map((g) => g.id),
            current: ids('current'),
            consumers: ids('consumer'),
            involved: ids('involved'),
            outOfView: step.filter((g) => !inside(g)).map((g) => g.id),
          };
          if (failed.length) {
            const shape = failed[0].querySelector('path, polygon, ellipse');
            const style = getComputedStyle(shape);
            const b = failed[0].getBoundingClientRect();
            facts.fill = style.fill;
            facts.stroke = style.stroke;
            facts.text = failed[0].textContent;
            facts.box = [b.left, b.top, b.right, b.bottom];
            facts.inView = inside(failed[0]);
            facts.inWindow = b.left >= 0 && b.top >= 0 && b.right <= innerWidth
              && b.bottom <= innerHeight;
          }
          return facts; }"""
    )


def test_exercise_b_with_bugs_opens_the_debugger_at_the_failing_step(
    browser, jupyterlab, page_errors
):
    url, root = jupyterlab
    notebook = root / "b_with_bugs.ipynb"
    _planted(notebook)
    expected = _expected(notebook)
    assert expected["failures"], "the planted sign bug must make a step red"
    first = expected["failures"][0] + 1  # the stepper's steps are numbered from 1
    assert expected["opens_at"] == first

    _delete_sessions(url)
    context = browser.new_context(viewport={"width": 1024, "height": 768})
    page = page_errors(context.new_page())
    page.goto(f"{url}/lab/tree/{notebook.name}?reset")
    page.wait_for_selector(".jp-Notebook", timeout=60_000)
    # the file browser open beside the notebook, as a student has it
    if not page.locator("#filebrowser").is_visible():
        page.locator(".jp-SideBar [data-id='filebrowser']").click()
    page.wait_for_selector("#filebrowser", state="visible")
    # Run All only once the kernel is up ("| Idle"): a click before that can be lost
    page.wait_for_function("() => document.body.innerText.includes('| Idle')", timeout=120_000)
    kernel_connected(page.url)
    page.locator(".lm-MenuBar-item", has_text="Run").click()
    page.locator(".lm-Menu-item[data-command='runmenu:run-all']").click()
    page.wait_for_selector(".vizad-walkthrough[data-shown='live']", timeout=60_000)
    page.wait_for_function(
        "() => document.querySelector('.vizad-stepper .vz-stage svg g.node')", timeout=60_000
    )
    assert page.locator(".vizad-walkthrough").count() == 1
    page.wait_for_function("() => document.body.innerText.includes('| Idle')", timeout=60_000)
    page.screenshot(path=artifact("exercise-b-after-run-all.png"))  # where Run All leaves it

    # the stepper: at the first failing step, its box red, its panel saying what fails
    stepper = page.locator(ROOT)
    n = expected["n"]
    page.wait_for_function(
        "([k, n]) => document.querySelector('.vizad-stepper .vz-counter')"
        ".textContent.startsWith('Step ' + k + ' of ' + n + ':')",
        arg=[first, n],
        timeout=30_000,
    )
    assert stepper.locator(".vz-slider").input_value() == str(first)
    page.wait_for_function(
        "() => document.querySelector('.vizad-stepper .vz-stage g.node.vz-s-failed')"
    )
    page.evaluate("() => document.querySelector('.vizad-stepper').scrollIntoView({block: 'start'})")
    facts = _box_facts(page)
    # at the failing step its own box is the red one (marked failed instead of current)
    assert len(facts["failed"]) == 1, facts
    assert facts["current"] == [], facts
    assert (facts["fill"], facts["stroke"]) == (FAILED_FILL, FAILED_STROKE), facts
    fail = stepper.locator(".vz-panel .vz-fail")
    assert fail.count() == 1
    fail_text = fail.inner_text()
    assert "Sin" in fail_text and "should be" in fail_text, fail_text
    assert stepper.locator(".vz-table tr.vz-bad").count() >= 1
    page.screenshot(path=artifact("exercise-b-stepper-failing.png"))
    print(
        f"\nstepper: {stepper.locator('.vz-counter').inner_text()!r}; red box "
        f"{facts['failed']} at {[round(x) for x in facts['box']]}: inside the graph's view "
        f"{facts['inView']}, inside the 1024×768 window {facts['inWindow']}"
    )
    assert facts["inView"], f"the failing step's box is outside the graph's view: {facts}"
    assert facts["consumers"] and facts["involved"], facts
    assert facts["outOfView"] == [], f"boxes of the failing step outside the view: {facts}"
    # its red message is in the window under the graph, the stepper scrolled to its top
    message = fail.bounding_box()
    assert message["y"] >= 0 and message["y"] + message["height"] <= 768, message

    # the printout: the student's own gradients(), its x1 sum and what it replaced
    printout = page.locator("pre.vizad-printout")
    printout.wait_for(state="attached", timeout=30_000)
    printout.scroll_into_view_if_needed()
    text = printout.text_content()
    assert "vizad's loop" not in text, text  # the student's own loop ran, not vizad's
    assert "is not in node_to_output_grads_list" in text, text
    assert "replaced, not appended" in text
    x1_sums = re.findall(r"grad = sum_node_list\(…\): v̄₁ = (\S+)", text)
    assert x1_sums == [expected["x1"]], (x1_sums, expected["x1"])
    page.screenshot(path=artifact("exercise-b-printout.png"))

    # the replay: the student's walk beside the lecture's order, with its ⚠
    replay = page.locator(".vizad-replay")
    replay.wait_for(state="attached", timeout=30_000)
    replay.scroll_into_view_if_needed()
    rows = replay.locator("table tr")
    assert rows.count() == n + 1  # the head and one row per step
    assert "⚠" in replay.locator("table").text_content()
    # x1's row: the student's sum (⚠, ✗) beside the lecture's right adjoint, which differs
    last = rows.nth(n).locator("td")
    used, right = last.nth(1).text_content(), last.nth(3).text_content()
    assert f"v̄₁ = {expected['x1']}" in used and "⚠" in used and "✗" in used, used
    assert right.startswith("v̄₁ = ") and expected["x1"] not in right, right
    page.screenshot(path=artifact("exercise-b-replay.png"))
    context.close()
    assert not page_errors.errors, "\n".join(page_errors.errors)
