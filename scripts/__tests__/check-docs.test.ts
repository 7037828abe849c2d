/**
 * The docs check (`npm run check:docs`): on a small repository made here, it names each file and
 * line that points at something missing and passes what exists; on this repository it finds nothing.
 */
import { rmSync } from "node:fs";
import { scratchRepository } from "../../test/support/scratch-repository";
import {
  ARCHITECTURE_MAX_LINES,
  architectureFolders,
  architectureLines,
  missingReferences,
  modulesWithoutOpeningComment,
  unnamedFolders,
} from "../check-docs";

const repository = (files: Record<string, string>) => scratchRepository(files, "docs-check-");

describe("the docs check", () => {
  it("names the doc or comment, and the line, of every file or folder that does not exist", () => {
    const root = repository({
      "README.md": "# Site\n\nStart in `server/main.ts` and `server/`.\nThe sender is `server/sender.ts`.\n",
      "docs/operating.md":
        "See `storage.ts` and `gone/`; the build writes `public/index.html` and `404.html`.\n",
      "server/main.ts": "// Reads its settings from config.ts, as storage.ts does.\nexport {};\n",
      "server/storage.ts":
        "/**\n * Opened by ./main.ts and ../server/main.ts; see https://example.com/docs/a.ts\n */\nexport {};\n",
      "supabase/functions/x/index.ts": "// The handler is ../_shared/handler.ts.\nexport {};\n",
    });
    try {
      expect(
        missingReferences(root)
          .map(({ file, line, name }) => `${file}:${line} ${name}`)
          .sort(),
      ).toEqual([
        "README.md:4 server/sender.ts",
        "docs/operating.md:1 gone/",
        "server/main.ts:1 config.ts",
        "supabase/functions/x/index.ts:1 ../_shared/handler.ts",
      ]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it("finds nothing missing in this repository", () => {
    expect(missingReferences()).toEqual([]);
  });

  it("names each source folder docs/architecture.md leaves out, and passes this repository's", () => {
    const root = repository({
      "docs/architecture.md":
        "# A\n\n| `server/` | the stack |\n| `supabase/functions/<name>/` | entries |\n\n### The core, `core/`\n\n| `mail/` | mail |\n",
      "server/main.ts": "// Starts.\nexport {};\n",
      "server/inner/storage.ts": "// Stores.\nexport {};\n",
      "server/__tests__/main.test.ts": "export {};\n",
      "supabase/functions/send/index.ts": "// An entry.\nexport {};\n",
      "core/mail/smtp.ts": "// SMTP.\nexport {};\n",
      "core/http/answers.ts": "// Answers.\nexport {};\n",
      "gatsby-node.ts": "// Builds.\nexport {};\n",
    });
    try {
      expect(unnamedFolders(root)).toEqual(["core/http/", "server/inner/"]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
    expect(architectureFolders("### `a/`\n`b/`\n## B\n`c/`")).toEqual(new Set(["b/", "a/b/", "c/"]));
    expect(unnamedFolders()).toEqual([]);
  });

  it("names each module that does not open with a comment saying its job, and passes this repository's", () => {
    const root = repository({
      "server/main.ts": "import x from './x';\n/** Starts. */\nexport {};\n",
      "server/storage.ts": "/**\n * Stores.\n */\nexport {};\n",
      "scripts/run.ts": "#!/usr/bin/env node\nexport {};\n",
      "server/__tests__/main.test.ts": "export {};\n",
    });
    try {
      expect(modulesWithoutOpeningComment(root)).toEqual(["server/main.ts"]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
    expect(modulesWithoutOpeningComment()).toEqual([]);
  });

  it("keeps docs/architecture.md a map: within its line budget", () => {
    expect(architectureLines()).toBeLessThanOrEqual(ARCHITECTURE_MAX_LINES);
  });

  it("counts architecture.md's own lines, not a table written into it from the code", () => {
    const table = Array.from({ length: 40 }, (_, row) => `| f${row} | POST /f${row} |`).join("\n");
    const root = repository({
      "docs/architecture.md":
        "# Map\n\nOne line.\n<!-- functions:start (written by npm run config:docs from manifest.ts) -->\n" +
        `${table}\n<!-- functions:end -->\nThe end.\n<!-- notes:start -->\nkept\n<!-- notes:end -->\n`,
    });
    try {
      // The title, the blank, "One line.", the table's place, "The end." and the unmarked block.
      expect(architectureLines(root)).toBe(8);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
