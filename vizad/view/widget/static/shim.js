// shim.js: the module of every Stepper widget of a kernel process but the one that carries the
// component (vizad/view/widget/stepper.py's carries_component): the component (~130 kB) and its
// CSS are sent once per process, not stored again in each widget model of a notebook (nbclient
// stores every model's state). This module renders with the component already loaded in the
// page: globalThis.vizadComponent, set by the module of the widget that carries it (anywidget
// loads a model's module when the model is made, shown or not) or by a notebook output that
// carries it (static/boot.js), with its CSS (the carrier's, kept by anywidget in the page's
// head). Either not there after a moment (that widget was closed, or a page shows this model
// alone), it asks the kernel for the component and its CSS; without a kernel it says what to
// do, and goes on waiting.

const ASK_AFTER_MS = 1500; // then the kernel is asked for the component
const SAY_AFTER_MS = 8000; // then a widget still waiting says what it waits for
const POLL_MS = 100;
const STYLE_ID = "vizad-stepper-style"; // the CSS the kernel sent, once per page

const loaded = () => (globalThis.vizadComponent?.render ? globalThis.vizadComponent : null);

// whether the component's CSS is in the page: the carrier model's (anywidget keeps a model's
// `_css` in a style element whose id is the widget class's, `_anywidget_id`) or the kernel's
function styled(model) {
  if (document.getElementById(STYLE_ID)) return true;
  const id = model.get("_anywidget_id");
  return Boolean(id && [...document.querySelectorAll("style")].some((e) => e.id === id && e.textContent));
}

// The component, once loaded and styled (by the carrier widget, an output, or from the kernel's
// answer).
function component(model, el) {
  return new Promise((resolve) => {
    let asked = false;
    let note = null;
    const started = Date.now();
    const onMessage = (msg) => {
      if (!msg || msg.kind !== "component" || typeof msg.module !== "string") return;
      model.off?.("msg:custom", onMessage);
      if (!styled(model) && typeof msg.css === "string") {
        const style = document.createElement("style");
        style.id = STYLE_ID;
        style.textContent = msg.css;
        document.head.append(style);
      }
      if (loaded()) return;
      const url = URL.createObjectURL(new Blob([msg.module], { type: "text/javascript" }));
      import(/* webpackIgnore: true */ url).finally(() => URL.revokeObjectURL(url)); // sets vizadComponent
    };
    const timer = setInterval(() => {
      const found = loaded();
      if (found && styled(model)) {
        clearInterval(timer);
        model.off?.("msg:custom", onMessage);
        note?.remove();
        resolve(found);
        return;
      }
      const waited = Date.now() - started;
      if (waited > SAY_AFTER_MS && !el.isConnected) { // the output was cleared
        clearInterval(timer);
        model.off?.("msg:custom", onMessage);
        return;
      }
      if (!asked && waited > ASK_AFTER_MS && typeof model.send === "function") {
        asked = true;
        model.on("msg:custom", onMessage);
        try {
          model.send({ kind: "component" });
        } catch {
          // no kernel (a model restored from a notebook's widget state): the note below
        }
      }
      if (!note && waited > SAY_AFTER_MS) {
        note = document.createElement("div");
        note.className = "vz-muted vz-boot-note";
        note.textContent =
          "vizad: waiting for the stepper component, which the first walkthrough of the " +
          "notebook's run carries: run this cell again to step here";
        el.append(note);
      }
    }, POLL_MS);
  });
}

async function render({ model, el }) {
  const found = loaded() && styled(model) ? loaded() : await component(model, el);
  return found.render({ model, el });
}

export default { render };
