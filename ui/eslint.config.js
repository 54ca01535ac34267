// Flat config: ESLint's recommended rules, typescript-eslint's type-aware strict set, and the
// Solid plugin (it catches lost reactivity such as destructured props).
import js from "@eslint/js";
import { defineConfig } from "eslint/config";
import solid from "eslint-plugin-solid/configs/typescript";
import globals from "globals";
import tseslint from "typescript-eslint";

export default defineConfig(
  // Generated from the Rust wire types by ts-rs; checked by tsc, not linted.
  { ignores: ["dist/", "node_modules/", "src/lib/bindings/", "src/lib/shell-bindings/"] },
  js.configs.recommended,
  tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      globals: globals.browser,
      parserOptions: {
        projectService: true,
        tsconfigRootDir: import.meta.dirname,
      },
    },
  },
  {
    files: ["src/**/*.{ts,tsx}"],
    ...solid,
  },
);
