// Bundles what a vizad slide deck needs offline (`python -m vizad slides NOTEBOOK`): vizad's own
// deck (frontend/deck/deck.mjs, bundled with esbuild, not minified) and KaTeX (with its
// auto-render extension) as one script, vizad/view/slides/deck.js; the deck's style
// (frontend/deck/deck.css) and KaTeX's (its woff2 fonts inlined as data: URLs) as one style
// sheet, vizad/view/slides/deck.css; KaTeX's licence in deck.LICENSES.txt. KaTeX's version is
// the one pinned by package-lock.json. The built files are committed: users and CI need no
// Node. Run by `make slides-deck` (and `make frontend`), from any folder, after `npm ci`.
// `--check` builds in memory and fails when a committed file differs.
import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import * as esbuild from "esbuild";

const REPO = resolve(import.meta.dirname, "..");
const MODULES = join(REPO, "frontend/node_modules");
const OUT = join(REPO, "vizad/view/slides");
const read = (...parts) => readFileSync(join(MODULES, ...parts), "utf8");
const katex = JSON.parse(read("katex", "package.json")).version;

// a script or a sheet is placed inside the page's <script>/<style>: no text may end it early
function inert(text, tag) {
  if (text.toLowerCase().includes(`</${tag}`)) throw new Error(`a bundled file contains </${tag}`);
  return text;
}

// the deck: one classic script (the page inlines it) defining `vizadSlides.start`
const deck = await esbuild.build({
  absWorkingDir: REPO, // the bundle names each part by its path in the repository
  entryPoints: ["frontend/deck/deck.mjs"],
  bundle: true,
  format: "iife",
  globalName: "vizadSlides",
  target: "es2020",
  charset: "utf8",
  legalComments: "none",
  write: false,
  logLevel: "warning",
});

const script = [
  `// vizad's slide deck (frontend/deck/) and KaTeX ${katex} (with auto-render), built by`,
  "// frontend/build-slides.mjs; do not edit. Licences: deck.LICENSES.txt",
  deck.outputFiles[0].text,
  read("katex/dist/katex.min.js"),
  read("katex/dist/contrib/auto-render.min.js"),
  "",
].join("\n");

// KaTeX's fonts: the woff2 of each @font-face inlined, the woff and ttf fallbacks dropped
// (every browser that runs the deck's ES2020 reads woff2); nothing is fetched
const katexCss = read("katex/dist/katex.min.css").replace(
  /src:url\(fonts\/([\w-]+)\.woff2\) format\("woff2"\)(,url\([^)]*\) format\("[^"]*"\))*/g,
  (_, font) => {
    const data = readFileSync(join(MODULES, "katex/dist/fonts", `${font}.woff2`));
    return `src:url(data:font/woff2;base64,${data.toString("base64")}) format("woff2")`;
  },
);
if (/url\((?!data:)/.test(katexCss)) throw new Error("katex.min.css still names a file");
const deckCss = readFileSync(join(REPO, "frontend/deck/deck.css"), "utf8");
if (/@import|url\(/.test(deckCss)) throw new Error("frontend/deck/deck.css names a file");
const sheet = [
  `/* vizad's slide deck (frontend/deck/deck.css) and KaTeX ${katex}, built by`,
  "   frontend/build-slides.mjs; do not edit. Licences: deck.LICENSES.txt */",
  deckCss,
  katexCss,
  "",
].join("\n");

const licences = [
  "vizad/view/slides/deck.js and deck.css bundle the following software (the rest of them is",
  "vizad's own, under vizad's licence).",
  "",
  `=== KaTeX ${katex}, its auto-render extension and its fonts (MIT License) ===`,
  "",
  read("katex/LICENSE"),
].join("\n");

const files = {
  "deck.js": inert(script, "script"),
  "deck.css": inert(sheet, "style"),
  "deck.LICENSES.txt": licences,
};
let stale = false;
for (const [name, text] of Object.entries(files)) {
  const path = join(OUT, name);
  if (process.argv.includes("--check")) {
    let old = "";
    try {
      old = readFileSync(path, "utf8");
    } catch {
      // missing: stale
    }
    if (old !== text) {
      console.error(`${path} differs from a fresh build: run \`make slides-deck\``);
      stale = true;
    }
  } else {
    writeFileSync(path, text);
    console.log(`vizad/view/slides/${name}: ${text.length} characters`);
  }
}
if (stale) process.exit(1);
