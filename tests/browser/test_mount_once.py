"""Many notebook outputs in one page, as nbconvert, VS Code or JupyterLab without vizad's
extension show them: each output's HTML holds a mount element (JSON, data-vizad-mount) and a
module script of static files only (boot.js, the component in the first); each output is
mounted exactly once, in whatever order the outputs come, and running boot.js again (an
output whose script runs twice) mounts nothing more."""

from __future__ import annotations

from conftest import settled

from vizad.view.assets import boot_script

# counts the component's mounts per element: the component puts itself at
# globalThis.vizadComponent (mount.js), which this property wraps as it is set
COUNT_MOUNTS = """
globalThis.__mounts = {};
let component;
Object.defineProperty(globalThis, "vizadComponent", {
  configurable: true,
  get: () => component,
  set(value) {
    const count = (f) => (root, ...rest) => {
      globalThis.__mounts[root] = (globalThis.__mounts[root] || 0) + 1;
      return f(root, ...rest);
    };
    component = { mount: count(value.mount), mountPicture: count(value.mountPicture) };
  },
});
"""


def test_each_output_is_mounted_once(browser, tmp_path, page_errors, monkeypatch):
    import vizad as vz
    from vizad.view import sharing

    monkeypatch.setenv("VIZAD_LAYOUT", "dot")
    sharing.forget()
    x = vz.Variable("x")
    quiz = vz.Stepper(vz.trace_reverse(vz.sin(x) * x, [x], {x: 0.5}), quiz=True)
    carrier = vz.Stepper(vz.examples.lecture())._repr_mimebundle_()[0]["text/html"]
    waiting = [
        vz.Stepper(vz.examples.lecture(), step=3)._repr_mimebundle_()[0]["text/html"],
        quiz._repr_mimebundle_()[0]["text/html"],
    ]
    sharing.forget()
    assert "globalThis.vizadComponent ??=" in carrier
    assert all("globalThis.vizadComponent ??=" not in html for html in waiting)
    # an output waiting for the component comes before the output that carries it
    outputs = [waiting[0], carrier, waiting[1]]
    page_path = tmp_path / "outputs.html"
    page_path.write_text(
        "<!doctype html><meta charset='utf-8'><body>"
        + "".join(f"<div class='output'>{html}</div>" for html in outputs)
        + "</body>",
        encoding="utf-8",
    )
    context = browser.new_context(viewport={"width": 1024, "height": 768})
    context.add_init_script(COUNT_MOUNTS)
    page = page_errors(context.new_page())
    page.goto(page_path.as_uri())
    page.wait_for_function(
        "() => document.querySelectorAll('.output .vizad-stepper .vz-counter').length === 3",
        timeout=30_000,
    )
    roots = page.evaluate(
        "() => [...document.querySelectorAll('script[data-vizad-mount]')]"
        ".map((s) => [JSON.parse(s.textContent).root, s.dataset.vizadBooted])"
    )
    assert [state for _, state in roots] == ["mounted"] * 3
    assert page.evaluate("() => globalThis.__mounts") == {root: 1 for root, _ in roots}
    counters = page.locator(".output .vz-counter").all_inner_texts()
    assert counters[0].startswith("Step 3 of 7") and counters[1].startswith("Step 1 of 7")
    assert page.locator(".output").nth(2).locator(".vz-answer").count() == 1  # the quiz
    # boot.js runs again (an output's script run twice): nothing is mounted again
    page.add_script_tag(content=boot_script(), type="module")
    page.add_script_tag(content="globalThis.__after = true;", type="module")
    page.wait_for_function("() => globalThis.__after === true")
    settled(page)
    assert page.evaluate("() => globalThis.__mounts") == {root: 1 for root, _ in roots}
    assert page.locator(".output .vizad-stepper").count() == 3
    context.close()
    assert not page_errors.errors, "\n".join(page_errors.errors)
