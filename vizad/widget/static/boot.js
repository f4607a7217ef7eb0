// boot.js: the few lines each notebook output's HTML carries (vizad/widget/page.py's
// fragment, vizad/render/picture.py's picture) instead of the whole component, and which an
// exported page (vizad/export.py) runs after it. It mounts the component on every mount
// element of the page not mounted yet: a JSON script element (type application/json) with the
// attribute data-vizad-mount, holding {root, data, ...options} (vizad/assets.py's boot_elements), the ids of the element
// to mount on and of its data, and how to mount. Python writes no JavaScript: only this file
// and the component's run. Each mount element is taken once (data-vizad-booted: "waiting",
// then "mounted"), so an output whose script runs twice, or a notebook whose outputs each
// carry this file, mounts each output exactly once.
//
// The component (static/stepper/) and, for graphs laid out in the browser, the Graphviz
// module are carried once per notebook: by the first walkthrough output of a run
// (vizad/sharing.py); the component, loaded by that output or by a live widget, puts itself
// at globalThis.vizadComponent (mount.js), and the carrying output holds the module's text in
// the element with id "vizad-graphviz". Each output waits for what it needs, whichever output
// brings it (outputs render in any order: a later output that carries the component wakes the
// ones waiting), then mounts the component on its own data; until then it shows its static
// picture, and says so if nothing brings the component.

// ms after which an output still waiting says what it waits for (and goes on waiting)
const VIZAD_BOOT_PATIENCE_MS = 8000;

// Mount the component on element `rootId` with the data of element `dataId` once the
// component (and, if `graphviz`, the Graphviz module's text in element `graphvizId`, or a live
// widget's copy) is in the page: `picture`, vz.draw's picture; else the stepper, with the
// component's mount `options` (a notebook output's by default: it replaces the static
// picture and says it is not connected to Python). `mark`: the mount element, marked too.
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
