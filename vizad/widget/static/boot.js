// boot.js: the few lines each notebook output's HTML carries (vizad/widget/page.py's
// fragment) instead of the whole component. The component (static/stepper/) and, for graphs
// laid out in the browser, the Graphviz module are carried once per notebook: by the first
// walkthrough output of a run (vizad/sharing.py); the component, loaded by that output
// or by a live widget, puts itself at globalThis.vizadComponent (mount.js), and the carrying
// output holds the module's text in the element with id "vizad-graphviz".
// Each output waits for what it needs, whichever output brings it (outputs render in any
// order), then mounts the component on its own data; until then it shows its static
// picture, and says so if nothing brings the component.

// ms after which an output still waiting says what it waits for (and goes on waiting)
const VIZAD_BOOT_PATIENCE_MS = 8000;

function vizadBoot(rootId, dataId, { graphviz = false, focus = false, picture = false } = {}) {
  const root = document.getElementById(rootId);
  if (!root || root.dataset.vizadBooted) return;
  root.dataset.vizadBooted = "waiting";
  // the Graphviz module: an output's copy, or a live widget's (mount.js)
  const carried = () => document.getElementById("vizad-graphviz");
  const ready = () => globalThis.vizadComponent && (!graphviz || carried() || globalThis.vizadGraphviz);
  const go = () => {
    root.dataset.vizadBooted = "mounted";
    const module = !graphviz ? {} : carried() ? { graphvizId: "vizad-graphviz" } : { graphviz: globalThis.vizadGraphviz };
    if (picture) globalThis.vizadComponent.mountPicture(rootId, dataId, module); // vz.draw's
    else globalThis.vizadComponent.mount(rootId, dataId, { replace: true, focus, notebook: true, ...module });
  };
  if (ready()) { go(); return; }
  const started = Date.now();
  let said = false;
  const timer = setInterval(() => {
    if (!root.isConnected) { clearInterval(timer); return; } // the output was cleared
    if (ready()) { clearInterval(timer); go(); return; }
    if (!said && Date.now() - started > VIZAD_BOOT_PATIENCE_MS) {
      said = true;
      const note = document.createElement("div");
      note.className = "vz-muted vz-boot-note";
      note.textContent = "vizad: this page has no copy of the stepper component yet (the first " +
        "walkthrough output of the notebook's run carries it): run this cell again to step here";
      root.append(note);
    }
  }, 200);
}
