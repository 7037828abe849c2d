import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { contentProblems } from "../check-content.ts";
import { typeScript } from "../../test/support/process";

const ROOT = path.resolve(__dirname, "../..");

describe("the content check a pull request runs", () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(path.join(tmpdir(), "check-content-"));
    cpSync(path.join(ROOT, "content"), path.join(root, "content"), { recursive: true });
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const edit = (file: string, change: (text: string) => string) => {
    const full = path.join(root, "content", file);
    writeFileSync(full, change(readFileSync(full, "utf8")));
  };

  it("passes today's content", () => {
    expect(contentProblems(root)).toEqual([]);
  });

  it("names the file and the field of each error", () => {
    edit("channels.yaml", (text) => text.replace(/url: https:\/\//, "url: http://"));
    edit("core-values.yaml", (text) => text.replace(/^intro:.*$/m, "intro: ''"));
    unlinkSync(path.join(root, "content", "story.yaml"));
    expect(contentProblems(root).map((problem) => problem.message)).toEqual([
      expect.stringMatching(/^content\/story\.yaml is missing/),
      expect.stringMatching(/^content\/channels\.yaml: "items\[0\]\.url" must be a full https:\/\/ address/),
      'content/core-values.yaml: "intro" must be a non-empty text',
    ]);
  });

  it("refuses a mail's text with a placeholder that mail does not know, or none at all, naming the field", () => {
    edit("newsletter.yaml", (text) =>
      text
        .replace('subject: "Welcome to {newsletter}: {effect_title}"', 'subject: "Welcome, {first_name}!"')
        .replace('expiryText: "This link expires on {expiry}."', 'expiryText: "Until {expiry"')
        .replace(/^ {4}buttonLabel: Confirm your subscription$/m, '    buttonLabel: ""'),
    );
    expect(contentProblems(root).map((problem) => problem.message)).toEqual([
      'content/newsletter.yaml: "mails.confirmation.buttonLabel" must be a non-empty text',
      'content/newsletter.yaml: "mails.confirmation.expiryText" has a { or } that is not part of a placeholder (it may use {newsletter}, {brand}, {expiry})',
      'content/newsletter.yaml: "mails.welcome.subject" has an unknown placeholder {first_name} (it may use {newsletter}, {brand}, {effect_title})',
    ]);
  });

  it("checks the Effects of the Day as the build does, naming the file and the field", () => {
    writeFileSync(
      path.join(root, "content", "effects", "2031-02-30.yaml"),
      "title: A\nsummary: B.\nbody: C\n",
    );
    writeFileSync(path.join(root, "content", "effects", "2031-03-01.yaml"), "title: A\nbody: C\n");
    expect(contentProblems(root).map((problem) => problem.message)).toEqual([
      expect.stringMatching(/^content\/effects\/2031-02-30\.yaml: the file name must be the Effect's date/),
      expect.stringMatching(/^content\/effects\/2031-03-01\.yaml: .*summary/),
    ]);
  });

  it("reports broken YAML with its line instead of stopping at it", () => {
    edit("brand.yaml", (text) => `${text}\nhero: [unclosed\n`);
    const [problem] = contentProblems(root);
    expect(problem.file).toBe("content/brand.yaml");
    expect(problem.message).toMatch(/content\/brand\.yaml is not valid YAML: .*line \d+/s);
  });

  it("fails on GitHub Actions with an annotation on the file", () => {
    // The command reads content/ beside itself, so run a copy of the script in the temporary root.
    cpSync(path.join(ROOT, "scripts"), path.join(root, "scripts"), { recursive: true });
    cpSync(path.join(ROOT, "src"), path.join(root, "src"), { recursive: true });
    // The site's and the scripts' shared modules (the calendar day, the configuration registry).
    const shared = path.join("supabase", "functions", "_shared");
    cpSync(path.join(ROOT, shared), path.join(root, shared), { recursive: true });
    edit("landing.yaml", (text) => text.replace(/^(\s+)buttonLabel:.*$/m, "$1buttonLabel: ' '"));
    // The copy run as the project runs its commands: its packages are the project's.
    const run = spawnSync(process.execPath, typeScript("scripts/check-content.ts"), {
      cwd: root,
      env: { ...process.env, GITHUB_ACTIONS: "true" },
      encoding: "utf8",
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(
      '::error file=content/landing.yaml,title=Content error::content/landing.yaml: "episodeOne.buttonLabel" must be a non-empty text',
    );
  });
});
