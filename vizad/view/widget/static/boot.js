// boot.js, carried by each notebook output (vizad/view/widget/page.py, render/picture.py) and run
// by an exported page (vizad/view/export.py): mounts the component on every mount element of the
// page not taken yet (a JSON script element with attribute data-vizad-mount holding {root,
// data, ...options}: vizad/view/assets.py's boot_elements), each once (data-vizad-booted), however
// many outputs carry this file or run it. The component and the Graphviz module come once per
// notebook, in any output (vizad/view/sharing.py; at globalThis.vizadComponent, mount.js, and in
// element "vizad-graphviz"): an output waits for them, showing its static picture till then.

// ms after which an output still waiting says what it waits for (and goes on waiting)
const VIZAD_BOOT_PATIENCE_MS = 8000;

// Mount on element `rootId` with the data of element `dataId` once the component (and, if
// `graphviz`, the module: element `graphvizId` or a live widget's copy) is here: `picture`,
// vz.draw's; else the stepper, with mount's `options` (by default a notebook output's: replace
// the static picture, say "not connected to Python"). `mark`: the mount element.
function vizadBoot(mark, { root: rootId, data: dataId, graphviz = false, graphvizId = "vizad-graphviz", picture = false, ...options }) {
  const root = document.getElementById(rootId);
  // a root already taken: the same output shown twice in the page (two views of a notebook)
  if (!root || root.dataset.vizadBooted) return;
  const state = (value) => (root.dataset.vizadBooted = mark.dataset.vizadBooted = value);
  state("waiting");
  // the Graphviz module: an output's copy, or a live widget's (mount.js)
  const carried = () => document.getElementById(graphvizId);
  const ready = () => globalThis.vizadComponent && (!graphviz || carried() || globalThis.vizadGraphviz);
  const go = () => {
    state("mounted");
    const module = !graphviz ? {} : carried() ? { graphvizId } : { graphviz: globalThis.vizadGraphviz };
    if (picture) globalThis.vizadComponent.mountPicture(rootId, dataId, module); // vz.draw's
    else globalThis.vizadComponent.mount(rootId, dataId, { replace: true, notebook: true, ...options, ...module });
  };
  if (ready()) {
    go();
    return;
  }
  const started = Date.now();
  let said = false;
  const timer = setInterval(() => {
    if (!root.isConnected) {
      clearInterval(timer); // the output was cleared
      return;
    }
    if (ready()) {
      clearInterval(timer);
      go();
      return;
    }
    if (!said && Date.now() - started > VIZAD_BOOT_PATIENCE_MS) {
      said = true;
      const note = document.createElement("div");
      note.className = "vz-muted vz-boot-note";
      note.textContent =
        "vizad: this page has no copy of the stepper component yet (the first " +
        "walkthrough output of the notebook's run carries it): run this cell again to step here";
      root.append(note);
    }
  }, 200);
}

for (const mark of document.querySelectorAll('script[type="application/json"][data-vizad-mount]:not([data-vizad-booted])')) {
  let options = null;
  try {
    options = JSON.parse(mark.textContent);
  } catch {
    // not vizad's JSON: left alone (below)
  }
  if (options && typeof options === "object") vizadBoot(mark, options);
  else mark.dataset.vizadBooted = "unreadable";
}
