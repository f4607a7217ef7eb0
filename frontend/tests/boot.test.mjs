// static/boot.js, run as the page runs it (an ES module evaluated once per output that carries
// it), on a few lines of document: it mounts every mount element exactly once, however many
// times it runs, and the outputs that wait for the component mount when a later output brings
// it. The real DOM (its selector, JupyterLab's outputs) is exercised by tests/browser/.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

const BOOT = readFileSync(
  new URL("../../vizad/view/widget/static/boot.js", import.meta.url),
  "utf8",
);
let runs = 0;
// one more evaluation of boot.js as an ES module (a distinct module each time, as each
// output's inline module script is; a data: URL, as Node caches a file's module by its path)
const runBoot = () =>
  import(`data:text/javascript,${encodeURIComponent(`${BOOT}\n// run ${++runs}`)}`);

// a document of mount elements (JSON script elements with data-vizad-mount) and their roots
function page(mounts) {
  const elements = new Map();
  const scripts = mounts.map((options) => {
    elements.set(options.root, { dataset: {}, isConnected: true, append() {} });
    return {
      dataset: {},
      textContent: JSON.stringify(options),
      attributes: { "data-vizad-mount": "" },
    };
  });
  globalThis.document = {
    getElementById: (id) => elements.get(id) ?? null,
    // what the selector asks for: the mount elements not taken yet
    querySelectorAll(selector) {
      assert.match(selector, /data-vizad-mount.*:not\(\[data-vizad-booted\]\)/);
      return scripts.filter((s) => !("vizadBooted" in s.dataset));
    },
    createElement: () => ({}),
  };
  return { elements, scripts };
}

function component() {
  const calls = [];
  globalThis.vizadComponent = {
    mount: (root, data, options) => calls.push({ root, data, options }),
    mountPicture: (root, data, options) => calls.push({ root, data, options, picture: true }),
  };
  return calls;
}

const until = async (ok) => {
  for (let i = 0; i < 200 && !ok(); i++) await new Promise((r) => setTimeout(r, 50));
};

test("every mount element is mounted once, however often boot.js runs", async () => {
  const { elements, scripts } = page([
    { root: "a", data: "a-data", graphviz: false },
    { root: "b", data: "b-data", graphviz: false },
    { root: "p", data: "p-data", graphviz: true, picture: true },
  ]);
  globalThis.vizadGraphviz = "the module"; // a live widget's copy
  const calls = component();
  await runBoot();
  await runBoot(); // an output whose script runs twice, or a second output carrying boot.js
  assert.deepEqual(
    calls.map((c) => c.root),
    ["a", "b", "p"],
  );
  assert.deepEqual(calls[0].options, { replace: true, notebook: true });
  assert.deepEqual(calls[2], {
    root: "p",
    data: "p-data",
    options: { graphviz: "the module" },
    picture: true,
  });
  for (const root of ["a", "b", "p"])
    assert.equal(elements.get(root).dataset.vizadBooted, "mounted");
  assert.ok(scripts.every((s) => s.dataset.vizadBooted === "mounted"));
  delete globalThis.vizadGraphviz;
});

test("an exported page's options reach the component's mount", async () => {
  page([{ root: "vz-root", data: "vz-data", focus: true, scale: 1.5, notebook: false }]);
  const calls = component();
  await runBoot();
  assert.deepEqual(calls, [
    {
      root: "vz-root",
      data: "vz-data",
      options: { replace: true, notebook: false, focus: true, scale: 1.5 },
    },
  ]);
});

test("outputs waiting for the component mount when a later output brings it", async () => {
  const { scripts } = page([{ root: "w", data: "w-data" }]);
  delete globalThis.vizadComponent;
  await runBoot(); // the waiting output: no component in the page yet
  assert.equal(scripts[0].dataset.vizadBooted, "waiting");
  const calls = component(); // a later output carries the component...
  await runBoot(); // ...and its own boot.js, which finds nothing left to take
  await until(() => calls.length > 0);
  assert.deepEqual(
    calls.map((c) => c.root),
    ["w"],
  );
  assert.equal(scripts[0].dataset.vizadBooted, "mounted");
});

test("a mount element that is not JSON is left alone", async () => {
  const { scripts } = page([]);
  scripts.push({ dataset: {}, textContent: "{not json" });
  const calls = component();
  await runBoot();
  assert.equal(scripts[0].dataset.vizadBooted, "unreadable");
  assert.deepEqual(calls, []);
});
