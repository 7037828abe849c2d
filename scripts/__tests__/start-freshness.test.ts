/**
 * `npm start` as a developer runs it, in a copy of the project: it builds the site and serves it;
 * an Effect's file deleted and the stylesheet changed, the next `npm start` says so, builds again
 * from Gatsby's kept cache, the Effect's page is gone (404) where it was served, and a page whose
 * data did not change carries the new styles (Gatsby 5 wrote such a page's HTML only when its data
 * or its HTML renderer changed, and kept the old inlined stylesheet: build/bundles.ts). The
 * decision itself, for every kind of change (a rename, an older copy restored, a file saved
 * unchanged), is `site-build.test.ts`'s; this is the whole way.
 */
import { appendFileSync, cpSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { BUILD_FILE, BUILD_FOLDERS } from "../site-build.ts";
import { freePort } from "../../test/support/free-port.ts";
import { startProcess, typeScript } from "../../test/support/process.ts";

const ROOT = path.resolve(__dirname, "../..");
/**
 * The copy, inside the project so it finds the project's node_modules as Node does, by walking up;
 * git, the linters and the other tests ignore it (as they do e2e/cms-develop.test.ts's).
 */
const COPY = path.join(ROOT, ".start-copy");
/** What `npm start` reads: what the build reads, and the stack's own code and migrations. */
const PROJECT = [
  ...BUILD_FOLDERS,
  "scripts",
  "server",
  "supabase/migrations",
  ...readdirSync(ROOT).filter((name) => BUILD_FILE.test(name)),
  "package.json",
  "tsconfig.json",
];
const DAY = "2026-11-23";
const PAGE = `/effects/${DAY}/`;
const STYLESHEET = "src/styles/global.css";
/** A colour no other rule uses, which the minifier keeps as written. */
const MARK = "#654321";

/** The stylesheet a page inlines: the file name Gatsby gave it, and whether it holds the mark. */
const stylesheet = (html: string) => ({
  file: /<style data-href="([^"]+)"/.exec(html)?.[1] ?? "none",
  marked: html.includes(MARK),
});

// Two production builds of the whole site on two shared cores, the second from the first's cache.
jest.setTimeout(600_000);

describe("npm start after an Effect's file was deleted", () => {
  let dataDir: string;
  beforeAll(() => {
    rmSync(COPY, { recursive: true, force: true });
    for (const item of PROJECT)
      cpSync(path.join(ROOT, item), path.join(COPY, item), {
        recursive: true,
        filter: (source) => !source.includes(`${path.sep}__tests__`),
      });
    dataDir = mkdtempSync(path.join(tmpdir(), "start-data-"));
  });
  afterAll(() => {
    rmSync(COPY, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  });

  /**
   * `npm start` in the copy until it listens: what it printed, the status of the Effect's page and
   * the privacy page's HTML.
   */
  async function npmStart(): Promise<{ said: string; status: number; privacy: string }> {
    const port = await freePort();
    const started = await startProcess(process.execPath, typeScript("scripts/start.ts"), {
      cwd: COPY,
      env: {
        ...process.env,
        // Jest's NODE_ENV=test would reach Gatsby's build; a developer's shell has none.
        NODE_ENV: "",
        PORT: String(port),
        DATA_DIR: dataDir,
        EFFECTS_DIR: "content/effects",
        EFFECTS_TODAY: DAY,
        SEND_AT: "",
        GATSBY_TELEMETRY_DISABLED: "1",
      },
      ready: /Listening on (http:\/\/\S+)/,
      timeoutMs: 540_000,
    });
    try {
      const status = (await fetch(`http://127.0.0.1:${port}${PAGE}`)).status;
      const privacy = await (await fetch(`http://127.0.0.1:${port}/privacy/`)).text();
      return { said: started.output(), status, privacy };
    } finally {
      await started.stop(10_000);
    }
  }

  it("builds again, says which file went, no longer serves its page, and a page whose data is the same has the new styles", async () => {
    const first = await npmStart();
    expect(first.said).toMatch(/Building the site into public\/: public\/index\.html is missing\./);
    expect(first.status).toBe(200);
    const before = stylesheet(first.privacy);
    expect(before).toEqual({ file: expect.stringMatching(/^\/styles\..+\.css$/), marked: false });

    rmSync(path.join(COPY, "content", "effects", `${DAY}.yaml`));
    // A rule of its own, outside Tailwind's layers, so no purge drops it.
    appendFileSync(path.join(COPY, STYLESHEET), `\n.start-freshness-mark { color: ${MARK}; }\n`);
    const second = await npmStart();
    expect(second.said).toContain(`content/effects/${DAY}.yaml was deleted (and 1 more)`);
    expect(second.status).toBe(404);
    // The privacy page's data is the same: only the stylesheet's change can write it again.
    expect(stylesheet(second.privacy)).toEqual({
      file: expect.not.stringContaining(before.file),
      marked: true,
    });
  });
});
