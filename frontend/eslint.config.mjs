// ESLint for the browser component (vizad/view/widget/static/stepper/ and boot.js, ES modules), its
// build script and its unit tests: run by `make lint` when Node is here (`npm ci` in frontend/
// first). no-undef fails on a name used without its import.
import js from "@eslint/js";
import globals from "globals";

export default [
  {
    files: ["vizad/view/widget/static/stepper/*.js", "vizad/view/widget/static/boot.js"],
    ...js.configs.recommended,
    languageOptions: { ecmaVersion: 2022, sourceType: "module", globals: { ...globals.browser } },
    rules: {
      ...js.configs.recommended.rules,
      "no-undef": "error",
      "no-unused-vars": ["error", { args: "none", caughtErrors: "none" }],
    },
  },
  {
    files: ["frontend/*.mjs", "frontend/tests/*.mjs"],
    ...js.configs.recommended,
    languageOptions: { ecmaVersion: 2024, sourceType: "module", globals: { ...globals.node } },
  },
];
