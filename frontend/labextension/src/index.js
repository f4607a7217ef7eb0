// vizad's JupyterLab / Notebook 7 renderer of a stepper's output
// (application/vnd.vizad.walkthrough+json, made by vizad/view/widget/stepper.py's _repr_mimebundle_).
//
// The output carries {step} (the step to open at), the widget model's id in its metadata, and
// a text/html holding the stepper component with its data. This renderer shows
//   - the live widget (ipywidgets' own view of the model, synced with Python) while the
//     notebook's widget manager holds the model: the cell ran in this kernel;
//   - otherwise that text/html, rendered by JupyterLab's own HTML renderer (which runs its
//     script in a trusted output): the same component, at the saved step, without a kernel.
// When the reader steps (the component says so with a "vizad-step" DOM event), the step is
// written into the output (the output model's setData, as Plotly's renderer does), so a saved
// notebook reopens there, and so is the HTML's static picture of it (the component's own
// snapshot), which GitHub shows; showing the output never writes (opening stays unmodified).
// No component code here: one component (vizad/view/widget/static/stepper/) everywhere.

import { Panel } from "@lumino/widgets";

const MIME = "application/vnd.vizad.walkthrough+json";
const WIDGET_VIEW = "application/vnd.jupyter.widget-view+json";
const HTML = "text/html";
const SVG = "image/svg+xml";

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// The rendermime registry of the notebook (or console) holding `widget`: its output area's,
// where @jupyter-widgets/jupyterlab-manager registers the widget-view renderer bound to that
// notebook's widget manager.
function registryOf(widget) {
  for (let w = widget.parent; w; w = w.parent) if (w.rendermime) return w.rendermime;
  return null;
}

// That notebook's widget manager, if it has one now; UNSUPPORTED if the widget-view renderer
// is not the one vizad knows. The widget-view renderers the registry makes hold the manager
// in a private field (jupyterlab-manager's WidgetRenderer `_manager`: a promise that stays
// pending until the kernel's manager exists); no public API gives it to another renderer.
// Supported: @jupyter-widgets/jupyterlab-manager 5.x (ipywidgets 8), the range pinned in
// package.json's "vizad" field and pyproject.toml (tested with 5.0.16); where the field is
// missing, vizad shows the output's HTML: the component, saying "not connected to Python".
const UNSUPPORTED = "unsupported";
async function widgetManager(registry) {
  if (!registry || !registry.getFactory(WIDGET_VIEW)) return null;
  const probe = registry.createRenderer(WIDGET_VIEW);
  // a test hook: a page can hide the field, as a widget manager without it would
  const field = globalThis.__vizadHideManagerField ? undefined : probe._manager;
  const pending = field && typeof field.promise?.then === "function" ? field.promise : null;
  const manager = pending ? await Promise.race([pending, sleep(20).then(() => null)]) : null;
  probe.dispose();
  if (!pending) return UNSUPPORTED;
  return manager && typeof manager.has_model === "function" ? manager : null;
}

// a MIME model of our own making for a renderer we delegate to
const mimeModel = (data, trusted) => ({ data, metadata: {}, trusted, setData() {} });

class WalkthroughRenderer extends Panel {
  constructor(options) {
    super();
    this.mimeType = options.mimeType;
    this.addClass("vizad-walkthrough");
    this.output = null; // the output's model (setData writes the step into the notebook)
    this.shown = null; // "page" | "live" once something shows (also the node's data-shown)
    this.node.addEventListener("vizad-step", (event) => this.stepped(event.detail));
  }

  async renderModel(model) {
    this.output = model;
    // Called again after our own setData (the output changed): what shows is already right.
    if (this.shown) return;
    this.shown = "starting";
    await sleep(0); // the output area inserts the renderer right after calling this
    const registry = registryOf(this);
    const id = ((model.metadata || {})[MIME] || {}).model_id;
    const manager = id ? await widgetManager(registry) : null;
    if (manager && manager !== UNSUPPORTED && manager.has_model(id)) {
      await this.showLive(registry, id);
      return;
    }
    await this.showPage(registry, model);
    if (id && manager !== UNSUPPORTED) void this.goLiveWhenRestored(registry, id);
  }

  // the widget view of the model, by the notebook's own widget-view renderer (as a plain
  // widget output: it stays, unsynced, after a kernel restart; it goes when the widget closes)
  async showLive(registry, id) {
    const view = registry.createRenderer(WIDGET_VIEW);
    for (const w of [...this.widgets]) w.dispose();
    this.addWidget(view);
    this.shown = this.node.dataset.shown = "live";
    await view.renderModel(mimeModel({ [WIDGET_VIEW]: { model_id: id, version_major: 2, version_minor: 1 } }, true));
  }

