// vizad's JupyterLab / Notebook 7 renderer of a stepper's output
// (application/vnd.vizad.walkthrough+json, made by vizad/widget/stepper.py's _repr_mimebundle_).
//
// The output carries {step} (the step to open at), the widget model's id in its metadata, and
// a text/html holding the stepper component with its data. This renderer shows
//   - the live widget (ipywidgets' own view of the model, synced with Python) while the
//     notebook's widget manager holds the model: the cell ran in this kernel;
//   - otherwise that text/html, rendered by JupyterLab's own HTML renderer (which runs its
//     script in a trusted output): the same component, at the saved step, without a kernel.
// When the reader steps (the component says so with a "vizad-step" DOM event), the step is
// written into the output (the output model's setData, as Plotly's renderer does), so a saved
// notebook reopens there; showing the output never writes it (opening stays unmodified).
// No component code here: one component (vizad/widget/static/stepper/) everywhere.

import { Panel } from "@lumino/widgets";

const MIME = "application/vnd.vizad.walkthrough+json";
const WIDGET_VIEW = "application/vnd.jupyter.widget-view+json";
const HTML = "text/html";

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// The rendermime registry of the notebook (or console) holding `widget`: its output area's,
// where @jupyter-widgets/jupyterlab-manager registers the widget-view renderer bound to that
// notebook's widget manager.
function registryOf(widget) {
  for (let w = widget.parent; w; w = w.parent) if (w.rendermime) return w.rendermime;
  return null;
}

// That notebook's widget manager, if it has one now. The widget-view renderers the registry
// makes hold it (jupyterlab-manager's WidgetRenderer: a promise that stays pending until the
// kernel's manager exists); no public API gives it to another renderer.
async function widgetManager(registry) {
  if (!registry || !registry.getFactory(WIDGET_VIEW)) return null;
  const probe = registry.createRenderer(WIDGET_VIEW);
  const pending = probe._manager && probe._manager.promise;
  const manager = pending ? await Promise.race([pending, sleep(20).then(() => null)]) : null;
  probe.dispose();
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
    this.shown = null; // "page" | "live" once something shows
    this.node.addEventListener("vizad-step", (event) => this.stepped(event.detail.step));
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
    if (manager && manager.has_model(id)) {
      await this.showLive(registry, id);
      return;
    }
    await this.showPage(registry, model);
    if (id) void this.goLiveWhenRestored(registry, id);
  }

  // the widget view of the model, by the notebook's own widget-view renderer
  async showLive(registry, id) {
    const view = registry.createRenderer(WIDGET_VIEW);
    for (const w of [...this.widgets]) w.dispose();
    this.addWidget(view);
    this.shown = "live";
    await view.renderModel(mimeModel({ [WIDGET_VIEW]: { model_id: id, version_major: 2, version_minor: 1 } }, true));
  }

  // the output's HTML: the component and its data (or, untrusted, the static picture)
  async showPage(registry, model) {
    const html = model.data[HTML];
    this.shown = "page";
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
      if (!manager) continue;
      if (manager.has_model(id)) {
        await this.showLive(registry, id);
        return;
      }
      if (manager.restoredStatus) return;
    }
  }

  // the reader moved to step k: keep it in the output (a change of the notebook, as an edit)
  stepped(k) {
    const output = this.output;
    const saved = output && output.data[MIME];
    if (!saved || saved.step === k || typeof output.setData !== "function") return;
    const data = { ...output.data, [MIME]: { ...saved, step: k } };
    if (typeof data[HTML] === "string") {
      data[HTML] = data[HTML].replace(/data-vizad-step="\d+"/, `data-vizad-step="${k}"`);
    }
    output.setData({ data });
  }
}

const extension = {
  id: "vizad:walkthrough",
  description: "vizad's walkthroughs: the live stepper widget, or its saved page without a kernel",
  rendererFactory: {
    safe: false, // runs the output's own script: trusted outputs only (else text/html, sanitized)
    mimeTypes: [MIME],
    createRenderer: (options) => new WalkthroughRenderer(options),
  },
  rank: 0,
  dataType: "json",
};

export default extension;
