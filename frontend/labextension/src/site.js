// vizad's note on a JupyterLite site (make site, tools/build-site) whose Python kernel did not
// start: JupyterLab itself shows only a red ⊗ and "Unknown" in the status bar. The Pyodide
// kernel loads Pyodide from its CDN (unless the site was built with its own copy); where that
// is blocked or offline the kernel never starts and the page says nothing. This plugin puts
// a note above each open notebook saying why (what failed to load) and what to do, and takes
// it away once a kernel is running. It does nothing outside JupyterLite (the page's
// jupyter-config-data names the app). Elements are made with DOM calls, text set as text.

import { Widget } from "@lumino/widgets";

const NOTE_CLASS = "vz-kernel-note";
// kernel states that say the kernel runs (the note goes away)
const RUNNING = new Set(["idle", "busy"]);

// whether this page is a JupyterLite site (its merged configuration, in the page)
function isLite() {
  const config = document.getElementById("jupyter-config-data");
  try {
    return JSON.parse((config && config.textContent) || "{}").appName === "JupyterLite";
  } catch {
    return false;
  }
}

// what a page error says of the kernel's start, if it is about it (Pyodide's): the address
// that did not load, or the error's text
function kernelFailure(reason) {
  const text = String((reason && (reason.message || reason.reason)) || reason || "");
  if (!/pyodide/i.test(text)) return null;
  const address = /https?:\/\/[^\s"')]*/.exec(text);
  return address ? address[0] : text;
}

function element(tag, style, children = []) {
  const e = document.createElement(tag);
  if (style) e.setAttribute("style", style);
  e.append(...children);
  return e;
}

// The note's elements: why the kernel did not start, what to do, and what works without it.
function noteNode(why) {
  const what = why.startsWith("http")
    ? ["Pyodide, the Python that runs in this page, could not be loaded from ", element("code", "", [why]),
       " (no network, or a firewall, proxy or browser extension blocks that address)."]
    : [`The kernel stopped while starting (${why}).`];
  const node = element("div", "padding:6px 12px;border-bottom:1px solid #d55e00;background:#fff4e5;color:#1a1a1a;font-size:13px;line-height:1.5", [
    element("b", "", ["The Python kernel did not start. "]),
    ...what,
    element("br"),
    "What to do: check the connection, then reload the page. (A course site that must work " +
      "offline is built with its own copy of Pyodide: make site PYODIDE=pyodide-*.tar.bz2.) " +
      "The saved walkthroughs below step without a kernel; running cells needs it.",
  ]);
  node.className = NOTE_CLASS;
  node.setAttribute("role", "alert"); // said once by screen readers when it shows
  return node;
}

function watch(app) {
  let failure = null; // why the kernel did not start, once a page error said so
  const notes = new Map(); // notebook panel → its note (a widget in its content header)
  const watched = new WeakSet();

  const running = (panel) => RUNNING.has(panel.sessionContext.session?.kernel?.status);
  const show = (panel, why) => {
    if (notes.has(panel) || panel.isDisposed || !panel.contentHeader || running(panel)) return;
    const inner = noteNode(why);
    const note = new Widget();
    note.node.append(inner);
    notes.set(panel, note);
    panel.contentHeader.addWidget(note);
    // the header's box layout gives a widget its minimum height: the note's text, as wrapped
    const sized = new ResizeObserver(() => {
      note.node.style.minHeight = `${inner.offsetHeight}px`;
      panel.contentHeader.fit();
      panel.fit();
    });
    sized.observe(inner);
    note.disposed.connect(() => sized.disconnect());
  };
  const hide = (panel) => {
    const note = notes.get(panel);
    notes.delete(panel);
    if (note) note.dispose();
  };
  const follow = (panel) => {
    if (watched.has(panel) || !panel.sessionContext || !panel.contentHeader) return;
    watched.add(panel);
    panel.sessionContext.statusChanged.connect((_, status) => {
      if (RUNNING.has(status)) hide(panel);
      else if (status === "dead") show(panel, failure || "its status is dead");
    });
    panel.disposed.connect(() => notes.delete(panel));
    if (failure) show(panel, failure);
  };
  const panels = () => [...app.shell.widgets("main")].filter((w) => w.sessionContext);
  const update = () => panels().forEach(follow);
  const failed = (reason) => {
    const why = kernelFailure(reason);
    if (!why || failure) return;
    failure = why;
    for (const panel of panels()) {
      follow(panel);
      show(panel, why);
    }
  };
  window.addEventListener("unhandledrejection", (event) => failed(event.reason));
  window.addEventListener("error", (event) => failed(event.error || event.message));
  app.shell.layoutModified?.connect(update);
  app.shell.currentChanged?.connect(update);
  void app.restored.then(update);
}

const plugin = {
  id: "vizad:site-kernel-note",
  description: "On a JupyterLite site: says why the Python kernel did not start and what to do",
  autoStart: true,
  activate: (app) => {
    if (isLite()) watch(app);
  },
};

export default plugin;
