// Flat config: typescript-eslint's type-checked rules over src/.
import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["out/**", "node_modules/**", "e2e/node_modules/**", "bundled/**", "*.vsix"] },
  js.configs.recommended,
  {
    files: ["src/**/*.ts"],
    extends: [...tseslint.configs.strictTypeChecked, ...tseslint.configs.stylisticTypeChecked],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      "@typescript-eslint/restrict-template-expressions": ["error", { allowNumber: true }],
    },
  },
  {
    // Plain node tests (`npm test`): no VS Code, Node's own globals.
    files: ["test/**/*.mjs"],
    languageOptions: {
      globals: { process: "readonly", structuredClone: "readonly" },
    },
  },
  {
    files: ["e2e/**/*.mjs", "eslint.config.mjs"],
    languageOptions: {
      // Node, plus `document` and `getComputedStyle` inside the functions Playwright runs in the page.
      globals: {
        process: "readonly",
        console: "readonly",
        setTimeout: "readonly",
        document: "readonly",
        getComputedStyle: "readonly",
      },
    },
  },
);
