// One `npm test` runs every project. The site's tests follow Gatsby's documented Jest setup
// (https://www.gatsbyjs.com/docs/how-to/testing/unit-testing/); backend tests run in Node.
// PGlite loads its WebAssembly with a dynamic import, so `npm test` sets --experimental-vm-modules.
// The Node projects' TypeScript through esbuild, as scripts/run-typescript.cjs bundles the commands.
const nodeTransform = { "^.+\\.[jt]sx?$": "<rootDir>/test/support/jest/transform-typescript.js" };

// Packages a worker loads once, outside the files' sandboxes, for the Node projects.
const { outsideModuleMap } = require("./test/support/jest/outside-sandbox");

/** @type {import('jest').Config} */
module.exports = {
  // A test file per core and one more: the files wait on servers, browsers, mail and builds more
  // than they compute (a run's files cost about 1,000 s of CPU in 2,500 s of their own time on 2
  // cores, JEST_TIMES_FILE), so a third file keeps both cores busy (Jest's own default, a core
  // less, runs one file at a time there).
  maxWorkers: require("node:os").availableParallelism() + 1,
  // The default report, then each project's time and slowest files.
  reporters: ["default", "<rootDir>/test/support/jest/project-times.js"],
  // The browser tests last: their site builds meanwhile (test/support/test-site-build.ts).
  testSequencer: "<rootDir>/test/support/jest/sequencer.js",
  projects: [
    {
      displayName: "site",
      // jsdom plus Node's fetch, so the real supabase-js client runs in component tests.
      testEnvironment: "<rootDir>/test/support/jest/environment-site.js",
      testEnvironmentOptions: { url: "http://localhost/" },
      // The root stays <rootDir> so the manual mocks in __mocks__/ apply to node modules.
      testMatch: ["<rootDir>/src/**/__tests__/**/*.test.[jt]s?(x)"],
      transform: { "^.+\\.[jt]sx?$": "<rootDir>/test/support/jest/preprocess.js" },
      moduleNameMapper: {
        "\\.(css|scss)$": "identity-obj-proxy",
        "\\.(jpg|jpeg|png|gif|svg|webp|avif|woff2?)$": "<rootDir>/__mocks__/file-mock.js",
      },
      testPathIgnorePatterns: ["node_modules", "\\.cache", "<rootDir>.*/public", "<rootDir>/\\.test-site"],
      modulePathIgnorePatterns: [
        "<rootDir>/.cache",
        "<rootDir>/public",
        "<rootDir>/.node",
        "<rootDir>/.test-site",
        "<rootDir>/.cms-develop",
        "<rootDir>/.test-project",
        "<rootDir>/.public-aside",
      ],
      transformIgnorePatterns: ["node_modules/(?!(gatsby|gatsby-script|gatsby-link)/)"],
      // Components and hooks in jsdom: Jest's own default, said here (test/support/jest/timeout.ts).
      globals: { __PATH_PREFIX__: "", testTimeoutMs: 5_000 },
      setupFiles: ["<rootDir>/test/support/jest/loadershim.js"],
      setupFilesAfterEnv: ["<rootDir>/test/support/jest/setup.ts", "<rootDir>/test/support/jest/timeout.ts"],
    },
    {
      displayName: "backend",
      testEnvironment: "<rootDir>/test/support/jest/environment-node.js",
      roots: [
        "<rootDir>/supabase",
        "<rootDir>/server",
        "<rootDir>/scripts",
        "<rootDir>/build",
        "<rootDir>/bench",
        "<rootDir>/test",
      ],
      transform: nodeTransform,
      moduleNameMapper: outsideModuleMap(),
      // Real servers, processes and databases on 2 shared cores: a test (or hook) may start a stack,
      // a PostgreSQL database and an SMTP server, kill processes and wait for their restart.
      globals: { testTimeoutMs: 120_000 },
      setupFilesAfterEnv: ["<rootDir>/test/support/jest/timeout.ts"],
      // A throwaway PostgreSQL server for the integration suites (or TEST_DATABASE_URL when set).
      globalSetup: "<rootDir>/test/support/jest/backend-setup.ts",
      globalTeardown: "<rootDir>/test/support/jest/backend-teardown.ts",
    },
    {
      // Browser and accessibility tests in Debian's Chromium against the built site on the local
      // stack; the global setup builds the site when it is missing or older than its sources.
      displayName: "e2e",
      testEnvironment: "<rootDir>/test/support/jest/environment-e2e.js",
      roots: ["<rootDir>/e2e"],
      testMatch: ["<rootDir>/e2e/**/*.test.ts"],
      transform: nodeTransform,
      moduleNameMapper: outsideModuleMap(),
      globalSetup: "<rootDir>/e2e/global-setup.ts",
      globalTeardown: "<rootDir>/e2e/global-teardown.ts",
      // A real browser against a real server: a test may start pages, wait for mail and run axe.
      globals: { testTimeoutMs: 60_000 },
      setupFilesAfterEnv: ["<rootDir>/test/support/jest/timeout.ts"],
    },
  ],
};
