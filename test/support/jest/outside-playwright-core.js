// playwright-core as the Jest worker loaded it, outside the test file's sandbox (outside-sandbox.js).
module.exports = globalThis.outsideSandbox("playwright-core");
