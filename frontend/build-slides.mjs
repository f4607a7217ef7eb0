// Bundles what a vizad slide deck needs offline (`python -m vizad slides NOTEBOOK`): reveal.js
// and KaTeX (with its auto-render extension) as one script, vizad/view/slides/deck.js, and
// reveal.js's style, its white theme and KaTeX's style (its woff2 fonts inlined as data: URLs)
// as one style sheet, vizad/view/slides/deck.css; their licences in deck.LICENSES.txt. The
// versions are those pinned by package-lock.json. The built files are committed: users and CI
// need no Node. Run by `make slides-deck` (and `make frontend`), from any folder, after
// `npm ci`. `--check` builds in memory and fails when a committed file differs.
import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

const REPO = resolve(import.meta.dirname, "..");
const MODULES = join(REPO, "frontend/node_modules");
const OUT = join(REPO, "vizad/view/slides");
const read = (...parts) => readFileSync(join(MODULES, ...parts), "utf8");
const version = (name) => JSON.parse(read(name, "package.json")).version;
const reveal = version("reveal.js");
const katex = version("katex");

// a script or a sheet is placed inside the page's <script>/<style>: no text may end it early
function inert(text, tag) {
  if (text.toLowerCase().includes(`</${tag}`)) throw new Error(`a bundled file contains </${tag}`);
  return text;
}

const script = [
  `// vizad's slide deck: reveal.js ${reveal} and KaTeX ${katex} (with auto-render), built by`,
  "// frontend/build-slides.mjs; do not edit. Licences: deck.LICENSES.txt",
  read("reveal.js/dist/reveal.js"),
  read("katex/dist/katex.min.js"),
  read("katex/dist/contrib/auto-render.min.js"),
  "",
].join("\n");

// KaTeX's fonts: the woff2 of each @font-face inlined, the woff and ttf fallbacks dropped
// (every browser that runs reveal.js 5 reads woff2); nothing is fetched
const katexCss = read("katex/dist/katex.min.css").replace(
  /src:url\(fonts\/([\w-]+)\.woff2\) format\("woff2"\)(,url\([^)]*\) format\("[^"]*"\))*/g,
  (_, font) => {
    const data = readFileSync(join(MODULES, "katex/dist/fonts", `${font}.woff2`));
    return `src:url(data:font/woff2;base64,${data.toString("base64")}) format("woff2")`;
  },
);
if (/url\((?!data:)/.test(katexCss)) throw new Error("katex.min.css still names a file");
// the white theme without its web font (an @import of files beside it): the fallbacks
const theme = read("reveal.js/dist/theme/white.css").replace(/^@import url\([^)]*\);\n/m, "");
if (/@import|url\((?!data:)/.test(theme)) throw new Error("the theme still names a file");
const sheet = [
  `/* vizad's slide deck: reveal.js ${reveal} (its style and white theme) and KaTeX ${katex},`,
  "   built by frontend/build-slides.mjs; do not edit. Licences: deck.LICENSES.txt */",
  read("reveal.js/dist/reveal.css"),
  theme,
  katexCss,
  "",
].join("\n");

const licences = [
  "vizad/view/slides/deck.js and deck.css bundle the following software.",
  "",
  `=== reveal.js ${reveal} (MIT License) ===`,
  "",
  read("reveal.js/LICENSE"),
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