  // the output's HTML: the component and its data (or, untrusted, the static picture)
  async showPage(registry, model) {
    const html = model.data[HTML];
    this.shown = this.node.dataset.shown = "page";
    if (typeof html !== "string") return;
    if (!registry) {
      this.node.textContent = "vizad: this walkthrough cannot be shown here";
      return;
    }
    const view = registry.createRenderer(HTML);
    this.addWidget(view);
    await view.renderModel(mimeModel({ [HTML]: html }, model.trusted));
  }

  // A page reloaded while its kernel still runs: the manager restores the kernel's widget
  // models a few seconds after the outputs show. Switch to the live widget if ours is there.
  async goLiveWhenRestored(registry, id) {
    for (let tries = 0; tries < 120 && !this.isDisposed && this.shown === "page"; tries++) {
      await sleep(500);
      const manager = await widgetManager(registry);
      if (manager === UNSUPPORTED) return;
      if (!manager) continue;
      if (manager.has_model(id)) {
        await this.showLive(registry, id);
        return;
      }
      if (manager.restoredStatus) return;
    }
  }

  // The reader moved to step k: keep it in the output (a change of the notebook, as an edit),
  // and, once the reader stops, the static picture of that step in its HTML.
  stepped({ step: k, snapshot }) {
    const saved = this.savedStep();
    if (saved === null || saved === k) return;
    this.write(k, (html) => html.replace(/data-vizad-step="\d+"/, `data-vizad-step="${k}"`));
    clearTimeout(this.pictureTimer);
    this.pictureTimer = setTimeout(() => {
      const parts = !this.isDisposed && this.savedStep() === k && snapshot();
      if (parts) this.write(k, (html) => withSnapshot(html, parts), parts.svg);
    }, SNAPSHOT_DELAY);
  }

  savedStep() {
    const output = this.output;
    const saved = output && typeof output.setData === "function" && output.data[MIME];
    return saved ? saved.step : null;
  }

  write(k, edit, picture = null) {
    const data = { ...this.output.data, [MIME]: { ...this.output.data[MIME], step: k } };
    if (typeof data[HTML] === "string") data[HTML] = edit(data[HTML]);
    if (picture && typeof data[SVG] === "string") data[SVG] = picture; // GitHub's picture
    this.output.setData({ data });
  }
}

// ms after the last step before the picture is made (restyled SVG text, base64: not per key)
const SNAPSHOT_DELAY = 400;

// The output's HTML with its static picture (vizad/view/widget/page.py's snapshot: the element
// after the root's data-vizad-step attribute, up to the data's script) showing `svg` and
// `panel`; unchanged if it has no such picture (a walkthrough laid out in the browser).
function withSnapshot(html, { svg, panel }) {
  const at = html.search(/data-vizad-step="\d+">/);
  const start = at < 0 ? -1 : html.indexOf(">", at) + 1;
  const end = at < 0 ? -1 : html.indexOf('</div><script type="application/json"', start);
  if (end < 0) return html;
  const picture = document.createElement("template");
  picture.innerHTML = html.slice(start, end);
  const img = picture.content.querySelector('img[src^="data:image/svg+xml"]');
  const old = picture.content.querySelector(".vz-panel");
  if (!img || !old) return html;
  img.setAttribute("src", `data:image/svg+xml;base64,${base64(svg)}`);
  const fresh = document.createElement("template");
  fresh.innerHTML = panel;
  old.replaceWith(...fresh.content.childNodes);
  return html.slice(0, start) + picture.innerHTML + html.slice(end);
}

function base64(text) {
  const bytes = new TextEncoder().encode(text);
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

const extension = {
  id: "vizad:walkthrough",
  description: "vizad's walkthroughs: the live stepper widget, or its saved page without a kernel",
  rendererFactory: {
    safe: false, // runs the output's own script: trusted outputs only (else text/html, sanitized)
    mimeTypes: [MIME],
    createRenderer: (options) => new WalkthroughRenderer(options),
  },
  // before the widget manager's renderer (rank -10): an output that also carries the
  // widget-view MIME type (made for VS Code or Colab) shows here through this renderer (the
  // live widget, or the saved page), never "model not found"
  rank: -20,
  dataType: "json",
};

export default extension;
