/**
 * `npm run doctor`: is the sending domain ready? It reads the settings as the functions would
 * (the environment and `.env`), asks DNS for the domain's SPF, DKIM and DMARC (`doctor-dns.ts`),
 * and builds each function's backend as Supabase would, reporting in words whatever
 * `createBackend` would refuse; then calls the deployed functions over HTTP (`doctor-functions.ts`).
 * Prints one line per check (✓ ready, ! a warning, ✗ blocks sending) with what to set, and exits 1
 * when something blocks sending, else 0.
 */
import { type Env, readVariable } from "../supabase/functions/_shared/contract/variables.ts";
import {
  configuredTransports,
  createBackend,
  FUNCTIONS,
  parseMailbox,
  type PublishedSite,
  type SendingDns,
  type SqlExecutor,
} from "../supabase/functions/_shared/hosts.ts";
import { loadDotEnv } from "../server/local-env.ts";
import { checkDomain, dnsLookups, type DomainSetup, type Finding } from "./doctor-dns.ts";
import { checkDeployedFunctions } from "./doctor-functions.ts";

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** Nothing the checks build may touch: no database, no published site. */
const untouchable = (what: string) => () => Promise.reject(new Error(`npm run doctor reads no ${what}`));
const noDatabase: SqlExecutor = {
  query: untouchable("database"),
  exec: untouchable("database"),
  transaction: untouchable("database"),
  close: () => Promise.resolve(),
};
const noSite: PublishedSite = {
  identity: untouchable("site"),
  edition: untouchable("site"),
  latestEdition: untouchable("site"),
};

const senderName = () => "npm run doctor";

/** Each function's backend built from `env`, as its Deno entry builds it: refusals and warnings, in words. */
export async function checkSettings(env: Env): Promise<Finding[]> {
  const check = "settings";
  const findings: Finding[] = [];
  if (!readVariable(env, "SUPABASE_URL")?.startsWith("https://"))
    findings.push({
      level: "warn",
      check,
      text: "SUPABASE_URL is not the project's https address, so the settings were checked as the local stack reads them",
      fix: "run it with the functions' settings: SUPABASE_URL=https://<ref>.supabase.co and the secrets set there",
    });
  /** A refusal blocks sending when a function that sends mail would not start; else it is a warning. */
  const refusals = new Map<string, string[]>();
  const warnings = new Set<string>();
  for (const entry of FUNCTIONS) {
    try {
      const backend = createBackend(env, {
        db: noDatabase,
        log: {
          info() {},
          warn: (message) => warnings.add(message),
          error: (message) => warnings.add(message),
        },
        site: () => noSite,
        features: [entry.feature],
        senderName,
      });
      await backend.closeMail();
    } catch (error) {
      const message = errorText(error);
      refusals.set(message, [...(refusals.get(message) ?? []), entry.name]);
    }
  }
  const sends = new Set<string>(FUNCTIONS.filter((entry) => entry.sendsMail).map((entry) => entry.name));
  for (const [message, names] of refusals)
    findings.push({
      level: names.some((name) => sends.has(name)) ? "fail" : "warn",
      check,
      text: `${names.join(", ")} would not start: ${message}`,
    });
  for (const message of warnings) findings.push({ level: "warn", check, text: message });
  if (refusals.size === 0)
    findings.push({
      level: "ok",
      check,
      text: `all ${FUNCTIONS.length} functions start with these settings`,
    });
  return findings;
}

/** What DNS must hold for the transport `createMailer` would choose (the first set; two set is a settings failure). */
function transportOf(env: Env): SendingDns | undefined {
  const [chosen] = configuredTransports(env);
  return chosen?.transport.dns(chosen.value);
}

/** The From address's domain, as the mail is built (`MAIL_FROM`, else the newsletter at SITE_URL's host). */
function sendingDomain(env: Env): string | null {
  const from = readVariable(env, "MAIL_FROM");
  // Read as the functions read it: a quoted name may hold a `<` of its own.
  if (from) return parseMailbox(from)?.address.split("@")[1].toLowerCase() ?? null;
  const site = readVariable(env, "SITE_URL");
  try {
    const host = site ? new URL(site).hostname : "";
    return host && host !== "localhost" && !/^[\d.]+$|:/.test(host) ? host : null;
  } catch {
    return null;
  }
}

/**
 * The origins the functions allow the site's calls from (ALLOWED_ORIGINS, else SITE_URL's), read as
 * they read them; null when these settings give none (the settings' check says why).
 */
