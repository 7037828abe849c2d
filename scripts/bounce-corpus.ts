/**
 * `npx tsx scripts/bounce-corpus.ts SET_OF_EMAILS_GIT RB_SISIMAI_GIT`: writes the bounce corpus the
 * mail-events tests read (`test/fixtures/bounce-corpus/`): a selection of the real bounce and
 * feedback-loop mails of sisimai's set-of-emails (https://github.com/sisimai/set-of-emails, BSD
 * 2-clause, its LICENSE copied beside them), and `expected.json`, what the corpus itself expects of
 * each file.
 *
 * Where the expectations come from: sisimai's own test suite, rb-sisimai's `test/public/*.rb`
 * (https://github.com/sisimai/rb-sisimai), which lists for each mail of `maildir/bsd/` the
 * recipients' D.S.N. status, SMTP reply code, reason (`userunknown`, `mailboxfull`, `blocked`,
 * `feedback`, ...), hard-bounce flag and, for ARF, the feedback type. Each argument is a bare git
 * directory (the `fetch` tool's mirror); files are read from its HEAD. From those readings each
 * file gets one group, which the test asserts:
 *
 * - `hard`: an RFC 3464 report (a `message/delivery-status` or `message/global-delivery-status`
 *   part) whose every recipient sisimai reads as `userunknown`, `hostunknown` or `suspend` with a
 *   5.1.x or 5.2.1 status: the recipient's permanent failure;
 * - `transient`: every recipient read as one of TRANSIENT_OR_SENDER (a full mailbox, a timeout, a
 *   refusal of the sender or of the content), with a status that is not 5.1.x or 5.2.1;
 * - `feedback`: an ARF report (a `message/feedback-report` part) whose feedback type is a
 *   reader's (`abuse`, `opt-out`, ...); `namesNoRecipient` when neither the report nor the
 *   returned original's To names an address (`To: <Undisclosed Recipients>`): no one to unsubscribe;
 * - `disputed`: sisimai's reason and status disagree (`mailboxfull` with 5.1.1: RFC 3463 says the
 *   address is bad, the text says the mailbox is full), or recipients of more than one group;
 * - `other`: the rest (`auth-failure` reports, Hotmail's pre-ARF complaints, delivered, vacation,
 *   on hold, undefined, ...).
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";

const OUT = path.resolve(__dirname, "../test/fixtures/bounce-corpus");
const [
  corpusGit = "/work/.mirror/sisimai+set-of-emails/repo",
  sisimaiGit = "/work/.mirror/sisimai+rb-sisimai/repo",
] = process.argv.slice(2);

/** How many mails to vendor, and the largest the dsn route takes (MAIL_EVENT_MAX_BYTES). */
const WANTED = 300;
const MAX_BYTES = 256 * 1024;

const HARD_REASONS = new Set(["userunknown", "hostunknown", "suspend"]);
const TRANSIENT_OR_SENDER = new Set([
  "mailboxfull",
  "exceedlimit",
  "exceed",
  "systemerror",
  "systemfull",
  "networkerror",
  "toomanyconn",
  "blocked",
  "rejected",
  "filtered",
  "policyviolation",
  "spamdetected",
  "virusdetected",
  "securityerror",
  "authfailure",
  "requireptr",
  "badreputation",
  "notcompliantrfc",
  "norelaying",
  "contenterror",
  "mesgtoobig",
  "emailtoolarge",
  "ratelimited",
  "speeding",
  "expired",
]);
/** Feedback types a reader sends; `auth-failure` (RFC 6591) is about the sender, not a complaint. */
const READER_FEEDBACK = new Set(["abuse", "fraud", "virus", "other", "opt-out", "not-spam"]);

export interface Reading {
  status: string;
  reply: string;
  reason: string;
  hard: boolean;
  feedbackType?: string;
}
export type Group = "hard" | "transient" | "feedback" | "disputed" | "other";

const git = (dir: string, ...args: string[]) =>
  execFileSync("git", ["-C", dir, ...args], { encoding: "latin1", maxBuffer: 64 * 1024 * 1024 });

