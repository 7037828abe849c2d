/**
 * `npm start` as a developer runs it, in the browser tests' copy of the project
 * (test/support/test-project.ts), after the tests' site was built there: it finds the site up to
 * date and serves it; an Effect's file deleted and the stylesheet changed, the next `npm start`
 * says so, builds again from Gatsby's kept cache, the Effect's page is gone (404) where it was
 * served, and a page whose data did not change carries the new styles (Gatsby 5 wrote such a page's
 * HTML only when its data or its HTML renderer changed, and kept the old inlined stylesheet:
 * build/bundles.ts). The decision itself, for every kind of change (a rename, an older copy
 * restored, a file saved unchanged, a missing site), is `scripts/__tests__/site-build.test.ts`'s;
 * this is the whole way. The browser tests serve `.test-site/`, published before this file starts
 * (their environment waits for the build), so the copy's new build reaches none of them, and the
 * copy is put back as the build left it afterwards.
 */
import { appendFileSync, copyFileSync, cpSync, mkdtempSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { publishedFixtures } from "../test/support/effects";
import { freePort } from "../test/support/free-port";
import { startProcess, typeScript } from "../test/support/process";
import { TEST_PROJECT_DIR, TEST_PROJECT_ENV } from "../test/support/test-project";

/** A published Effect, not the newest: the landing page keeps its Effect of the day. */
const GONE = publishedFixtures[1];
const PAGE = `/effects/${GONE.date}/`;
const FILE = path.join(TEST_PROJECT_ENV.EFFECTS_DIR, `${GONE.date}.yaml`);
const STYLESHEET = "src/styles/global.css";
/** A colour no other rule uses, which the minifier keeps as written. */
const MARK = "#654321";

/** The stylesheet a page inlines: the file name Gatsby gave it, and whether it holds the mark. */
const stylesheet = (html: string) => ({
  file: /<style data-href="([^"]+)"/.exec(html)?.[1] ?? "none",
  marked: html.includes(MARK),
});

// A production build of the whole site from the kept cache, on two shared cores.
jest.setTimeout(600_000);

/**
 * What the test changes in the copy, kept beside it and put back after it: the two files, the build
 * and Gatsby's cache. The next run's build then finds the site as the browser tests' build left it,
 * up to date, instead of building again to undo this test.
 */
const KEPT = path.join(TEST_PROJECT_DIR, ".kept-by-start-freshness");
const KEPT_FILES = [FILE, STYLESHEET];
const KEPT_FOLDERS = ["public", ".cache"];

describe("npm start after an Effect's file was deleted", () => {
  let dataDir: string;
  beforeAll(() => {
    dataDir = mkdtempSync(path.join(tmpdir(), "start-data-"));
    rmSync(KEPT, { recursive: true, force: true });
    for (const item of [...KEPT_FILES, ...KEPT_FOLDERS])
      cpSync(path.join(TEST_PROJECT_DIR, item), path.join(KEPT, item), { recursive: true });
  });
  afterAll(() => {
    rmSync(dataDir, { recursive: true, force: true });
    for (const folder of KEPT_FOLDERS) {
      rmSync(path.join(TEST_PROJECT_DIR, folder), { recursive: true, force: true });
      renameSync(path.join(KEPT, folder), path.join(TEST_PROJECT_DIR, folder));
    }
    for (const file of KEPT_FILES) copyFileSync(path.join(KEPT, file), path.join(TEST_PROJECT_DIR, file));
    rmSync(KEPT, { recursive: true, force: true });
  });

  /**
   * `npm start` in the copy until it listens: what it printed, the status of the Effect's page and
   * the privacy page's HTML.
   */
  async function npmStart(): Promise<{ said: string; status: number; privacy: string }> {
    const port = await freePort();
    const started = await startProcess(process.execPath, typeScript("scripts/start.ts"), {
      cwd: TEST_PROJECT_DIR,
      env: {
        ...process.env,
        // Jest's NODE_ENV=test would reach Gatsby's build; a developer's shell has none.
        NODE_ENV: "",
        PORT: String(port),
        DATA_DIR: dataDir,
        ...TEST_PROJECT_ENV,
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
    expect(first.said).toMatch(/The site is up to date/);
    expect(first.said).not.toMatch(/Building the site/);
    expect(first.status).toBe(200);
    const before = stylesheet(first.privacy);
    expect(before).toEqual({ file: expect.stringMatching(/^\/styles\..+\.css$/), marked: false });

    rmSync(path.join(TEST_PROJECT_DIR, FILE));
    // A rule of its own, outside Tailwind's layers, so no purge drops it.
    appendFileSync(path.join(TEST_PROJECT_DIR, STYLESHEET), `\n.start-freshness-mark { color: ${MARK}; }\n`);
    const second = await npmStart();
    expect(second.said).toContain(`${FILE} was deleted (and 1 more)`);
    expect(second.status).toBe(404);
    // The privacy page's data is the same: only the stylesheet's change can write it again.
    expect(stylesheet(second.privacy)).toEqual({
      file: expect.not.stringContaining(before.file),
      marked: true,
    });
  });
});