function siteOrigins(env: Env): string[] | null {
  if (!readVariable(env, "SITE_URL") && !readVariable(env, "ALLOWED_ORIGINS")) return null;
  try {
    const quiet = { info() {}, warn() {}, error() {} };
    return createBackend(env, { db: noDatabase, log: quiet, site: () => noSite, features: [], senderName })
      .config.allowedOrigins;
  } catch {
    return null;
  }
}

/**
 * The deployed functions, called over HTTP: at DOCTOR_FUNCTIONS_URL, else at the hosted project
 * SUPABASE_URL names. A local SUPABASE_URL (a `.env` for `supabase functions serve`) is not
 * called unless asked for: its answers would say nothing about the project.
 */
async function checkFunctions(env: Env): Promise<Finding[]> {
  const project = readVariable(env, "SUPABASE_URL")?.replace(/\/+$/, "");
  const url =
    readVariable(env, "DOCTOR_FUNCTIONS_URL")?.replace(/\/+$/, "") ??
    (project?.startsWith("https://") ? `${project}/functions/v1` : undefined);
  if (!url)
    return [
      {
        level: "warn",
        check: "functions",
        text: `the deployed functions were not called: ${project ? `SUPABASE_URL is ${project}, not a hosted project's https address` : "SUPABASE_URL is not set"}`,
        fix: project
          ? `to call these, run it with DOCTOR_FUNCTIONS_URL=${project}/functions/v1; for the project's, SUPABASE_URL=https://<ref>.supabase.co`
          : "run it with SUPABASE_URL=https://<ref>.supabase.co",
      },
    ];
  const allowed = readVariable(env, "ALLOWED_ORIGINS");
  return checkDeployedFunctions({
    url,
    origins: siteOrigins(env),
    originSetting: allowed ? `ALLOWED_ORIGINS=${allowed}` : `SITE_URL=${readVariable(env, "SITE_URL") ?? ""}`,
  });
}

const MARKS = { ok: "✓", warn: "!", fail: "✗" } as const;

export function formatReport(heading: string, findings: Finding[]): string {
  const width = Math.max(...findings.map((finding) => finding.check.length));
  const lines = findings.flatMap((finding) => [
    `${MARKS[finding.level]} ${finding.check.padEnd(width)}  ${finding.text}`,
    ...(finding.fix ? [`  ${" ".repeat(width)}  → ${finding.fix}`] : []),
  ]);
  const failures = findings.filter((finding) => finding.level === "fail").length;
  const warnings = findings.filter((finding) => finding.level === "warn").length;
  const verdict =
    failures > 0
      ? `Not ready: ${failures} ${failures === 1 ? "problem blocks" : "problems block"} sending.`
      : `Ready to send${warnings > 0 ? ` (${warnings} ${warnings === 1 ? "warning" : "warnings"} to look at)` : ""}.`;
  return `${heading}\n\n${lines.join("\n")}\n\n${verdict}\n`;
}

export interface DoctorResult {
  findings: Finding[];
  report: string;
  /** 1 when something blocks sending. */
  exitCode: 0 | 1;
}

export async function runDoctor(env: Env): Promise<DoctorResult> {
  const servers = readVariable(env, "DOCTOR_DNS_SERVERS")
    ?.split(",")
    .map((server) => server.trim())
    .filter(Boolean);
  const findings: Finding[] = [];
  const domain = sendingDomain(env);
  const transport = transportOf(env);
  if (!domain)
    findings.push({
      level: "fail",
      check: "domain",
      text: "no sending domain: MAIL_FROM is not set and SITE_URL is not a public address",
      fix: 'set MAIL_FROM="Effect of the Day <newsletter@your-domain>"',
    });
  else {
    const setup: DomainSetup = {
      domain,
      transport,
      dkimSelectors: (readVariable(env, "DKIM_SELECTOR") ?? "")
        .split(",")
        .map((selector) => selector.trim())
        .filter(Boolean),
      bounceAddress: readVariable(env, "BOUNCE_ADDRESS"),
    };
    findings.push(...(await checkDomain(dnsLookups(servers), setup)));
  }
  findings.push(...(await checkSettings(env)));
  findings.push(...(await checkFunctions(env)));
  const through = transport?.short ?? "no transport";
  const report = formatReport(
    `npm run doctor: mail from ${domain ?? "(no domain)"} through ${through}`,
    findings,
  );
  return { findings, report, exitCode: findings.some((finding) => finding.level === "fail") ? 1 : 0 };
}

if (require.main === module) {
  loadDotEnv();
  runDoctor(process.env).then(
    (result) => {
      process.stdout.write(result.report);
      process.exitCode = result.exitCode;
    },
    (error: unknown) => {
      console.error(`doctor: ${errorText(error)}`);
      process.exitCode = 1;
    },
  );
}
