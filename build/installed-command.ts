/**
 * An npm package's command (`node_modules/.bin/<name>`), looked for as Node looks for a package:
 * from a folder up. A copy of the project inside it (the tests' `.cms-develop/` and
 * `.test-project/`) has no node_modules of its own and finds the project's.
 */
import { existsSync } from "node:fs";
import path from "node:path";

export function installedCommand(name: string, from: string = process.cwd()): string {
  for (let dir = path.resolve(from); ; dir = path.dirname(dir)) {
    const command = path.join(dir, "node_modules", ".bin", name);
    if (existsSync(command)) return command;
    if (path.dirname(dir) === dir) throw new Error(`${name} is not installed: run \`npm install\``);
  }
}
