/**
 * A webpack plugin for the production bundles (build/bundles.ts): the files of React and of
 * Gatsby's runtime start with V8's explicit compile hint, `//# allFunctionsCalledOnLoad`.
 *
 * Nearly every function in them runs while React takes the page over. Without the hint V8
 * compiles each one lazily, on the main thread, the first time it is called: on a slow phone that
 * made one long task of the scripts' start. With it, Chromium (136 and later) compiles the whole
 * file while it streams in, on a background thread; other browsers read a comment. The hint goes
 * in after minifying (which would drop the comment) and before the files' names get their content
 * hash, so a file's name still changes with its bytes.
 */
import { Compilation, sources, type Compiler } from "webpack";

export const COMPILE_HINT = "//# allFunctionsCalledOnLoad\n";

/** Gatsby's chunk of React. */
export const FRAMEWORK_CHUNK = "framework";

/** Gatsby's chunks of React (`framework`) and of its own runtime (`app`). */
export const EAGER_CHUNKS = new Set([FRAMEWORK_CHUNK, "app"]);

export class CompileHintsPlugin {
  apply(compiler: Compiler): void {
    compiler.hooks.thisCompilation.tap("CompileHintsPlugin", (compilation) => {
      compilation.hooks.processAssets.tap(
        { name: "CompileHintsPlugin", stage: Compilation.PROCESS_ASSETS_STAGE_OPTIMIZE_SIZE + 1 },
        () => {
          for (const chunk of compilation.chunks) {
            if (!chunk.name || !EAGER_CHUNKS.has(chunk.name)) continue;
            for (const file of chunk.files) {
              if (!file.endsWith(".js")) continue;
              compilation.updateAsset(file, (source) => new sources.ConcatSource(COMPILE_HINT, source));
            }
          }
        },
      );
    });
  }
}
