// Bundles the browser component (vizad/view/widget/static/stepper/*.js, ES modules; mount.js is the
// entry) into the one module Python sends, vizad/view/widget/static/stepper.bundle.js, which is
// committed: users and CI need no Node. Run by `make component` (and `make frontend`), from
// this folder, after `npm ci`. `--check` builds in memory and fails when the committed bundle
// differs (tests/test_component_bundle.py runs it when Node is here).
//
// The bundle's first line records a hash of its sources, which tests/test_component_bundle.py
// recomputes without Node: a source edited without `make component` fails the Python tests.
// Not minified: names and comments stay (the page calls the bundle's `mount` by name).
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import * as esbuild from "esbuild";

const REPO = resolve(import.meta.dirname, "..");
const SOURCES = join(REPO, "vizad/view/widget/static/stepper");
const OUT = join(REPO, "vizad/view/widget/static/stepper.bundle.js");

// sha256 over each source (sorted by name): its name, a NUL, its text, a NUL
export function sourceHash(folder = SOURCES) {
  const hash = createHash("sha256");
  for (const name of readdirSync(folder)
    .filter((n) => n.endsWith(".js"))
    .sort()) {
    hash.update(`${name}\0`);
    hash.update(readFileSync(join(folder, name)));
    hash.update("\0");
  }
  return hash.digest("hex");
}

const result = await esbuild.build({
  absWorkingDir: REPO, // the bundle names each part by its path in the repository
  entryPoints: ["vizad/view/widget/static/stepper/mount.js"],
  bundle: true,
  format: "esm",
  target: "es2022",
  charset: "utf8",
  legalComments: "none",
  banner: {
    js:
      `// vizad's browser component: built by \`make component\` from vizad/view/widget/static/stepper/ ` +
      `(entry mount.js) with esbuild; do not edit. sources sha256: ${sourceHash()}`,
  },
  write: false,
  logLevel: "warning",
});
const text = result.outputFiles[0].text;
if (process.argv.includes("--check")) {
  if (readFileSync(OUT, "utf8") !== text) {
    console.error(`${OUT} differs from a fresh build: run \`make component\``);
    process.exit(1);
  }
} else {
  writeFileSync(OUT, text);
  console.log(`vizad/view/widget/static/stepper.bundle.js: ${text.length} characters`);
}
