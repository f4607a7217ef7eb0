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
      const parts = !this.isDisposed && this.savedStep() === k && this.pictureParts(snapshot());
      if (parts) this.write(k, (html) => withSnapshot(html, parts), parts.svg);
    }, SNAPSHOT_DELAY);
  }

  // The picture's parts of the step shown (`shot`: the component's snapshot, null while a
  // quiz asks): its SVG text, the style that keeps its text readable (from the drawing
  // shown), and the step's panel, whose elements the component built from data.
  pictureParts(shot) {
    const drawing = this.node.querySelector(".vizad-stepper .vz-stage svg");
    const panel = this.node.querySelector(".vizad-stepper .vz-step-panel");
    if (!shot || !drawing || !panel || !panel.firstElementChild) return null;
    return { svg: shot.svg, style: pictureStyle(drawing), panel: [...panel.children] };
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

// What the picture says of itself, as vizad/view/widget/snapshot.py's STATIC_NOTE (a test
// checks they are the same text), and the sizes of its picture (the same rule as
// snapshot.py's picture_style: READABLE_PX, FRAME_STYLE).
const STATIC_NOTE =
  "A static picture of this step. To step through it, run the cell (the live stepper shows), " +
  "or trust the notebook and reopen it: Trust Notebook in Notebook 7's File menu or in " +
  "JupyterLab's command palette (Ctrl+Shift+C), or `jupyter trust notebook.ipynb` (its file " +
  "name) in a terminal.";
const READABLE_PX = 9;
const FRAME_STYLE = "overflow:auto;max-height:560px";

// The style of the picture's image of the drawing `svg` (the SVG element shown, sized in CSS
// px): as wide as the output, but never so narrow that its smallest text is under
// READABLE_PX (then the frame scrolls), nor wider than its natural size unless its text needs it.
function pictureStyle(svg) {
  const natural = svg.width.baseVal.value;
  const tall = svg.height.baseVal.value;
  const box = svg.viewBox.baseVal;
  const sizes = [...svg.querySelectorAll("text[font-size]")].map((t) => parseFloat(t.getAttribute("font-size")));
  if (!natural || !tall || !box || !box.width || !box.height || !sizes.length) return "max-width:100%;height:auto";
  const graph = svg.querySelector("g[transform^='scale(']");
  const scale = graph ? parseFloat(graph.getAttribute("transform").slice(6)) || 1 : 1;
  const unit = Math.min(natural / box.width, tall / box.height) * scale;
  const least = Math.ceil((natural * READABLE_PX) / (Math.min(...sizes) * unit) - 1e-9);
  return `width:100%;min-width:${least}px;max-width:${Math.max(least, Math.ceil(natural))}px;height:auto`;
}

// an element made with DOM calls: attributes set as attributes, children as nodes or text
function element(tag, attributes = {}, children = []) {
  const e = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) e.setAttribute(name, value);
  e.append(...children);
  return e;
}

// The static picture of a step, as snapshot.py's snapshot_html builds it: the title, the
// drawing as an image in a frame that scrolls, the step's panel (copies of the component's
// elements), the note. Text is set as text; nothing is parsed.
function staticPicture({ title, svg, style, panel }) {
  const image = element("img", { alt: title, style, src: `data:image/svg+xml;base64,${base64(svg)}` });
  return element("div", { class: "vizad-stepper" }, [
    element("div", { class: "vz-title" }, [title]),
    element("div", { class: "vz-picture", style: FRAME_STYLE }, [image]),
    ...panel.map((e) => e.cloneNode(true)),
    element("div", { class: "vz-muted vz-trust" }, [STATIC_NOTE]),
  ]);
}

// The picture's title as snapshot.py wrote it (ElementTree escapes &, < and > in text):
// read from the markup, set as text.
function titleOf(picture) {
  const found = /class="vz-title">([^<]*)</.exec(picture);
  const entities = { "&lt;": "<", "&gt;": ">", "&quot;": '"', "&#39;": "'", "&amp;": "&" };
  return found ? found[1].replace(/&(?:lt|gt|quot|#39|amp);/g, (e) => entities[e]) : "";
}

// The output's HTML with its static picture (vizad/view/widget/page.py's snapshot: the element
// after the root's data-vizad-step attribute, up to the data's script) made again for the
// step shown (`parts`: pictureParts's); unchanged if it has no such picture (a walkthrough laid
// out in the browser). The new picture is built with DOM calls and serialised.
function withSnapshot(html, { svg, style, panel }) {
  const at = html.search(/data-vizad-step="\d+">/);
  const start = at < 0 ? -1 : html.indexOf(">", at) + 1;
  const tail = start < 0 ? -1 : html.slice(start).search(/<\/div><script type="application\/json"/);
  if (tail < 0) return html;
  const end = start + tail;
  const old = html.slice(start, end);
  if (!/<img [^>]*src="data:image\/svg\+xml;base64,/.test(old)) return html;
  const picture = staticPicture({ title: titleOf(old), svg, style, panel });
  return html.slice(0, start) + picture.outerHTML + html.slice(end);
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
