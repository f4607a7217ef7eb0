// Graphviz compiled to WebAssembly, for machines without the `dot` program. `make frontend`
// bundles this file with @hpcc-js/wasm-graphviz (WebAssembly inlined, nothing fetched at run
// time) into vizad/view/widget/static/graphviz.js, which is committed: users and CI need no Node.
// The stepper imports the bundle from the text Python sends it and lays out the same DOT
// source that `dot` would.
import { Graphviz } from "@hpcc-js/wasm-graphviz";

let loading = null;

function graphviz() {
  loading ??= Graphviz.load();
  return loading;
}

// The SVG of DOT `source`, laid out with the dot engine.
export async function layout(source) {
  return (await graphviz()).dot(source);
}

// The version of the Graphviz inside ("16.1.0").
export async function version() {
  return (await graphviz()).version();
}
