// Jest's module runtime (jest-runtime 29), whose module scripts reuse V8's compiled code across the
// test files a worker runs. Jest compiles every module again in each file's sandbox, and with
// --experimental-vm-modules (which `npm test` sets for PGlite) each script has a dynamic-import
// callback of its own, which keeps V8 from finding it in its compilation cache: hono, nodemailer,
// PGlite's glue and the core were parsed and compiled afresh for every file. Here the first file
// that loads a module keeps its script; the next file that loads the same code asks that script for
// V8's code cache (by then holding the functions the first file ran) and compiles from it. A
// module whose transformed code changed is compiled afresh. `createScriptFromCode` is
// jest-runtime's own, with `cachedData` added (jest.config.js's `runtime`).
const { default: Runtime } = require("jest-runtime");
const { handlePotentialSyntaxError } = require("@jest/transform");
const { Script } = require("node:vm");

/** Per worker: a module's file name to its wrapped code and the script, then the code cache. */
const compiled = new Map();

/** The modules this worker compiled afresh, from the code cache, and whose cache V8 refused. */
const codeCache = { fresh: new Set(), fromCache: new Set(), rejected: new Set() };

class CodeCachingRuntime extends Runtime {
  createScriptFromCode(scriptSource, filename) {
    const scriptFilename = this._resolver.isCoreModule(filename) ? `jest-nodejs-core-${filename}` : filename;
    const source = this.wrapCodeInModuleWrapper(scriptSource);
    const known = compiled.get(scriptFilename);
    const same = known?.source === source;
    if (same && known.cachedData === undefined) {
      known.cachedData = known.script.createCachedData();
      known.script = undefined;
    }
    let script;
    try {
      script = new Script(source, {
        columnOffset: this._fileTransforms.get(filename)?.wrapperLength,
        displayErrors: true,
        filename: scriptFilename,
        cachedData: same ? known.cachedData : undefined,
        importModuleDynamically: async (specifier) => {
          const context = this._environment.getVmContext?.();
          if (!context) throw new Error("Test environment has been torn down");
          const module = await this.resolveModule(specifier, scriptFilename, context);
          return this.linkAndEvaluateModule(module);
        },
      });
    } catch (e) {
      throw handlePotentialSyntaxError(e);
    }
    if (!same) {
      codeCache.fresh.add(scriptFilename);
      compiled.set(scriptFilename, { source, script, cachedData: undefined });
    } else if (script.cachedDataRejected !== false) {
      codeCache.rejected.add(scriptFilename);
      compiled.set(scriptFilename, { source, script, cachedData: undefined });
    } else codeCache.fromCache.add(scriptFilename);
    return script;
  }
}

module.exports = CodeCachingRuntime;
module.exports.codeCache = codeCache;