/** `'02' => [['5.2.1', '550', 'userunknown', true], [...]]` in a sisimai test file. */
function expectations(ruby: string): Map<string, Reading[]> {
  const byIndex = new Map<string, Reading[]>();
  const entry = /'(\d+)'\s*=>\s*\[((?:\s*\[[^\]]*\],?\s*(?:#[^\n]*)?)+)\]/g;
  for (const match of ruby.matchAll(entry)) {
    const readings = [...match[2].matchAll(/\[([^\]]*)\]/g)].map((row) => {
      const cells = [...row[1].matchAll(/'([^']*)'|\b(true|false)\b/g)].map((cell) => cell[1] ?? cell[2]);
      const [status, reply, reason, hard, feedbackType] = cells;
      return { status, reply, reason, hard: hard === "true", ...(feedbackType ? { feedbackType } : {}) };
    });
    byIndex.set(match[1], readings);
  }
  return byIndex;
}

/** The recipient's permanent failure by RFC 3463: X.1.x but the sender's X.1.7/X.1.8, and 5.2.1. */
const PERMANENT_STATUS = /^5\.(1\.(?![78]$)\d+|2\.1)$/;

function group(readings: Reading[], raw: string): Group {
  const isDsn = /^content-type:\s*message\/(global-)?delivery-status/im.test(raw);
  const isArf = /^content-type:\s*message\/feedback-report/im.test(raw);
  const one = (reading: Reading): Group => {
    if (reading.reason === "feedback")
      return isArf && READER_FEEDBACK.has(reading.feedbackType ?? "") ? "feedback" : "other";
    if (HARD_REASONS.has(reading.reason))
      return isDsn && PERMANENT_STATUS.test(reading.status) ? "hard" : "other";
    if (TRANSIENT_OR_SENDER.has(reading.reason))
      return PERMANENT_STATUS.test(reading.status) ? "disputed" : "transient";
    return "other";
  };
  const groups = new Set(readings.map(one));
  if (groups.size === 1) return [...groups][0];
  return "disputed";
}

const files = git(corpusGit, "ls-tree", "--name-only", "HEAD", "maildir/bsd/")
  .split("\n")
  .filter((file) => file.endsWith(".eml"));
const suites = new Map<string, Map<string, Reading[]>>();
for (const test of git(sisimaiGit, "ls-tree", "--name-only", "HEAD", "test/public/").split("\n")) {
  const name = /^test\/public\/((?:lhost|rhost)-[a-z0-9]+|arf|rfc3464|rfc3834)\.rb$/.exec(test)?.[1];
  if (name) suites.set(name, expectations(git(sisimaiGit, "show", `HEAD:${test}`)));
}

interface Entry {
  file: string;
  group: Group;
  readings: Reading[];
  namesNoRecipient?: true;
}

/** An ARF report naming no address: none in its recipient fields, none in the original's To. */
function namesNoRecipient(raw: string): boolean {
  const report = raw.slice(raw.search(/^content-type:\s*message\/feedback-report/im));
  return !/^(original-rcpt-to|removal-recipient|to):[^\n]*@/im.test(report);
}
const candidates: (Entry & { raw: string })[] = [];
for (const file of files) {
  const match = /^maildir\/bsd\/(.+)-(\d+)\.eml$/.exec(file);
  const readings = match && suites.get(match[1])?.get(match[2]);
  if (!match || !readings) continue;
  const raw = git(corpusGit, "show", `HEAD:${file}`);
  if (Buffer.byteLength(raw, "latin1") > MAX_BYTES) continue;
  const grouped = group(readings, raw);
  candidates.push({
    file: path.posix.basename(file),
    group: grouped,
    readings,
    ...(grouped === "feedback" && namesNoRecipient(raw) ? { namesNoRecipient: true as const } : {}),
    raw,
  });
}

// Every hard and feedback mail, some of the disputed and the others (the reader must not act on
// them wrongly either), and transient ones up to WANTED.
const QUOTA: Record<Exclude<Group, "transient">, number> = {
  hard: Infinity,
  feedback: Infinity,
  disputed: 20,
  other: 30,
};
const byName = [...candidates].sort((a, b) => a.file.localeCompare(b.file));
const chosen: typeof candidates = [];
for (const wanted of ["hard", "feedback", "disputed", "other"] as const)
  chosen.push(...byName.filter((entry) => entry.group === wanted).slice(0, QUOTA[wanted]));
// The transient ones in turns by reason, so that each reason (blocked, mailboxfull, authfailure,
// ...) is there, not only the first mails of the alphabet.
const byReason = new Map<string, typeof candidates>();
for (const entry of byName.filter((candidate) => candidate.group === "transient"))
  byReason.set(entry.readings[0].reason, [...(byReason.get(entry.readings[0].reason) ?? []), entry]);
while (chosen.length < WANTED && [...byReason.values()].some((list) => list.length > 0))
  for (const list of byReason.values()) {
    const next = list.shift();
    if (next && chosen.length < WANTED) chosen.push(next);
  }
chosen.sort((a, b) => a.file.localeCompare(b.file));

rmSync(OUT, { recursive: true, force: true });
mkdirSync(OUT, { recursive: true });
for (const entry of chosen) writeFileSync(path.join(OUT, entry.file), Buffer.from(entry.raw, "latin1"));
writeFileSync(path.join(OUT, "LICENSE"), Buffer.from(git(corpusGit, "show", "HEAD:LICENSE"), "latin1"));
const commit = (dir: string) => git(dir, "rev-parse", "HEAD").trim();
writeFileSync(
  path.join(OUT, "expected.json"),
  `${JSON.stringify(
    {
      source: {
        mails: `https://github.com/sisimai/set-of-emails/tree/${commit(corpusGit)}/maildir/bsd`,
        expectations: `https://github.com/sisimai/rb-sisimai/tree/${commit(sisimaiGit)}/test/public`,
        written_by: "scripts/bounce-corpus.ts",
      },
      files: chosen.map(({ raw: _raw, ...entry }) => entry),
    },
    null,
    1,
  )}\n`,
);
// In the repository's own format, so `npm run check` passes on what this writes.
execFileSync(process.execPath, [
  require.resolve("prettier/bin/prettier.cjs"),
  "--write",
  path.join(OUT, "expected.json"),
]);
const counts = chosen.reduce<Record<string, number>>(
  (sum, entry) => ({ ...sum, [entry.group]: (sum[entry.group] ?? 0) + 1 }),
  {},
);
const all = candidates.reduce<Record<string, number>>(
  (sum, e) => ({ ...sum, [e.group]: (sum[e.group] ?? 0) + 1 }),
  {},
);
console.log(all);
console.log(`${chosen.length} of ${candidates.length} mails with expectations:`, counts);
