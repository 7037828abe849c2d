// Jest's Node environment, recording the CPU each test file costs (cpu-time.js).
const { TestEnvironment } = require("jest-environment-node");
const { measuringCpu } = require("./cpu-time");

module.exports = measuringCpu(TestEnvironment);
