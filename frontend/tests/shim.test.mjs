// static/shim.js: the module of a Stepper widget whose model does not carry the component.
import assert from "node:assert/strict";
import { test } from "node:test";

const shim = (await import("../../vizad/view/widget/static/shim.js")).default;
const CLASS = "vizad.view.widget.stepper.Stepper"; // anywidget's id of the widget class

// a page's head of style elements, enough for the shim
function fakeDocument(styles) {
  return {
    head: { append: (e) => styles.push(e) },
    createElement: () => ({}),
    getElementById: (id) => styles.find((e) => e.id === id) ?? null,
    querySelectorAll: () => styles,
  };
}

function fakeModel() {
  const sent = [];
  const listeners = new Map();
  return {
    sent,
    get: (name) => (name === "_anywidget_id" ? CLASS : undefined),
    send: (content) => sent.push(content),
    on: (event, fn) => listeners.set(event, fn),
    off: (event) => listeners.delete(event),
    tell: (msg) => listeners.get("msg:custom")?.(msg),
    listening: (event) => listeners.has(event),
  };
}

test("with the component and its CSS in the page, the shim renders with it at once", async () => {
  globalThis.document = fakeDocument([{ id: CLASS, textContent: ".vizad-stepper{}" }]);
  const calls = [];
  globalThis.vizadComponent = {
    render: (args) => {
      calls.push(args);
      return "cleanup";
    },
  };
  const model = fakeModel();
  const el = { isConnected: true, append() {} };
  assert.equal(await shim.render({ model, el }), "cleanup");
  assert.deepEqual(calls, [{ model, el }]);
  assert.deepEqual(model.sent, []);
  delete globalThis.vizadComponent;
});

test("without its CSS, the shim asks the kernel, puts the CSS in the page, then renders", async () => {
  const styles = [];
  globalThis.document = fakeDocument(styles);
  globalThis.vizadComponent = { render: () => "cleanup" }; // (an output's HTML loaded it)
  const model = fakeModel();
  const el = { isConnected: true, append() {} };
  const rendered = shim.render({ model, el });
  await new Promise((r) => setTimeout(r, 1800));
  assert.deepEqual(model.sent, [{ kind: "component" }]);
  model.tell({ kind: "component", module: "export default {};", css: ".vizad-stepper{}" });
  assert.equal(await rendered, "cleanup");
  assert.deepEqual(styles, [{ id: "vizad-stepper-style", textContent: ".vizad-stepper{}" }]);
  assert.ok(!model.listening("msg:custom"));
  delete globalThis.vizadComponent;
});

test("without the component, the shim asks the kernel and renders once it is loaded", async () => {
  globalThis.document = fakeDocument([{ id: CLASS, textContent: ".vizad-stepper{}" }]);
  const model = fakeModel();
  const el = { isConnected: true, append() {} };
  const rendered = shim.render({ model, el });
  await new Promise((r) => setTimeout(r, 1800));
  assert.deepEqual(model.sent, [{ kind: "component" }]);
  globalThis.vizadComponent = { render: () => "cleanup" }; // (as the kernel's module sets it)
  assert.equal(await rendered, "cleanup");
  delete globalThis.vizadComponent;
});
