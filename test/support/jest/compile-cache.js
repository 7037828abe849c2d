// Node's compile cache (https://nodejs.org/api/module.html#module-compile-cache) for every Node
// process a test run starts: the stacks, the commands, the builds and Jest's own workers inherit
// NODE_COMPILE_CACHE from this process, so the modules they share (tsx, Gatsby, webpack, the
// stack's own) are compiled by V8 once a run, not once a process. Loaded by jest.config.js; a
// folder the caller names is kept.
const { tmpdir } = require("node:os");
const path = require("node:path");
const { variable } = require("./cpu-time");

const folder = variable("NODE_COMPILE_CACHE") ?? path.join(tmpdir(), "purpose-effect-compile-cache");
process.env.NODE_COMPILE_CACHE = folder;
