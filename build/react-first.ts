/**
 * A webpack plugin for the production bundles (build/bundles.ts): React DOM's modules run in the
 * task of React's own file (`framework`), and Gatsby's start in the task of its runtime's file
 * (`app`), instead of both in one task.
 *
 * Webpack runs no module until the entry starts, and the entry starts in the task of whichever file
 * completes it: every module of React and of Gatsby's runtime then runs in that one task. On a phone
 * of benchmark index 375 that task took 50 to 54 ms after the first paint, about half of it React
 * DOM's module alone (bench/RESULTS.md, issue 41). So the framework file ends with one more entry
 * in webpack's chunk list, a made-up chunk (FIRST_CHUNK) with no modules and a start function that
 * requires React DOM: once webpack's runtime is loaded, the file's run registers React's modules
 * and runs React DOM's; the app file's run then starts Gatsby with React ready. The page's script
 * starter (src/loading/script-starter.ts) runs webpack's runtime first, then React's file, then
 * Gatsby's, each in a task of its own. Had the runtime come last, the entry would run in its task,
 * React DOM included, as before: the order is what splits the work, not this plugin alone.
 *
 * The line goes in after minifying, before the files' names get their content hash. A build with
 * no framework chunk holding React DOM fails here, rather than ship a page that starts in one long
 * task again.
 */
import { Compilation, sources, type Compiler, type NormalModule } from "webpack";
import { FRAMEWORK_CHUNK } from "./compile-hints";

/** The name of the made-up chunk whose start function runs React DOM. */
export const FIRST_CHUNK = "react-first";

/** React DOM's entry module: the react-dom package's main file. */
const REACT_DOM = /[\\/]node_modules[\\/]react-dom[\\/]index\.js$/;

/**
 * The statement that registers FIRST_CHUNK, whose start function requires `moduleId`. It ends the
 * framework file, whose first statement has made sure webpack's chunk list exists.
 */
export function reactFirstStatement(
  globalObject: string,
  chunkList: string,
  moduleId: string | number,
): string {
  return `\n${globalObject}[${JSON.stringify(chunkList)}].push([[${JSON.stringify(FIRST_CHUNK)}],{},function(r){r(${JSON.stringify(moduleId)})}]);\n`;
}

export class ReactFirstPlugin {
  apply(compiler: Compiler): void {
    compiler.hooks.thisCompilation.tap("ReactFirstPlugin", (compilation) => {
      compilation.hooks.processAssets.tap(
        { name: "ReactFirstPlugin", stage: Compilation.PROCESS_ASSETS_STAGE_OPTIMIZE_SIZE + 1 },
        () => {
          const framework = [...compilation.chunks].find((chunk) => chunk.name === FRAMEWORK_CHUNK);
          const reactDom =
            framework &&
            [...compilation.chunkGraph.getChunkModulesIterable(framework)].find((module) =>
              REACT_DOM.test((module as NormalModule).resource ?? ""),
            );
          const moduleId = reactDom && compilation.chunkGraph.getModuleId(reactDom);
          if (!framework || moduleId === undefined || moduleId === null) {
            throw new Error(
              `ReactFirstPlugin: there is no "${FRAMEWORK_CHUNK}" chunk holding React DOM's entry module, so React could not ` +
                "start in its own task (build/react-first.ts)",
            );
          }
          const { globalObject, chunkLoadingGlobal } = compilation.outputOptions;
          const statement = reactFirstStatement(String(globalObject), String(chunkLoadingGlobal), moduleId);
          for (const file of framework.files) {
            if (!file.endsWith(".js")) continue;
            compilation.updateAsset(file, (source) => new sources.ConcatSource(source, statement));
          }
        },
      );
    });
  }
}
