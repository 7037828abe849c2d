/**
 * `npx tsx scripts/bounce-corpus.ts SET_OF_EMAILS_GIT RB_SISIMAI_GIT GO_SISIMAI_GIT`: writes the
 * bounce corpus the mail-events tests read (`test/fixtures/bounce-corpus/`): a selection of the
 * real bounce and feedback-loop mails of sisimai's set-of-emails
 * (https://github.com/sisimai/set-of-emails, BSD 2-clause, its LICENSE copied beside them), and
 * `expected.json`, what the corpus itself expects of each file.
 *
 * Where the expectations come from: sisimai's own test suites, which list for each mail of
 * `maildir/bsd/` the recipients' D.S.N. status, SMTP reply code, reason (`userunknown`,
 * `mailboxfull`, `blocked`, `feedback`, ...), hard-bounce flag and, for ARF, the feedback type:
 * rb-sisimai's `test/public/*.rb` (https://github.com/sisimai/rb-sisimai) first, go-sisimai's
 * `fact/*_test.go` (https://github.com/sisimai/go-sisimai) for the mails added after rb-sisimai's
 * tests were written. Each argument is a bare git directory (the `fetch` tool's mirror); files are
 * read from its HEAD. A mail that repeats another byte for byte (set-of-emails copies some
 * `lhost-*` mails as `rhost-*`) is kept once. From those readings each file gets one group, which
 * the test asserts:
 *
 * - `hard`: an RFC 3464 report (a `message/delivery-status` or `message/global-delivery-status`
 *   part) whose every recipient sisimai reads as a hard bounce (its hardbounce flag: `userunknown`,
 *   `hostunknown`, `hasmoved`, a permanent `notaccept`), whatever status code the report gives,
 *   but for the few whose own code disputes it (below) and a report of delays only (`other`);
 * - `transient`: every recipient read as one of TRANSIENT_OR_SENDER (a full mailbox, a timeout, a
 *   refusal of the sender or of the content), with a status that is not 5.1.x or 5.2.1;
 * - `feedback`: an ARF report (a `message/feedback-report` part) whose feedback type is a
 *   reader's (`abuse`, `opt-out`, ...); `namesNoRecipient` when neither the report nor the
 *   returned original's To names an address (`To: <Undisclosed Recipients>`): no one to unsubscribe;
 * - `disputed`: sisimai's reason and status disagree (`mailboxfull` with 5.1.1: RFC 3463 says the
 *   address is bad, the text says the mailbox is full; a hard bounce whose status is the sender's,
 *   X.7.x, or transient, 4.x.x, which the list never suppresses at once), or recipients of more
 *   than one group;
 * - `other`: the rest (`suspend`, `auth-failure` reports, Hotmail's pre-ARF complaints, delivered,
 *   vacation, on hold, undefined, ...).
 *
 * Each file is also put in one of two sets, by its name alone (the first hex digit of its name's
 * SHA-256): `tuning`, the mails the reading of texts (`mail-events/failure-text.ts`) was written
 * and checked against, and `held-out`, half the corpus that was not looked at while writing it,
 * on which the test measures the reading as a stranger's mail would meet it.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";

const OUT = path.resolve(__dirname, "../test/fixtures/bounce-corpus");
const [
  corpusGit = "/work/.mirror/sisimai+set-of-emails/repo",
  rubyGit = "/work/.mirror/sisimai+rb-sisimai/repo",
  goGit = "/work/.mirror/sisimai+go-sisimai/repo",
] = process.argv.slice(2);

/** How many mails to vendor, and the largest the dsn route takes (MAIL_EVENT_MAX_BYTES). */
const WANTED = 500;
const MAX_BYTES = 256 * 1024;

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
export type CorpusSet = "tuning" | "held-out";

const git = (dir: string, ...args: string[]) =>
  execFileSync("git", ["-C", dir, ...args], { encoding: "latin1", maxBuffer: 64 * 1024 * 1024 });

const reading = ([status, reply, reason, hard, feedbackType]: string[]): Reading => ({
  status,
  reply,
  reason,
  hard: hard === "true",
  ...(feedbackType ? { feedbackType } : {}),
});

