/**
 * A webpack plugin for every stage Gatsby compiles (`gatsby build`'s two, `gatsby develop`'s two;
 * gatsby-node.ts's `onCreateWebpackConfig`): webpack's persistent cache (`.cache/webpack/`) finds
 * its build dependencies through webpack's cached file system instead of the disk.
 *
 * Before it stores, the cache records every file the compilation's loaders and Gatsby's webpack
 * configuration load, so that a change to one discards it: webpack resolves each `require` of each
 * module the Gatsby process loaded from them (about 4,500 files a stage: Gatsby's Babel loader
 * requires Gatsby's whole state). It does so through `compiler.intermediateFileSystem`, which
 * webpack's Node environment leaves uncached, so each of some 7,500 resolutions a stage stats its
 * candidates, reads their links and parses their package.json files again. In a cold `gatsby
 * build` that was 10 to 17 s of CPU of about 60 (measured with the resolution skipped), and in a
 * `gatsby develop` up to its first idle minute 29 s of 68.
 *
 * Here the cache's reads outside its own folder go through `compiler.inputFileSystem`, the cached
 * file system (enhanced-resolve's CachedInputFileSystem) the compilation resolves its modules
 * with: the same 60 s of caching, and the same purge of what changed while `gatsby develop`
 * watches. The cache's own files (written, renamed, then read back by size) still go to the disk.
 * In a copy of the project a cold build then took 51 to 54 s of CPU instead of 58 to 60, and a
 * development server's first minute 47 s instead of 68; a whole `npm test` 3 to 4 % less
 * (docs/testing.md). What the cache records is the same, so a warm build reuses it as before.
 */
import path from "node:path";
import type { Compiler } from "webpack";

/** The file system calls a resolution and the recording of files make. */
export const CACHED_READS = [
  "stat",
  "lstat",
  "readlink",
  "readdir",
  "realpath",
  "readFile",
  "readJson",
] as const;

type Call = (file: unknown, ...rest: unknown[]) => unknown;

export class BuildDependencyReadsPlugin {
  apply(compiler: Compiler): void {
    const disk = compiler.intermediateFileSystem as unknown as Record<string, Call> | null;
    const cached = compiler.inputFileSystem as unknown as Record<string, Call> | null;
    const cache = compiler.options.cache;
    // Gatsby names each stage's folder (`.cache/webpack/stage-build-html`); without one, nothing changes.
    if (!disk || !cached || cache === false || cache?.type !== "filesystem" || !cache.cacheLocation) return;
    const own = path.resolve(cache.cacheLocation);
    const ownFile = (file: unknown) =>
      typeof file === "string" && (file === own || file.startsWith(own + path.sep));
    const fileSystem: Record<string, Call> = Object.create(disk);
    for (const name of CACHED_READS) {
      const read = cached[name];
      const direct = disk[name];
      if (typeof read !== "function") continue;
      // Node's file system has no readJson (the resolver parses package.json files with it when
      // there is one); the cache's own files are not JSON.
      if (typeof direct !== "function") {
        fileSystem[name] = (...args) => read.call(cached, ...args);
        continue;
      }
      fileSystem[name] = (file, ...rest) =>
        ownFile(file) ? direct.call(disk, file, ...rest) : read.call(cached, file, ...rest);
    }
    compiler.intermediateFileSystem = fileSystem as unknown as Compiler["intermediateFileSystem"];
  }
}
