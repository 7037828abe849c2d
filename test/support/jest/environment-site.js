// jsdom for the components, with Node's own fetch API added: jsdom has none, and the newsletter
// code runs the real supabase-js client, whose requests the tests answer at the fetch boundary.
// Each file's CPU is recorded (cpu-time.js).
const { TestEnvironment } = require("jest-environment-jsdom");
const { measuringCpu } = require("./cpu-time");

const FROM_NODE = [
  "fetch",
  "Request",
  "Response",
  "Headers",
  "TextEncoder",
  "TextDecoder",
  "ReadableStream",
  "structuredClone",
];

class SiteEnvironment extends TestEnvironment {
  async setup() {
    await super.setup();
    for (const name of FROM_NODE) {
      if (this.global[name] === undefined) this.global[name] = globalThis[name];
    }
  }
}

module.exports = measuringCpu(SiteEnvironment);
