// ESLint flat config: TypeScript, React hooks and accessibility rules; Prettier owns formatting.
import js from "@eslint/js";
import prettier from "eslint-config-prettier";
import jsxA11y from "eslint-plugin-jsx-a11y";
import react from "eslint-plugin-react";
import reactHooks from "eslint-plugin-react-hooks";
import globals from "globals";
import tseslint from "typescript-eslint";

export default tseslint.config(
  {
    ignores: [
      "public/",
      ".test-site/",
      ".test-site-cache/",
      ".cache-aside/",
      ".cms-develop/",
      ".test-project/",
      ".test-site.next/",
      ".test-site.old/",
      ".public-aside/",
      "screenshots/",
      ".cache/",
      "node_modules/",
      "coverage/",
      ".data/",
      ".node/",
      "e2e/screenshots/",
      "bench/.tmp/",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ["**/*.{ts,tsx}"],
    languageOptions: { globals: { ...globals.browser, ...globals.node } },
    rules: {
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", ignoreRestSiblings: true },
      ],
    },
  },
  {
    // React's rules where React is: the site's code and Gatsby's browser and SSR files. Elsewhere
    // (the functions, the stack, the commands, the tests' Node side) they found nothing and cost a
    // tenth of the lint's CPU (16.1 s against 14.5).
    files: ["src/**/*.{ts,tsx}", "*.tsx"],
    plugins: { react, "react-hooks": reactHooks, "jsx-a11y": jsxA11y },
    settings: { react: { version: "detect" } },
    rules: {
      ...react.configs.recommended.rules,
      ...react.configs["jsx-runtime"].rules,
      ...reactHooks.configs.recommended.rules,
      ...jsxA11y.configs.recommended.rules,
      "react/prop-types": "off",
    },
  },
  {
    files: ["**/*.{js,cjs,mjs}"],
    languageOptions: { globals: { ...globals.node, ...globals.jest } },
    rules: {
      "@typescript-eslint/no-require-imports": "off",
      "@typescript-eslint/no-unused-vars": ["error", { ignoreRestSiblings: true }],
    },
  },
  {
    // The site shares with the newsletter core only its contract (supabase/functions/_shared/contract/):
    // modules that import nothing, so the build never pulls the functions' code into a page, and the
    // core may change behind them without the site noticing. docs/architecture.md says the same, and
    // scripts/__tests__/import-rules.test.ts holds the two together.
    files: ["src/**", "build/**", "gatsby-*.{ts,tsx}", "site-headers/**"],
    ignores: ["**/__tests__/**"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              regex: "supabase/functions/_shared/(?!contract/)",
              message: "The site may import only the core's contract: supabase/functions/_shared/contract/.",
            },
            {
              // From gatsby-node.ts a sibling folder is `./scripts/`; from deeper, `../scripts/`.
              regex: "^(\\./|(\\.\\./)+)(server|scripts|bench|test)/",
              message:
                "The site does not depend on the local stack, the commands, the benchmarks or the tests.",
            },
          ],
        },
      ],
    },
  },
  {
    // The local stack and the commands use the core through its front door (hosts.ts) and the
    // contract only, so the core's insides can change without them.
    files: ["server/**", "scripts/**"],
    ignores: ["**/__tests__/**"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              regex: "supabase/functions/_shared/(?!contract/|hosts\\.ts$)",
              message:
                "A host imports the core through supabase/functions/_shared/hosts.ts (or the contract).",
            },
          ],
        },
      ],
    },
  },
  {
    // The contract imports nothing but itself: both sides read it, so it can depend on neither.
    files: ["supabase/functions/_shared/contract/**"],
    ignores: ["**/__tests__/**"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              regex: "^(?!\\./[a-z-]+\\.ts$)",
              message: "The contract imports only its own modules (./name.ts).",
            },
          ],
        },
      ],
    },
  },
  {
    files: ["**/__tests__/**", "**/__mocks__/**", "test/**", "e2e/**"],
    languageOptions: { globals: { ...globals.jest } },
  },
  prettier,
);
