// worker.js: layout off the page's main thread. Graphviz compiled to WebAssembly runs in a Web
// Worker made from a Blob (the worker's few lines below, and the Graphviz module's text that
// the page already carries, posted to it): a long layout leaves the notebook, or the exported
// page, usable meanwhile, and a layout that runs too long is abandoned by ending its worker.
// Workers are kept for the next layout while idle; one busy with a layout is never shared.

import { h } from "./helpers.js";
import { importGraphviz, layOut } from "./layout.js";

//: a layout still running after this long is abandoned (its worker ended), with a message
const LAYOUT_LIMIT_MS = 180_000;
const IDLE_WORKERS = 2; // idle workers kept per Graphviz module

// eslint-disable-next-line no-restricted-syntax -- finds the SVG element in Graphviz's output
const WORKER_SOURCE = `
let graphviz = null;
onmessage = async ({ data }) => {
  if (data.module !== undefined) {
    const url = URL.createObjectURL(new Blob([data.module], { type: "text/javascript" }));
    graphviz = import(url);
    graphviz.then((g) => g.version()).catch(() => {}); // compiled now, before a layout is asked
    return;
  }
  try {
    const g = await graphviz;
    await g.version(); // WebAssembly compiled once per worker, before the timing
    const start = performance.now();
    const svg = await g.layout(data.source);
    postMessage({ svg: svg.slice(svg.indexOf("<svg")), ms: performance.now() - start });
  } catch (err) {
    postMessage({ error: String((err && err.message) || err) });
  }
};`;

const layoutWorkers = (globalThis.__vizadLayoutWorkers ??= { script: null, idle: new Map() });

function takeWorker(text) {
  const idle = layoutWorkers.idle.get(text);
  if (idle && idle.length) return idle.pop();
  layoutWorkers.script ??= URL.createObjectURL(new Blob([WORKER_SOURCE], { type: "text/javascript" }));
  // a classic worker (a module worker from a Blob fails in Chromium) importing the module
  const worker = new Worker(layoutWorkers.script, { name: "vizad layout" });
  worker.postMessage({ module: text });
  return worker;
}

function giveBack(text, worker) {
  const idle = layoutWorkers.idle.get(text) || [];
  if (idle.length >= IDLE_WORKERS) { worker.terminate(); return; }
  idle.push(worker);
  layoutWorkers.idle.set(text, idle);
}

// A worker made ready for the next layout with the Graphviz module `text` (its WebAssembly
// compiled meanwhile), when none is idle: a box opened later is laid out without that wait
export function warmWorker(text) {
  if (!text || layoutWorkers.idle.get(text)?.length) return;
  try {
    giveBack(text, takeWorker(text));
  } catch {
    // a page that allows no worker lays out on the main thread, when asked
  }
}

// A layout stopped before it finished (by the person, or after LAYOUT_LIMIT_MS)
class LayoutStopped extends Error {
  constructor(reason, ms) {
    super(`the layout was ${reason} after ${Math.round(ms / 1000)} s`);
    this.name = "LayoutStopped";
  }
}

// Lay out DOT `source` with the Graphviz module `text` in a worker: a job whose `promise`
// gives { svg, ms, thread } and whose `stop()` abandons it (ending the worker; the promise
// fails with a LayoutStopped). Where a page allows no worker, the layout runs on the main
// thread (the page waits) and says so (`thread: "main"`).
export function layOutOffThread(text, source, { limit = LAYOUT_LIMIT_MS } = {}) {
  const started = performance.now();
  const job = { started, stop() {} };
  if (!text) {
    job.promise = importGraphviz(text);
    return job;
  }
  let worker;
  try {
    worker = takeWorker(text);
  } catch (err) {
    job.promise = layOut(text, source).then((r) => ({ ...r, thread: "main" }));
    return job;
  }
  job.promise = new Promise((resolve, reject) => {
    let open = true;
    const finish = (settle, value, keep) => {
      if (!open) return;
      open = false;
      clearTimeout(timer);
      worker.onmessage = worker.onerror = null;
      if (keep) giveBack(text, worker);
      else worker.terminate();
      settle(value);
    };
    const stopped = (reason) => new LayoutStopped(reason, performance.now() - started);
    const timer = setTimeout(() => finish(reject, stopped("abandoned: it ran too long"), false), limit);
    job.stop = () => finish(reject, stopped("stopped"), false);
    worker.onmessage = ({ data }) => {
      if (data.error) finish(reject, new Error(data.error), true);
      else finish(resolve, { svg: data.svg, ms: data.ms, thread: "worker" }, true);
    };
    worker.onerror = (e) => {
      e.preventDefault();
      finish(reject, new Error(e.message || "the layout worker failed"), false);
    };
    worker.postMessage({ source });
  });
  return job;
}

// The note over a view while `job` lays it out: what is laid out, the seconds so far, and a
// button that abandons it. The notebook and the page stay usable meanwhile.
export function busyNote(text, job) {
  const clock = h("span", { class: "vz-busy-clock" });
  const note = h("div", { class: "vz-busy", role: "status" }, [
    h("span", { text: `${text} ` }), clock,
    h("button", { class: "vz-busy-stop", title: "abandon this layout", text: "stop", onclick: () => job.stop() }),
  ]);
  note.addEventListener("pointerdown", (e) => e.stopPropagation()); // a click, not the view's pan
  const tick = () => {
    if (!note.isConnected && performance.now() - job.started > 1000) { clearInterval(timer); return; }
    clock.textContent = `${Math.floor((performance.now() - job.started) / 1000)} s`;
  };
  const timer = setInterval(tick, 1000);
  tick();
  job.promise.finally(() => clearInterval(timer)).catch(() => {});
  return note;
}
