"""The stepper in a MyST / Jupyter Book 2 page (issue 44, item 8): docs/myst/'s page, written by
``vizad.view.export.myst_directive`` (the lecture opening at the author's step 6), built by
mystmd from npm (its ``{anywidget}`` directive: the component's module and CSS copied to the
site, the JSON body as the widget's model), then shown in headless Chromium as the MyST theme
shows an anywidget: the module imported, ``render({model, el})`` called with the theme's
model (whose ``save_changes``, ``off`` and ``send`` throw) on an element in a shadow root with
the CSS linked. It opens at step 6 and steps by buttons and keys.

The site's HTML itself is not built: mystmd fetches its theme (book-theme) from
api.mystmd.org, which this machine and CI cannot reach, so the test builds the site's content
(``myst build --site``) with a local stand-in for the theme and plays the theme's part, as
myst-theme's packages/anywidget/src/renderers.tsx and models.ts (@myst-theme/anywidget 1.3.1)
do. Skipped without Node's npx, or when npm cannot give mystmd.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import CHROMIUM, HOW_TO_ENABLE, REPO, artifact

MYSTMD = "1.8.3"  # the newest mystmd on npm, with the {anywidget} directive
ROOT = ".vizad-stepper"
SITE = "http://myst.test"

#: What the MyST theme does with an anywidget node (myst-theme's AnyWidgetRenderer and its
#: MystAnyModel, @myst-theme/anywidget 1.3.1), reproduced: the model's state is the directive's
#: JSON; set fires change events; save_changes, off and send throw.
THEME = """async ([esm, css, state]) => {
  class MystAnyModel {
    #state; #target = new EventTarget();
    constructor(s) { this.#state = s; }
    get(name) { return this.#state[name]; }
    set(key, value) {
      this.#state[key] = value;
      this.#target.dispatchEvent(new CustomEvent(`change:${key}`, { detail: value }));
      this.#target.dispatchEvent(new CustomEvent("change", { detail: value }));
    }
    on(name, cb) { this.#target.addEventListener(name, cb); }
    off() { throw new Error("MystAnyModel.off not implemented yet."); }
    save_changes() { throw new Error("MystAnyModel.save_changes not implemented yet."); }
    send() { throw new Error("MystAnyModel.send not implemented yet."); }
  }
  const widget = (await import(esm)).default;
  const host = document.createElement("div");
  host.className = "relative w-full";
  document.body.append(host);
  const shadow = host.attachShadow({ mode: "open" });
  const el = document.createElement("div");
  const link = document.createElement("link");
  link.rel = "stylesheet";
  link.href = css;
  shadow.replaceChildren(el, link);
  await widget.render({ model: new MystAnyModel(state), el });
}"""


def _anywidgets(tree) -> list[dict]:
    """The anywidget nodes of a page's MyST tree."""
    found = []
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if node.get("type") == "anywidget":
                found.append(node)
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return found


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """docs/myst/'s site content, built by mystmd: (the page's anywidget node, the site's
    public folder)."""
    if not Path(CHROMIUM).exists():
        pytest.skip(HOW_TO_ENABLE)
    npx = shutil.which("npx")
    if npx is None:
        pytest.skip("the MyST page is built by mystmd, a Node program: Node's npx is not here")
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_page", REPO / "docs/myst/make_page.py")
    make_page = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(make_page)
    folder = tmp_path_factory.mktemp("myst")
    config = (REPO / "docs/myst/myst.yml").read_text()
    # the theme is fetched from api.mystmd.org (out of reach): a local stand-in, for the content
    assert "template: book-theme" in config
    (folder / "myst.yml").write_text(config.replace("template: book-theme", "template: ./theme"))
    (folder / "theme").mkdir()
    (folder / "theme/template.yml").write_text("jtex: v1\ntitle: stand-in\nkind: site\n")
    make_page.write(folder)
    run = subprocess.run(
        [npx, "--yes", "--package", f"mystmd@{MYSTMD}", "myst", "build", "--site"],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=600,
    )
    if run.returncode != 0 and "npm error" in run.stderr:
        pytest.skip(f"npm could not give mystmd@{MYSTMD}: {run.stderr[-400:]}")
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    (content,) = (folder / "_build/site/content").glob("*.json")
    (node,) = _anywidgets(json.loads(content.read_text())["mdast"])
    return node, folder / "_build/site/public"


def test_mystmd_reads_the_directive(built):
    node, public = built
    # the component's module and CSS copied to the site, the JSON body as the model
    assert re.fullmatch(r"/vizad-stepper-[0-9a-f]+\.mjs", node["esm"]), node["esm"]
    assert re.fullmatch(r"/vizad-stepper-[0-9a-f]+\.css", node["css"]), node["css"]
    module = (public / node["esm"].lstrip("/")).read_text()
    assert module == (REPO / "vizad/view/widget/static/stepper.bundle.js").read_text()
    model = node["model"]
    assert model["step"] == 6 and model["view"] == "adjoint" and model["connected"] is False
    assert model["data"]["n"] == 7 and set(model["data"]["frames"]) == {
        "forward",
        "adjoint",
        "backprop",
    }


def _expect_step(page, k: int) -> None:
    from playwright.sync_api import expect

    counter = page.locator(f"{ROOT} .vz-counter")
    expect(counter).to_have_text(re.compile(rf"^Step {k} of 7"), timeout=20_000)


def test_the_page_steps(built, browser, page_errors):
    node, public = built
    context = browser.new_context(viewport={"width": 1024, "height": 768})

    def site(route) -> None:  # the built site's files; nothing else
        path = route.request.url[len(SITE) :].split("?")[0].lstrip("/")
        if not path:
            route.fulfill(
                body="<!DOCTYPE html><html><body></body></html>", content_type="text/html"
            )
        elif (public / path).is_file():
            route.fulfill(path=public / path)
        else:
            route.abort()

    context.route(f"{SITE}/**", site)
    context.route(re.compile(r"^(?!http://myst\.test/|data:|blob:).*"), lambda r: r.abort())
    page = page_errors(context.new_page())
    page.goto(f"{SITE}/")
    page.evaluate(THEME, [f"{SITE}{node['esm']}", f"{SITE}{node['css']}", node["model"]])
    _expect_step(page, 6)  # the author's step
    page.locator(f"{ROOT} .vz-stage svg").wait_for()
    assert "v̄₂" in page.locator(f"{ROOT} .vz-panel").inner_text()
    page.screenshot(path=artifact("myst-1024x768.png"))
    page.locator(f"{ROOT} .vz-next").click()
    _expect_step(page, 7)
    page.locator(f"{ROOT} .vz-counter").click()
    page.keyboard.press("ArrowLeft")
    _expect_step(page, 6)
    page.keyboard.press("Home")
    _expect_step(page, 1)
    page.locator(f"{ROOT} .vz-view[data-view='forward']").click()
    page.locator(f"{ROOT} .vz-stage svg").wait_for()
    page.keyboard.press("End")
    _expect_step(page, 7)
    context.close()
    assert not page_errors.errors, page_errors.errors
