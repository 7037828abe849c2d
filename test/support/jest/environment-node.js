// Jest's Node environment, recording the CPU each test file costs (cpu-time.js), with the packages
// a worker loads once outside the files' sandboxes (outside-sandbox.js).
const { TestEnvironment } = require("jest-environment-node");
const { measuringCpu } = require("./cpu-time");
const { outsideSandbox } = require("./outside-sandbox");

module.exports = measuringCpu(outsideSandbox(TestEnvironment));
