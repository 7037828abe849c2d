/**
 * `npm run doctor`'s checks of the deployed functions, made from outside as an owner can make
 * them: each function of the manifest answers at `<functions>/<name>`, Supabase's gateway lets a
 * call without a token reach it (`verify_jwt` off, as the manifest says), and the routes the site
 * calls from the browser allow the site's origins and no other. Every request changes nothing: a
 * route called with a method it does not take (`probeOf`), which each function refuses with 405
 * before it reads a body or the database, and CORS preflights (OPTIONS), which the app answers
 * before any route. Each request is given `REQUEST_TIMEOUT_MS`, and the functions are asked at
 * once, so the whole check takes at most two of those.
 */
import { FUNCTIONS, type FunctionEntry } from "../supabase/functions/_shared/hosts.ts";
import type { Finding, Level } from "./doctor-dns.ts";

export const REQUEST_TIMEOUT_MS = 5_000;

type Entry = (typeof FUNCTIONS)[number];
type Route = Entry["routes"][number];

/**
 * What the site's pages call from the browser, and so need CORS for: the signup card and the
 * link pages through supabase-js (src/newsletter/functions-client.ts), and the editor's sign-in
 * page its token (static/admin/sign-in.js). `satisfies` holds each to a route of the manifest.
 */
export const SITE_CALLS = [
  "POST /send-confirmation",
  "POST /confirm-subscription",
  "POST /unsubscribe",
  "POST /cms-auth/token",
] as const satisfies readonly Route[];

/** The headers supabase-js sends with `functions.invoke`, as a browser lists them in a preflight. */
const SUPABASE_JS_HEADERS = ["apikey", "authorization", "content-type", "x-client-info"];

/** An origin that is no one's site (`.invalid` is reserved, RFC 2606): the functions must refuse it. */
export const FOREIGN_ORIGIN = "https://not-the-site.invalid";

export interface DeployedFunctions {
  /** Where the functions answer, e.g. `https://<ref>.supabase.co/functions/v1`. */
  url: string;
  /** The origins the site is served from (ALLOWED_ORIGINS, else SITE_URL's), as these settings give them; null when they give none. */
  origins: string[] | null;
  /** The setting that gives those origins, for the fix: `SITE_URL=...` or `ALLOWED_ORIGINS=...`. */
  originSetting: string;
}

interface Answer {
  status: number;
  headers: Headers;
  body: string;
}

/** An answer, or why there was none, in words. */
type Reply = { answer: Answer } | { failure: string };

