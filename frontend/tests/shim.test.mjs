// static/shim.js: the module of a Stepper widget whose model does not carry the component.
import assert from "node:assert/strict";
import { test } from "node:test";

const shim = (await import("../../vizad/view/widget/static/shim.js")).default;

function fakeModel() {
  const sent = [];
  const listeners = new Map();
  return {
    sent,
    send: (content) => sent.push(content),
    on: (event, fn) => listeners.set(event, fn),
    off: (event) => listeners.delete(event),
    listening: (event) => listeners.has(event),
  };
}

test("with the component in the page, the shim renders with it at once", async () => {
  const calls = [];
  globalThis.vizadComponent = { render: (args) => { calls.push(args); return "cleanup"; } };
  const model = fakeModel();
  const el = { isConnected: true, append() {} };
  assert.equal(await shim.render({ model, el }), "cleanup");
  assert.deepEqual(calls, [{ model, el }]);
  assert.deepEqual(model.sent, []);
  delete globalThis.vizadComponent;
});

test("without it, the shim asks the kernel, and renders once the component is loaded", async () => {
  const model = fakeModel();
  const el = { isConnected: true, append() {} };
  const rendered = shim.render({ model, el });
  await new Promise((r) => setTimeout(r, 1800));
  assert.deepEqual(model.sent, [{ kind: "component" }]);
  assert.ok(model.listening("msg:custom"));
  globalThis.vizadComponent = { render: () => "cleanup" }; // (the kernel's module sets it)
  assert.equal(await rendered, "cleanup");
  assert.ok(!model.listening("msg:custom"));
  delete globalThis.vizadComponent;
});
