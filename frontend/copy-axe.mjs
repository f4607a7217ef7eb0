// Copies axe-core's browser build (node_modules/axe-core/axe.min.js, a devDependency pinned in
// package.json) into tests/browser/data/axe.min.js, and its licence (MPL-2.0) into
// licenses/axe-core-MPL-2.0.txt (with those of the code it bundles): both committed, so the browser tests' accessibility checks
// (tests/browser/axe.py) need no Node. Run from anywhere after `npm ci` (`node
// frontend/copy-axe.mjs`) when axe-core's version changes; `--check` fails when the committed
// copy differs from the installed one (the file is copied unchanged, not minified again).
import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

const HERE = import.meta.dirname;
const REPO = resolve(HERE, "..");
const AXE = join(HERE, "node_modules/axe-core");
const copies = [
  [join(AXE, "axe.min.js"), join(REPO, "tests/browser/data/axe.min.js")],
  [join(AXE, "LICENSE"), join(HERE, "licenses/axe-core-MPL-2.0.txt")],
  // the licences of the code axe.min.js bundles (MIT, BSD, Apache-2.0, CC0…)
  [join(AXE, "LICENSE-3RD-PARTY.txt"), join(HERE, "licenses/axe-core-3rd-party.txt")],
];
const version = JSON.parse(readFileSync(join(AXE, "package.json"), "utf8")).version;
let differs = false;
for (const [from, to] of copies) {
  const text = readFileSync(from);
  if (process.argv.includes("--check")) {
    let old = null;
    try {
      old = readFileSync(to);
    } catch {
      /* missing: differs */
    }
    if (!old || !old.equals(text)) {
      console.error(`${to} differs from axe-core ${version}`);
      differs = true;
    }
  } else {
    writeFileSync(to, text);
    console.log(`${to}: axe-core ${version}, ${text.length} bytes`);
  }
}
if (differs) process.exit(1);