async function ask(url: string, init: RequestInit): Promise<Reply> {
  try {
    // The body is read under the same signal, so a server that stalls mid-answer is bounded too.
    const response = await fetch(url, {
      ...init,
      redirect: "manual",
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    return { answer: { status: response.status, headers: response.headers, body: await response.text() } };
  } catch (error) {
    // Read by shape, not `instanceof`: fetch's errors may come from another realm (a test's VM).
    const failure = error as { name?: string; cause?: { code?: string; message?: string } };
    if (failure.name === "TimeoutError")
      return { failure: `no answer within ${REQUEST_TIMEOUT_MS / 1000} s` };
    // Node's fetch says only "fetch failed"; the cause says what failed (ECONNREFUSED, ENOTFOUND).
    return { failure: failure.cause?.message || failure.cause?.code || String(error) };
  }
}

const jsonOf = (body: string): unknown => {
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
};

/** The code of our own refusal (`{"error": {"code": ...}}`, http/answers.ts); undefined for any other body. */
function ownCode(body: string): string | undefined {
  const error = (jsonOf(body) as { error?: { code?: unknown } } | undefined)?.error;
  return typeof error?.code === "string" ? error.code : undefined;
}

/** How another's answer introduces itself: the gateway's `{"code": ..., "message": ...}`, or the start of its body. */
function describeBody(status: number, body: string): string {
  const json = jsonOf(body) as { code?: unknown; message?: unknown } | undefined;
  const code = typeof json?.code === "string" && json.code !== String(status) ? `${json.code} ` : "";
  const text = typeof json?.message === "string" ? json.message : body.trim().replace(/\s+/g, " ");
  if (text === "") return code.trim();
  return `${code}"${text.length > 80 ? `${text.slice(0, 77)}...` : text}"`;
}

/** The path under the functions' address, and the function that serves it: `POST /cms-auth/token` → `/cms-auth/token`, cms-auth. */
const pathOf = (route: Route) => route.slice(route.indexOf("/"));
const entryOf = (route: Route): Entry =>
  FUNCTIONS.find((entry) => entry.name === pathOf(route).split("/")[1]) as Entry;

/**
 * A call of a function's route with a method the route does not take, which each route refuses
 * with 405 before anything is read (`methodNotAllowed`): a GET of its POST route, else a POST of
 * its first route. A route's parameters are filled with `doctor`.
 */
export function probeOf(entry: Pick<FunctionEntry, "routes">): { method: "GET" | "POST"; path: string } {
  const post = entry.routes.find((route) => route.startsWith("POST "));
  const route = post ?? entry.routes[0];
  return {
    method: post ? "GET" : "POST",
    path: route.slice(route.indexOf("/")).replace(/:[^/]+/g, "doctor"),
  };
}

/** A finding about `entry` blocks sending when the function sends mail, as in the settings' check. */
const levelOf = (entry: Entry): Level => (entry.sendsMail ? "fail" : "warn");

const DEPLOY = "npx supabase functions deploy";
const deploy = (name: string) => `${DEPLOY} ${name}`;

/** What the probe's answer says about the function: nothing wrong (null), or a finding. */
function probeFinding(entry: Entry, path: string, answer: Answer): Finding | null {
  const { name } = entry;
  const check = "functions";
  const level = levelOf(entry);
  const code = ownCode(answer.body);
  const said = `${answer.status} ${code ?? describeBody(answer.status, answer.body)}`.trim();
  if (answer.status === 405 && code === "method_not_allowed") return null;
  // The gateway answers these itself, in its own shape; ours always carries {"error": {...}}.
  if (code === undefined && answer.status === 404)
    return {
      level,
      check,
      text: `${name} answers ${said}: it is not deployed`,
      fix: `deploy it: ${deploy(name)}`,
    };
  if (code === undefined && answer.status === 401)
    return {
      level,
      check,
      text: `${name} has verify_jwt on: Supabase's gateway answered a call without a token itself (${said}), so a caller without a Supabase JWT never reaches it`,
      fix: `${deploy(name)} with this checkout's supabase/config.toml, which sets verify_jwt = false for it`,
    };
  if (answer.status >= 500)
    return {
      level,
      check,
      text: `${name} answers ${said}: it does not start or run`,
      fix: `its logs say why (Supabase's dashboard → Edge Functions → ${name} → Logs); the settings lines above show what it would refuse to start with`,
    };
  return {
    level,
    check,
    text: `${name} answers ${said} to a GET of ${path}, where this checkout's function answers 405 method_not_allowed: another version, or not this project's function`,
    fix: `check SUPABASE_URL, then deploy this checkout's: ${deploy(name)}`,
  };
}

interface Preflight {
  route: Route;
  origin: string;
  reply: Reply;
}

function preflight(url: string, route: Route, origin: string): Promise<Preflight> {
  return ask(`${url}${pathOf(route)}`, {
    method: "OPTIONS",
    headers: {
      Origin: origin,
      "Access-Control-Request-Method": "POST",
      "Access-Control-Request-Headers": SUPABASE_JS_HEADERS.join(","),
    },
  }).then((reply) => ({ route, origin, reply }));
}

/** The entries of a comma-separated header among `wanted` (lower-cased), and `*`. */
const listed = (field: string | null, wanted: readonly string[]) =>
  (field ?? "")
    .split(",")
    .map((value) => value.trim().toLowerCase())
    .filter((value) => value === "*" || wanted.includes(value));

type Verdict = { allowed: false; why: string } | { allowed: true; missing: string[] };

/** Whether a browser at `origin` may go on after this preflight's answer, and what the answer leaves out of supabase-js's call. */
function corsVerdict(answer: Answer, origin: string): Verdict {
  const allowOrigin = answer.headers.get("access-control-allow-origin");
  if (answer.status < 200 || answer.status > 299 || (allowOrigin !== origin && allowOrigin !== "*"))
    return {
      allowed: false,
      why: `its preflight is answered ${answer.status} ${allowOrigin ? `with Access-Control-Allow-Origin ${allowOrigin}` : "without Access-Control-Allow-Origin"}`,
    };
  const methods = listed(answer.headers.get("access-control-allow-methods"), ["post"]);
  const headers = listed(answer.headers.get("access-control-allow-headers"), SUPABASE_JS_HEADERS);
  return {
    allowed: true,
    missing: [
      ...(methods.length > 0 ? [] : ["POST"]),
      ...(headers.includes("*") ? [] : SUPABASE_JS_HEADERS.filter((header) => !headers.includes(header))),
    ],
  };
}

/** The CORS findings: one per problem, naming every route it holds for; one ✓ for the rest. */
function corsFindings(preflights: Preflight[], origins: string[], originSetting: string): Finding[] {
  const check = "CORS";
  const shown = (route: Route) => pathOf(route).slice(1);
  const problems = new Map<
    string,
    { level: Level; routes: Route[]; text: (routes: string) => string; fix: string }
  >();
  const note = (key: string, route: Route, text: (routes: string) => string, fix: string) => {
    const problem = problems.get(key) ?? { level: "warn" as Level, routes: [], text, fix };
    problem.routes.push(route);
    if (levelOf(entryOf(route)) === "fail") problem.level = "fail";
    problems.set(key, problem);
  };
  for (const { route, origin, reply } of preflights) {
    if ("failure" in reply) {
      note(
        `failure ${origin} ${reply.failure}`,
        route,
        (routes) => `the preflight from ${origin} to ${routes} got ${reply.failure}`,
        "run it again; if it stays so, the functions' logs say why",
      );
      continue;
    }
    const verdict = corsVerdict(reply.answer, origin);
    if (origin === FOREIGN_ORIGIN) {
      if (verdict.allowed)
        note(
          "foreign",
          route,
          (routes) =>
            `${routes} let any site call them from the browser: a preflight from ${origin} is allowed`,
          `deploy this checkout's functions, which allow the site's origins only: ${DEPLOY}`,
        );
    } else if (!verdict.allowed)
      note(
        `origin ${origin} ${verdict.why}`,
        route,
        (routes) => `${origin} may not call ${routes} from the browser: ${verdict.why}`,
        `the functions allow the origins of their own ALLOWED_ORIGINS, else SITE_URL: set them on Supabase as here, npx supabase secrets set ${originSetting}`,
      );
    else if (verdict.missing.length > 0)
      note(
        `missing ${verdict.missing.join(",")}`,
        route,
        (routes) =>
          `the preflights of ${routes} leave out ${verdict.missing.join(", ")}, which supabase-js sends`,
        `deploy this checkout's functions: ${DEPLOY}`,
      );
  }
  const findings: Finding[] = [...problems.values()].map((problem) => ({
    level: problem.level,
    check,
    text: problem.text(problem.routes.map(shown).join(", ")),
    fix: problem.fix,
  }));
  const refused = new Set([...problems.values()].flatMap((problem) => problem.routes));
  const fine = [...new Set(preflights.map((call) => call.route))].filter((route) => !refused.has(route));
  if (fine.length > 0)
    findings.unshift({
      level: "ok",
      check,
      text: `${origins.join(" and ")} may call ${fine.map(shown).join(", ")} from the browser, another origin may not`,
    });
  return findings;
}

/** Every finding about the deployed functions: whether each answers, its verify_jwt, and CORS for the site. */
export async function checkDeployedFunctions(deployed: DeployedFunctions): Promise<Finding[]> {
  const probes = await Promise.all(
    FUNCTIONS.map(async (entry) => {
      const { method, path } = probeOf(entry);
      return { entry, path, reply: await ask(`${deployed.url}${path}`, { method }) };
    }),
  );
  const findings: Finding[] = [];
  // A failure to connect is the address's or the network's, so the functions it holds for share one line.
  const unreached = new Map<string, Entry[]>();
  const answering: Entry[] = [];
  for (const { entry, path, reply } of probes) {
    if ("failure" in reply) unreached.set(reply.failure, [...(unreached.get(reply.failure) ?? []), entry]);
    else {
      const finding = probeFinding(entry, path, reply.answer);
      if (finding) findings.push(finding);
      else answering.push(entry);
    }
  }
  for (const [failure, entries] of unreached)
    findings.push({
      level: entries.some((entry) => entry.sendsMail) ? "fail" : "warn",
      check: "functions",
      text: `${entries.map((entry) => entry.name).join(", ")} at ${deployed.url}: ${failure}`,
      fix: "check that SUPABASE_URL is the project's address (the dashboard's Project Settings → API) and that this machine reaches it, then run it again",
    });
  if (answering.length > 0)
    findings.unshift({
      level: "ok",
      check: "functions",
      text: `${answering.length === FUNCTIONS.length ? `all ${FUNCTIONS.length} functions` : answering.map((entry) => entry.name).join(", ")} answer at ${deployed.url} without a token: verify_jwt is off, as the manifest says`,
    });

  // CORS only where the function answers: elsewhere its finding above already says what to do.
  const reachable = SITE_CALLS.filter((route) => answering.includes(entryOf(route)));
  const { origins } = deployed;
  if (reachable.length === 0) return findings;
  if (!origins) {
    findings.push({
      level: "warn",
      check: "CORS",
      text: "not checked: these settings give no origin for the site (see settings)",
      fix: "set SITE_URL (and ALLOWED_ORIGINS when the site has more than one origin) as on Supabase",
    });
    return findings;
  }
  const preflights = await Promise.all(
    reachable.flatMap((route) =>
      [...origins, FOREIGN_ORIGIN].map((origin) => preflight(deployed.url, route, origin)),
    ),
  );
  return [...findings, ...corsFindings(preflights, origins, deployed.originSetting)];
}