/** `'02' => [['5.2.1', '550', 'userunknown', true], [...]]` in an rb-sisimai test file. */
function rubyExpectations(ruby: string): Map<string, Reading[]> {
  const byIndex = new Map<string, Reading[]>();
  const entry = /'(\d+)'\s*=>\s*\[((?:\s*\[[^\]]*\],?\s*(?:#[^\n]*)?)+)\]/g;
  for (const match of ruby.matchAll(entry))
    byIndex.set(
      match[1],
      [...match[2].matchAll(/\[([^\]]*)\]/g)].map((row) =>
        reading([...row[1].matchAll(/'([^']*)'|\b(true|false)\b/g)].map((cell) => cell[1] ?? cell[2])),
      ),
    );
  return byIndex;
}

/** `{{"02", 1, "5.1.1", "550", "userunknown", true, ""}, {...}}` in a go-sisimai test's public list. */
function goExpectations(go: string): Map<string, Reading[]> {
  const byIndex = new Map<string, Reading[]>();
  const list = /publiclist := \[\]\[\]IsExpected\{([\s\S]*?)\n\s*\}/.exec(go)?.[1] ?? "";
  for (const row of list.matchAll(
    /\{"(\d+)",\s*\d+,\s*"([^"]*)",\s*"([^"]*)",\s*"([^"]*)",\s*(true|false),\s*"([^"]*)"\}/g,
  ))
    byIndex.set(row[1], [...(byIndex.get(row[1]) ?? []), reading(row.slice(2))]);
  return byIndex;
}

/** Each suite's expectations by its mails' prefix (`lhost-sendmail`, `rhost-gsuite`, `arf`). */
function suites(): Map<string, Map<string, Reading[]>>[] {
  const ruby = new Map<string, Map<string, Reading[]>>();
  for (const test of git(rubyGit, "ls-tree", "--name-only", "HEAD", "test/public/").split("\n")) {
    const name = /^test\/public\/((?:lhost|rhost)-[a-z0-9]+|arf|rfc3464|rfc3834)\.rb$/.exec(test)?.[1];
    if (name) ruby.set(name, rubyExpectations(git(rubyGit, "show", `HEAD:${test}`)));
  }
  const go = new Map<string, Map<string, Reading[]>>();
  for (const test of git(goGit, "ls-tree", "--name-only", "HEAD", "fact/").split("\n")) {
    if (!test.endsWith("_test.go")) continue;
    const source = git(goGit, "show", `HEAD:${test}`);
    const engine = /EngineTest\(t, "([^"]+)", publiclist/.exec(source)?.[1];
    const kind = /func Test(Lhost|Rhost)/.exec(source)?.[1];
    if (engine)
      go.set(`${kind ? `${kind.toLowerCase()}-` : ""}${engine.toLowerCase()}`, goExpectations(source));
  }
  return [ruby, go];
}

/** The recipient's permanent failure by RFC 3463: X.1.x but the sender's X.1.7/X.1.8, and 5.2.1. */
const PERMANENT_STATUS = /^5\.(1\.(?![78]$)\d+|2\.1)$/;

/** A status the list never suppresses for at once: the sender's (X.7.x) or transient (4.x.x). */
const NEVER_AT_ONCE = /^(4\.\d+|\d\.7)\.\d+$/;

function group(readings: Reading[], raw: string): Group {
  const isDsn = /^content-type:\s*message\/(global-)?delivery-status/im.test(raw);
  const isArf = /^content-type:\s*message\/feedback-report/im.test(raw);
  // A report of delays only is news, not a failure, whatever its words say.
  const delaysOnly = /^action:\s*delayed/im.test(raw) && !/^action:\s*failed/im.test(raw);
  const one = (reading: Reading): Group => {
    if (reading.reason === "feedback")
      return isArf && READER_FEEDBACK.has(reading.feedbackType ?? "") ? "feedback" : "other";
    if (reading.hard) {
      if (!isDsn || delaysOnly) return "other";
      return NEVER_AT_ONCE.test(reading.status) ? "disputed" : "hard";
    }
    if (TRANSIENT_OR_SENDER.has(reading.reason))
      return PERMANENT_STATUS.test(reading.status) ? "disputed" : "transient";
    return "other";
  };
  const groups = new Set(readings.map(one));
  if (groups.size === 1) return [...groups][0];
  return "disputed";
}

/** Half the corpus, chosen by name before any reading was written: the first hex digit of its SHA-256. */
const setOf = (file: string): CorpusSet =>
  parseInt(createHash("sha256").update(file).digest("hex")[0], 16) < 8 ? "held-out" : "tuning";

interface Entry {
  file: string;
  group: Group;
  set: CorpusSet;
  readings: Reading[];
  namesNoRecipient?: true;
}

/** An ARF report naming no address: none in its recipient fields, none in the original's To. */
function namesNoRecipient(raw: string): boolean {
  const report = raw.slice(raw.search(/^content-type:\s*message\/feedback-report/im));
  return !/^(original-rcpt-to|removal-recipient|to):[^\n]*@/im.test(report);
}

const expectationSets = suites();
const seen = new Set<string>();
const candidates: (Entry & { raw: string })[] = [];
for (const line of git(corpusGit, "ls-tree", "HEAD", "maildir/bsd/")
  .split("\n")
  .sort((a, b) => a.localeCompare(b))) {
  // `100644 blob <id>\tmaildir/bsd/<name>.eml`
  const [, blob, file] = /^\d+ blob ([0-9a-f]+)\t(maildir\/bsd\/.+\.eml)$/.exec(line) ?? [];
  const match = file && /^maildir\/bsd\/(.+)-(\d+)\.eml$/.exec(file);
  if (!match || seen.has(blob)) continue;
  const readings = expectationSets.map((suite) => suite.get(match[1])?.get(match[2])).find(Boolean);
  if (!readings) continue;
  seen.add(blob);
  const raw = git(corpusGit, "show", `HEAD:${file}`);
  if (Buffer.byteLength(raw, "latin1") > MAX_BYTES) continue;
  const name = path.posix.basename(file);
  const grouped = group(readings, raw);
  candidates.push({
    file: name,
    group: grouped,
    set: setOf(name),
    readings,
    ...(grouped === "feedback" && namesNoRecipient(raw) ? { namesNoRecipient: true as const } : {}),
    raw,
  });
}

// Every hard, feedback and disputed mail, some of the others (the reader must not act on them
// wrongly either), and transient ones up to WANTED.
const QUOTA: Record<Exclude<Group, "transient">, number> = {
  hard: Infinity,
  feedback: Infinity,
  disputed: Infinity,
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
        expectations: [
          `https://github.com/sisimai/rb-sisimai/tree/${commit(rubyGit)}/test/public`,
          `https://github.com/sisimai/go-sisimai/tree/${commit(goGit)}/fact`,
        ],
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
const tally = (entries: Entry[]) =>
  entries.reduce<Record<string, number>>((sum, { group, set }) => {
    const key = `${group} (${set})`;
    return { ...sum, [key]: (sum[key] ?? 0) + 1 };
  }, {});
console.log(tally(candidates));
console.log(`${chosen.length} of ${candidates.length} mails with expectations:`, tally(chosen));
