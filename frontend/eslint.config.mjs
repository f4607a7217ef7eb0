// ESLint for the browser component (vizad/view/widget/static/stepper/ and boot.js, ES modules), the
// JupyterLab extension (frontend/labextension/src/), the slide deck (frontend/deck/), their
// build scripts and their unit tests: run by `make lint` when Node is here (`npm ci` in frontend/
// first). no-undef fails on a name used without its import. no-restricted-syntax: no markup
// made from text in the component, the extension or the deck (elements are built with h() or
// createElement and textContent; SVG text only through sanitize.js), as
// tests/test_no_markup_from_data.py checks without Node.
import js from "@eslint/js";
import globals from "globals";

const NO_MARKUP = "build elements with h() / textContent: no markup made from text (issue 43)";

export default [
  {
    files: [
      "vizad/view/widget/static/stepper/*.js",
      "vizad/view/widget/static/boot.js",
      "vizad/view/widget/static/shim.js",
      "frontend/labextension/src/*.js",
      "frontend/deck/*.mjs",
    ],
    ...js.configs.recommended,
    languageOptions: { ecmaVersion: 2022, sourceType: "module", globals: { ...globals.browser } },
    rules: {
      ...js.configs.recommended.rules,
      "no-undef": "error",
      "no-unused-vars": ["error", { args: "none", caughtErrors: "none" }],
      "no-restricted-syntax": [
        "error",
        {
          selector:
            "AssignmentExpression > MemberExpression.left[property.name=/^(innerHTML|outerHTML)$/]",
          message: NO_MARKUP,
        },
        {
          selector:
            "CallExpression[callee.property.name=/^(insertAdjacentHTML|createContextualFragment|parseFromString|setHTMLUnsafe)$/]",
          message: NO_MARKUP,
        },
        {
          selector:
            "CallExpression[callee.object.name='document'][callee.property.name=/^write(ln)?$/]",
          message: NO_MARKUP,
        },
        { selector: "Literal[value=/<\\/?[A-Za-z]/]", message: NO_MARKUP },
        { selector: "TemplateElement[value.raw=/<\\/?[A-Za-z]/]", message: NO_MARKUP },
      ],
    },
  },
  {
    files: ["frontend/*.mjs", "frontend/tests/*.mjs"],
    ...js.configs.recommended,
    languageOptions: { ecmaVersion: 2024, sourceType: "module", globals: { ...globals.node } },
  },
];
