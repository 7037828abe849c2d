// The browser tests' environment: Node's, recording each file's CPU (environment-node.js), and
// waiting before the file is loaded for the tests' site, which the global setup builds in the
// background (test/support/test-site-build.ts): a file reads the built site as it is loaded.
const { readFileSync } = require("node:fs");
const path = require("node:path");
const { variable } = require("./cpu-time");
const NodeEnvironment = require("./environment-node");

/** Longer than any build of the site on two busy cores. */
const BUILD_TIMEOUT_MS = 15 * 60_000;

const read = (file) => {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return null;
  }
};

async function builtSite(dir) {
  for (const deadline = Date.now() + BUILD_TIMEOUT_MS; Date.now() < deadline;) {
    const result = read(path.join(dir, "result"));
    if (result === "ok") return;
    if (result !== null) {
      const said = (read(path.join(dir, "log")) ?? "").split("\n").slice(-40).join("\n");
      throw new Error(`The browser tests' site did not build (${result}); the build's last lines:\n${said}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`The browser tests' site was not built within ${BUILD_TIMEOUT_MS / 60_000} minutes`);
}

class E2eEnvironment extends NodeEnvironment {
  async setup() {
    const dir = variable("E2E_SITE_BUILD_DIR");
    if (dir) await builtSite(dir);
    await super.setup();
  }
}

module.exports = E2eEnvironment;
