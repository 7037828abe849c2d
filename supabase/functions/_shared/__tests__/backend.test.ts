/**
 * The front door and the manifest: each function starts on hosted Supabase with its own settings
 * and no other's, names what is missing, and `supabase/config.toml`, the entries and the routes
 * each feature serves follow the manifest.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { createBackend } from "../backend.ts";
import type { Env } from "../contract/variables.ts";
import type { SqlExecutor } from "../db/sql-executor.ts";
import { FEATURES, type FeatureName, FUNCTIONS } from "../manifest.ts";

const FUNCTIONS_DIR = path.resolve(__dirname, "../..");
const HOSTED: Env = {
  SUPABASE_URL: "https://abcdefgh.supabase.co",
  SITE_URL: "https://thepurposeeffect.example",
};
const SMTP = { SMTP_URL: "smtps://user:secret@smtp.example.com:465" };
const GITHUB = { CMS_GITHUB_CLIENT_ID: "Iv1.0123456789abcdef", CMS_GITHUB_CLIENT_SECRET: "s".repeat(40) };
const KEY = { SEND_EFFECT_KEY: "k".repeat(40) };

/** Starting touches no database: one that refuses every query proves it. */
const unopened: SqlExecutor = {
  query: () => Promise.reject(new Error("the database was used at start")),
  transaction: () => Promise.reject(new Error("the database was used at start")),
  close: async () => undefined,
} as unknown as SqlExecutor;

const start = (env: Env, feature: FeatureName) =>
  createBackend(env, {
    db: unopened,
    log: { info: () => undefined, warn: () => undefined, error: () => undefined },
    site: () => ({
      identity: () => Promise.reject(new Error("not read at start")),
      edition: () => Promise.reject(new Error("not read at start")),
      latestEdition: () => Promise.reject(new Error("not read at start")),
    }),
    features: [feature],
    senderName: () => "test",
  });

describe("a function on hosted Supabase", () => {
  it("cms-auth starts with its OAuth App and no mail transport", () => {
    expect(() => start({ ...HOSTED, ...GITHUB }, "cms-auth")).not.toThrow();
  });

  it("mail-events starts with no mail transport and no source set (each source answers 503 until set)", () => {
    expect(() => start(HOSTED, "mail-events")).not.toThrow();
  });

  it("cms-auth refuses to start without its OAuth App, naming both settings", () => {
    expect(() => start(HOSTED, "cms-auth")).toThrow(
      "CMS_GITHUB_CLIENT_ID and CMS_GITHUB_CLIENT_SECRET must be set on Supabase",
    );
  });

  it("the signup refuses to start without a mail transport, rather than log a confirmation nobody gets", () => {
    expect(() => start(HOSTED, "subscriptions")).toThrow(
      /SMTP_URL or RESEND_API_KEY or SES_REGION must be set on Supabase/,
    );
    expect(() => start({ ...HOSTED, ...SMTP }, "subscriptions")).not.toThrow();
  });

  it("send-effect refuses to start without its key, and without a transport", () => {
    expect(() => start({ ...HOSTED, ...SMTP }, "effect-sending")).toThrow(
      "SEND_EFFECT_KEY must be set on Supabase (supabase secrets set SEND_EFFECT_KEY=...)",
    );
    expect(() => start({ ...HOSTED, ...KEY }, "effect-sending")).toThrow(
      /SMTP_URL or RESEND_API_KEY or SES_REGION must be set/,
    );
    expect(() => start({ ...HOSTED, ...KEY, ...SMTP }, "effect-sending")).not.toThrow();
  });

  it.each(["subscriptions", "cms-auth", "effect-sending"] as const)(
    "%s refuses to start without SITE_URL",
    (feature) => {
      const env = { ...HOSTED, ...SMTP, ...GITHUB, ...KEY, SITE_URL: undefined };
      expect(() => start(env, feature)).toThrow(/SITE_URL/);
    },
  );

  it("off Supabase (supabase functions serve, a local Deno) runs with nothing set, mail logged", () => {
    for (const feature of FEATURES) expect(() => start({}, feature)).not.toThrow();
  });
});

describe("the manifest", () => {
  const toml = readFileSync(path.join(FUNCTIONS_DIR, "..", "config.toml"), "utf8");

  it("names every function folder, and each folder's entry serves its own name", () => {
    const folders = readdirSync(FUNCTIONS_DIR, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && !entry.name.startsWith("_") && entry.name !== "__tests__")
      .map((entry) => entry.name)
      .sort();
    expect(folders).toEqual(FUNCTIONS.map((entry) => entry.name).sort());
    for (const { name } of FUNCTIONS) {
      const entry = readFileSync(path.join(FUNCTIONS_DIR, name, "index.ts"), "utf8");
      expect(entry).toContain(`serveFunction("${name}");`);
    }
  });

  it("is what supabase/config.toml deploys: one block per function, its verify_jwt as declared", () => {
    // "[functions.NAME]" then its settings, up to the next table.
    const parts = toml.split(/^\[functions\.([a-z-]+)\]$/m).slice(1);
    const blocks = [];
    for (let i = 0; i < parts.length; i += 2) {
      const body = parts[i + 1].split(/^\[/m)[0];
      blocks.push({ name: parts[i], verifyJwt: /^verify_jwt\s*=\s*(true|false)$/m.exec(body)?.[1] });
    }
    expect(blocks).toEqual(
      FUNCTIONS.map((entry) => ({ name: entry.name, verifyJwt: String(entry.verifyJwt) })),
    );
  });

  it("is what each feature serves: its functions' routes, each function mounted at its name", () => {
    for (const feature of FEATURES) {
      const app = start({}, feature).functionsApp({ clientAddress: () => "192.0.2.1" });
      const served = new Set(
        app.routes.filter((route) => route.method !== "ALL").map((route) => `${route.method} ${route.path}`),
      );
      expect([...served].sort()).toEqual(
        FUNCTIONS.filter((entry) => entry.feature === feature)
          .flatMap((entry) => entry.routes)
          .sort(),
      );
    }
  });

  it("gives every feature a function", () => {
    expect([...new Set(FUNCTIONS.map((entry) => entry.feature))].sort()).toEqual([...FEATURES].sort());
  });
});
