// helpers.js: the first part of vizad's stepper, one browser component for the notebook widget
// (anywidget), the exported page and saved notebooks. Python sends the walkthrough once
// (`data`: every view's laid-out SVG, the step that computes each box, each step's highlights
// and panel); stepping restyles the SVG by id here, without asking the kernel. The synced
// `step` (1-based) is the one shared piece of state. The component holds no maths: everything
// it shows was prepared in Python. Without the `dot` program in Python, a view comes as DOT
// source and is laid out here, once, by Graphviz compiled to WebAssembly (graphviz.js, whose
// text comes with the data). The same module shows a single drawing laid out that way
// (`picture`).
//
// The component is the ES modules of this folder, each importing what it uses from the others;
// mount.js is the entry. esbuild bundles them (`make component`, frontend/build-component.mjs)
// into the one committed module vizad/view/widget/static/stepper.bundle.js that Python sends, so
// users and CI need no Node. This one: small helpers every part uses.

// The JSON text that Python gzip-compressed and base64-encoded (vizad/view/widget/page.py's
// packed_json), parsed: a promise.
export function inflateJson(b64) {
  const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  return new Response(stream).json();
}

export function h(tag, attrs = {}, children = []) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "text") e.textContent = v;
    else if (k === "class") e.className = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const c of children) e.append(c);
  return e;
}

// A quiz's encoded text (vizad/view/widget/data.py's conceal): base64 of UTF-8 XOR a key
// that depends on `salt`.
export function reveal(code, salt) {
  const bytes = Uint8Array.from(atob(code), (c) => c.charCodeAt(0));
  for (let j = 0; j < bytes.length; j++) bytes[j] ^= (31 + 7 * salt + 13 * j) % 251;
  return new TextDecoder().decode(bytes);
}

export function clamp(x, lo, hi) {
  return Math.max(lo, Math.min(hi, x));
}

export const busy = (text) => h("div", { class: "vz-busy", role: "status", text });
