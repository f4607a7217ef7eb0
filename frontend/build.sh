#!/bin/sh
# Bundles graphviz.js into vizad/view/widget/static/graphviz.js and gathers the licences of what
# the bundle contains (run by `make frontend`, from this folder, after `npm ci`).
set -eu
out=../vizad/view/widget/static
version=$(node -p 'JSON.parse(require("fs").readFileSync("node_modules/@hpcc-js/wasm-graphviz/package.json")).version')
npx esbuild graphviz.js --bundle --format=esm --minify --legal-comments=none \
    --banner:js="// vizad's Graphviz module: built by \`make frontend\` from frontend/graphviz.js with @hpcc-js/wasm-graphviz $version (licences: graphviz.LICENSES.txt)" \
    --log-level=warning --outfile=$out/graphviz.js
{
    echo "vizad/view/widget/static/graphviz.js bundles the following software."
    echo
    echo "=== @hpcc-js/wasm-graphviz $version (Apache License 2.0) ==="
    echo
    cat node_modules/@hpcc-js/wasm-graphviz/LICENSE
    echo
    echo "=== Graphviz (Eclipse Public License 1.0) ==="
    echo
    cat licenses/Graphviz-EPL-1.0.txt
    echo
    echo "=== Expat (MIT License) ==="
    echo
    cat licenses/Expat-MIT.txt
} > $out/graphviz.LICENSES.txt
ls -l $out/graphviz.js
