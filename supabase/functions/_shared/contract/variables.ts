/**
 * Every environment variable the project reads, in one registry: its name, who reads it, its
 * default and what it does. It drives the parsers of both hosts (`config.ts`, `effect-sending/sending-config.ts`, `server/local-env.ts`),
 * the generated `.env.example` and the configuration table in docs/operating.md
 * (`npm run config:docs` writes both; a test keeps them in step). A variable that is not here
 * cannot be read: `readVariable` only takes these names. No imports, so the site's build reads it too.
 */

/** Who reads a variable. */
export type Reader =
  | "site build"
  | "local stack"
  | "functions"
  | "send-effect"
  | "npm run effect"
  | "npm run subscribers"
  | "npm run report"
  | "npm run cms"
  | "npm run doctor"
  | "checks"
  | "tests"
  | "benchmarks";

export type VariableGroup =
  | "The site (read by the build; baked into the static files)"
  | "The newsletter functions (the local stack and Supabase)"
  | "The Effect of the Day (npm run effect, SEND_AT, the send-effect function)"
  | "The local stack"
  | "Supabase (set there, not locally)"
  | "Continuous integration (set by GitHub Actions)"
  | "Tests and benchmarks";

export interface Variable {
  name: string;
  group: VariableGroup;
  readers: readonly Reader[];
  /** What it does, one or two sentences. */
  description: string;
  /** The value used when it is unset, as written in `.env.example`; absent: unset has a meaning, below. */
  default?: string;
  /** What unset means, when there is no plain default value. */
  unset?: string;
  /** For numbers: the accepted range; a value outside it is an error at start, never a fallback. */
  number?: { min: number; max?: number; integer?: true };
  /** Secrets are never printed; `.env.example` leaves them empty. */
  secret?: boolean;
  /**
   * Only points a function at the tests' stand-in of a service (its address): never set on
   * Supabase, so `npm run secrets` leaves it out of the settings it writes.
   */
  standIn?: true;
}

const STACK_AND_FUNCTIONS: readonly Reader[] = ["local stack", "functions"];
const SENDERS: readonly Reader[] = ["local stack", "npm run effect", "send-effect"];

export const VARIABLES = [
  // --- The site ---
  {
    name: "GATSBY_SUPABASE_URL",
    group: "The site (read by the build; baked into the static files)",
    readers: ["site build"],
    description: "The backend the site calls: your Supabase project's URL.",
    unset: "the page's own origin, which is what the local stack serves, so one build runs on any port",
  },
  {
    name: "GATSBY_SUPABASE_ANON_KEY",
    group: "The site (read by the build; baked into the static files)",
    readers: ["site build"],
    description: "The Supabase project's public anon key.",
    unset: "a local key the local stack ignores",
  },
  {
    name: "EFFECTS_TODAY",
    group: "The site (read by the build; baked into the static files)",
    readers: ["site build"],
    description:
      "The day up to which the Effects of the Day are published (YYYY-MM-DD), to preview a day to come.",
    unset: "today in content/brand.yaml's timeZone",
  },
  {
    name: "EFFECTS_DIR",
    group: "The site (read by the build; baked into the static files)",
    readers: ["site build"],
    description: "The folder of Effects to publish (the browser tests use e2e/fixtures/effects).",
    default: "content/effects",
  },
  {
    name: "EFFECT_CARDS_DIR",
    group: "The site (read by the build; baked into the static files)",
    readers: ["site build"],
    description:
      "The folder where the build keeps the Effects' social cards between builds, so an unchanged Effect's card is not drawn again.",
    default: ".effect-cards",
  },
  {
    name: "DECAP_GITHUB_REPO",
    group: "The site (read by the build; baked into the static files)",
    readers: ["site build"],
    description: "The GitHub repository (owner/name) the deployed content editor commits to.",
    unset: "GITHUB_REPOSITORY",
  },
  {
    name: "DECAP_BRANCH",
    group: "The site (read by the build; baked into the static files)",
    readers: ["site build"],
    description: "The branch the deployed content editor commits to.",
    default: "main",
  },
  {
    name: "DECAP_AUTH_URL",
    group: "The site (read by the build; baked into the static files)",
    readers: ["site build"],
    description:
      "Another OAuth provider (its origin) to sign editors in to GitHub on the deployed site, instead of the project's own cms-auth function.",
    unset: "the cms-auth function: on GATSBY_SUPABASE_URL's origin, else on the page's own (the local stack)",
  },
  {
    name: "CMS_BACKEND_PORT",
    group: "The site (read by the build; baked into the static files)",
    readers: ["npm run cms", "local stack"],
    description:
      "The port of the content editor's local backend on 127.0.0.1 (`npm run cms` prints the editor's address with it).",
    default: "8081",
    number: { min: 0, max: 65535, integer: true },
  },
  {
    name: "GATSBY_TELEMETRY_DISABLED",
    group: "The site (read by the build; baked into the static files)",
    readers: ["site build"],
    description: "1: Gatsby sends no usage data. `npm start` and the tests' builds set it unless it is set.",
    default: "1",
  },
  // --- The functions ---
  {
    name: "SITE_URL",
    group: "The newsletter functions (the local stack and Supabase)",
    readers: [...STACK_AND_FUNCTIONS, "npm run effect"],
    description: "Where the links in mail point, and where the sender reads what the build published.",
    unset: "http://localhost:$PORT on the local stack; required on Supabase",
  },
  {
    name: "ALLOWED_ORIGINS",
    group: "The newsletter functions (the local stack and Supabase)",
    readers: STACK_AND_FUNCTIONS,
    description:
      "The origins allowed to call the functions from a browser (comma-separated, scheme included); the editor's sign-in ends on the one /admin/ was opened on. On Supabase each (and SITE_URL) must be https and not this machine (localhost, 127.0.0.1), else every function refuses to start.",
    unset: "SITE_URL's origin",
  },
  {
    name: "FUNCTIONS_URL",
    group: "The newsletter functions (the local stack and Supabase)",
    readers: [...STACK_AND_FUNCTIONS, "npm run effect"],
    description:
      "Where mail providers post one-click unsubscribes (List-Unsubscribe); must be https in production.",
    unset: "$SITE_URL/functions/v1 on the local stack, $SUPABASE_URL/functions/v1 on Supabase",
  },
  {
    name: "DATABASE_URL",
    group: "The newsletter functions (the local stack and Supabase)",
    readers: [...STACK_AND_FUNCTIONS, "npm run effect"],
    description: "A PostgreSQL connection URL.",
    unset: "embedded PGlite in $DATA_DIR (on Supabase: SUPABASE_DB_URL)",
    secret: true,
  },
  {
    name: "SMTP_URL",
    group: "The newsletter functions (the local stack and Supabase)",
    readers: [...STACK_AND_FUNCTIONS, "send-effect", "npm run effect"],
    description: "smtp://user:pass@host:587 or smtps://user:pass@host:465 (the only port open on Supabase).",
    unset:
      "each mail written to $DATA_DIR/outbox/ as .eml, its link printed; on Supabase one mail transport is required (docs/operating.md, the transports)",
    secret: true,
  },
  {
    name: "RESEND_API_KEY",
    group: "The newsletter functions (the local stack and Supabase)",
    readers: [...STACK_AND_FUNCTIONS, "send-effect", "npm run effect"],
    description:
      "A Resend API key (re_...): mail goes through Resend's HTTP API, the Effect's lists 100 mails a request. Set one transport only.",
    unset: "another transport, or the outbox folder",
    secret: true,
  },
  {
    name: "RESEND_API_URL",
    group: "The newsletter functions (the local stack and Supabase)",
    readers: [...STACK_AND_FUNCTIONS, "send-effect", "npm run effect"],
    description:
      "Where the Resend API is: Resend, or the tests' stand-in (plain http only on 127.0.0.1 or localhost).",
    default: "https://api.resend.com",
    standIn: true,
  },
  {
    name: "RESEND_REQUESTS_PER_SECOND",
    group: "The newsletter functions (the local stack and Supabase)",
    readers: [...STACK_AND_FUNCTIONS, "send-effect", "npm run effect"],
    description:
      "Requests per second to Resend from every process together, paced through the database (Resend's default limit is 2 per team; a 429 is waited out). 0: no limit.",
    default: "2",
    number: { min: 0 },
  },
  {
    name: "SES_REGION",
    group: "The newsletter functions (the local stack and Supabase)",
    readers: [...STACK_AND_FUNCTIONS, "send-effect", "npm run effect"],
    description:
      "The AWS region (eu-west-1) whose Amazon SES sends the mail through its v2 API, with AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY. Set one transport only.",
    unset: "another transport, or the outbox folder",
  },
  {
    name: "AWS_ACCESS_KEY_ID",
    group: "The newsletter functions (the local stack and Supabase)",
    readers: [...STACK_AND_FUNCTIONS, "send-effect", "npm run effect"],
    description:
      "The access key of an IAM user or role allowed ses:SendEmail and ses:SendRawEmail (with SES_REGION).",
    unset: "required with SES_REGION",
    secret: true,
  },
  {
    name: "AWS_SECRET_ACCESS_KEY",
    group: "The newsletter functions (the local stack and Supabase)",
    readers: [...STACK_AND_FUNCTIONS, "send-effect", "npm run effect"],
    description: "That access key's secret (with SES_REGION).",
    unset: "required with SES_REGION",
    secret: true,
  },
  {
    name: "AWS_SESSION_TOKEN",
    group: "The newsletter functions (the local stack and Supabase)",
    readers: [...STACK_AND_FUNCTIONS, "send-effect", "npm run effect"],
    description: "The session token of temporary credentials (with SES_REGION).",
    unset: "long-term credentials",
    secret: true,
  },
  {
    name: "SES_API_URL",
    group: "The newsletter functions (the local stack and Supabase)",
    readers: [...STACK_AND_FUNCTIONS, "send-effect", "npm run effect"],
    description: "Where the SES v2 API is: the tests' stand-in (plain http only on 127.0.0.1 or localhost).",
    unset: "https://email.$SES_REGION.amazonaws.com",
    standIn: true,
  },
  {
    name: "MAIL_FROM",
    group: "The newsletter functions (the local stack and Supabase)",
    readers: [...STACK_AND_FUNCTIONS, ...SENDERS],
    description:
      'The sender of every mail: one address, as hello@example.com or Effect of the Day <hello@example.com> (a name with , ; : @ < > in double quotes: "Acme, Inc." <hello@example.com>).',
    unset: "\"<the newsletter's name> <newsletter@SITE_URL's host>\"",
  },
  {
    name: "DKIM_SELECTOR",
    group: "The newsletter functions (the local stack and Supabase)",
    readers: ["npm run doctor"],
    description:
      "The DKIM selector(s) your mail is signed with, comma-separated, for npm run doctor to check that each is published at SELECTOR._domainkey.<sending domain> (with SES: the three Easy DKIM tokens).",
    unset:
      "the transport's own selector where mail/transports.ts knows one (docs/operating.md's transports table); else npm run doctor says what to check",
  },
  {
    name: "DOCTOR_DNS_SERVERS",
    group: "The newsletter functions (the local stack and Supabase)",
    readers: ["npm run doctor", "tests"],
    description:
      "The DNS servers npm run doctor asks, comma-separated (1.1.1.1 or 127.0.0.1:5353), e.g. to see a change before the local cache does.",
    unset: "the system's resolvers",
  },
  {
    name: "DOCTOR_FUNCTIONS_URL",
    group: "The newsletter functions (the local stack and Supabase)",
    readers: ["npm run doctor", "tests"],
    description:
      "Where npm run doctor calls the deployed functions (that each answers, verify_jwt off, CORS for the site), e.g. http://127.0.0.1:54321/functions/v1 for those of `supabase start`.",
    unset:
      "$SUPABASE_URL/functions/v1 when SUPABASE_URL is an https address; else the functions are not called",
  },
  {
    name: "RATE_LIMIT_PER_MINUTE",
    group: "The newsletter functions (the local stack and Supabase)",
    readers: STACK_AND_FUNCTIONS,
    description: "Signups per client address per minute.",
    default: "10",
    number: { min: 1 },
  },
  {
    name: "LINK_RATE_LIMIT_PER_MINUTE",
    group: "The newsletter functions (the local stack and Supabase)",
    readers: STACK_AND_FUNCTIONS,
    description: "Confirm and unsubscribe calls per client address per minute.",
    default: "60",
    number: { min: 1 },
  },
  {
    name: "RESEND_COOLDOWN_SECONDS",
    group: "The newsletter functions (the local stack and Supabase)",
    readers: STACK_AND_FUNCTIONS,
    description: "Seconds between two confirmation mails to one mailbox (ann+1@ and Ann+2@ are one mailbox).",
    default: "60",
    number: { min: 0 },
  },
  {
    name: "CONFIRMATION_MAILS_PER_DAY",
    group: "The newsletter functions (the local stack and Supabase)",
    readers: STACK_AND_FUNCTIONS,
    description: "Confirmation mails, their reminders included, to one mailbox per UTC day.",
    default: "3",
    number: { min: 1 },
  },
  {
    name: "CONFIRMATION_MAILS_PER_CLIENT_PER_DAY",
    group: "The newsletter functions (the local stack and Supabase)",
    readers: STACK_AND_FUNCTIONS,
    description:
      "Confirmation mails, their reminders included, that the signups from one client address may cause per UTC day.",
    default: "30",
    number: { min: 1 },
  },
  {
    name: "CONFIRM_TOKEN_TTL_HOURS",
    group: "The newsletter functions (the local stack and Supabase)",
    readers: STACK_AND_FUNCTIONS,
    description: "Hours a confirmation link works.",
    default: "24",
    number: { min: 0.001 },
  },
  {
    name: "PURGE_PENDING_AFTER_DAYS",
    group: "The newsletter functions (the local stack and Supabase)",
    readers: STACK_AND_FUNCTIONS,
    description: "Days after which an address that never confirmed is deleted.",
    default: "7",
    number: { min: 1 },
  },
  {
    name: "MAX_BODY_BYTES",
    group: "The newsletter functions (the local stack and Supabase)",
    readers: STACK_AND_FUNCTIONS,
    description: "The largest request body the functions read, in bytes.",
    default: "4096",
    number: { min: 256, max: 1_000_000 },
  },
  {
    name: "MAIL_RETRY_BASE_SECONDS",
    group: "The newsletter functions (the local stack and Supabase)",
    readers: [...STACK_AND_FUNCTIONS, ...SENDERS],
    description:
      "The first retry of a mail that failed for the moment, in seconds; each further retry waits twice as long.",
    default: "10",
    number: { min: 0.01 },
  },
  {
    name: "MAIL_RETRY_MAX_SECONDS",
    group: "The newsletter functions (the local stack and Supabase)",
    readers: [...STACK_AND_FUNCTIONS, ...SENDERS],
    description: "The longest wait between two retries of a mail, in seconds.",
    default: "1800",
    number: { min: 0.01 },
  },
  {
    name: "CMS_GITHUB_CLIENT_ID",
    group: "The newsletter functions (the local stack and Supabase)",
    readers: STACK_AND_FUNCTIONS,
    description:
      "The Client ID of the GitHub OAuth App that signs editors in to the content editor (cms-auth; docs/deploying.md).",
    unset: "cms-auth answers 503: nobody can sign in to /admin/ on the deployed site",
  },
  {
    name: "CMS_GITHUB_CLIENT_SECRET",
    group: "The newsletter functions (the local stack and Supabase)",
    readers: STACK_AND_FUNCTIONS,
    description: "That OAuth App's client secret; it also signs cms-auth's short-lived state.",
    unset: "cms-auth answers 503",
    secret: true,
  },
  {
    name: "CMS_GITHUB_URL",
    group: "The newsletter functions (the local stack and Supabase)",
    readers: STACK_AND_FUNCTIONS,
    description:
      "Where cms-auth sends editors to authorize and exchanges the code: GitHub, or the tests' stand-in on loopback.",
    default: "https://github.com",
    standIn: true,
  },
  // --- The Effect of the Day ---
  {
    name: "RESEND_WEBHOOK_SECRET",
    group: "The newsletter functions (the local stack and Supabase)",
    readers: STACK_AND_FUNCTIONS,
    description:
      "The signing secret (whsec_...) of the Resend webhook that posts bounces and complaints to mail-events/resend (docs/operating.md).",
    unset: "mail-events/resend answers 503 (Resend keeps the events and retries)",
    secret: true,
  },
  {
    name: "SES_TOPIC_ARN",
    group: "The newsletter functions (the local stack and Supabase)",
    readers: STACK_AND_FUNCTIONS,
    description:
      "The SNS topic(s), comma-separated, whose SES bounce and complaint notifications mail-events/ses accepts; any other topic is refused.",
    unset: "mail-events/ses answers 503",
  },
  {
    name: "DSN_WEBHOOK_SECRET",
    group: "The newsletter functions (the local stack and Supabase)",
    readers: STACK_AND_FUNCTIONS,
    description:
      "The bearer secret (32 characters or more) an inbound-mail route sends with the bounce and complaint mails it posts to mail-events/dsn.",
    unset: "mail-events/dsn answers 503",
    secret: true,
  },
  {
    name: "BOUNCE_ADDRESS",
    group: "The newsletter functions (the local stack and Supabase)",
    readers: [...STACK_AND_FUNCTIONS, "send-effect", "npm run effect", "npm run doctor"],
    description:
      "The mailbox returned mail comes back to (bounces@mail.example), whose inbound route posts it to mail-events/dsn. Every mail to a subscriber over SMTP is sent from bounces+TOKEN@mail.example (VERP), the token sealed with BOUNCE_TOKEN_KEY, and mail-events/dsn acts only on a report carrying a valid one. Needs DSN_WEBHOOK_SECRET and BOUNCE_TOKEN_KEY; at most 19 characters before the @.",
    unset:
      "the envelope sender is MAIL_FROM, and mail-events/dsn acts only on complaints whose reported mail carries its List-Unsubscribe token",
  },
  {
    name: "BOUNCE_TOKEN_KEY",
    group: "The newsletter functions (the local stack and Supabase)",
    readers: [...STACK_AND_FUNCTIONS, "send-effect", "npm run effect"],
    description:
      "The key (32 characters or more, not DSN_WEBHOOK_SECRET) of the tokens in BOUNCE_ADDRESS: each names the mail and its reader, sealed (the reader's id is not readable in it), and is believed for 30 days. To change it, move the old one to BOUNCE_TOKEN_PREVIOUS_KEY.",
    unset: "required with BOUNCE_ADDRESS",
    secret: true,
  },
  {
    name: "BOUNCE_TOKEN_PREVIOUS_KEY",
    group: "The newsletter functions (the local stack and Supabase)",
    readers: STACK_AND_FUNCTIONS,
    description:
      "The BOUNCE_TOKEN_KEY before the last change, for reading only: returned mail of what was sent with it still counts. Unset it 30 days after the change, when its tokens have expired.",
    unset: "only BOUNCE_TOKEN_KEY's tokens are read",
    secret: true,
  },
  {
    name: "SNS_ALLOW_SIGNATURE_V1",
    group: "The newsletter functions (the local stack and Supabase)",
    readers: STACK_AND_FUNCTIONS,
    description:
      "1: mail-events/ses also accepts SNS messages signed with SignatureVersion 1 (SHA1). Better: set the topic's SignatureVersion to 2 (docs/operating.md).",
    unset: "only SignatureVersion 2 (SHA256) is accepted",
  },
  {
    name: "OWNER_EMAIL",
    group: "The Effect of the Day (npm run effect, SEND_AT, the send-effect function)",
    readers: ["local stack", "send-effect", "npm run report"],
    description:
      "The owner's address: the weekly report (the last week's numbers, a chart, the top sources, the Effect that lost the most readers) goes there each Monday from SEND_AT (08:00 without it), once, and `npm run report -- mail` sends it at once. Needed for nothing else.",
    unset:
      "no weekly report: the schedule says so in its log once a week, and `npm run report -- mail` fails",
  },
  {
    name: "SEND_AT",
    group: "The Effect of the Day (npm run effect, SEND_AT, the send-effect function)",
    readers: ["local stack", "send-effect"],
    description:
      "The time of day (HH:MM, in content/brand.yaml's timeZone) from which the day's Effect is sent by itself.",
    unset: "sent only by `npm run effect -- send DATE`",
  },
  {
    name: "MAIL_RATE_PER_SECOND",
    group: "The Effect of the Day (npm run effect, SEND_AT, the send-effect function)",
    readers: SENDERS,
    description:
      "Mails per second at the mail transport's call, across all connections (0: no limit). Over Resend the Effect goes in batches of 100 paced by RESEND_REQUESTS_PER_SECOND instead.",
    default: "10",
    number: { min: 0 },
  },
  {
    name: "SMTP_MAX_CONNECTIONS",
    group: "The Effect of the Day (npm run effect, SEND_AT, the send-effect function)",
    readers: SENDERS,
    description: "Pooled SMTP connections.",
    default: "5",
    number: { min: 1, max: 100 },
  },
  {
    name: "EFFECT_BATCH_SIZE",
    group: "The Effect of the Day (npm run effect, SEND_AT, the send-effect function)",
    readers: SENDERS,
    description: 'Deliveries claimed and recorded together (also the most a crash can leave "unknown").',
    default: "50",
    number: { min: 1, max: 1000 },
  },
  {
    name: "EFFECT_LEASE_SECONDS",
    group: "The Effect of the Day (npm run effect, SEND_AT, the send-effect function)",
    readers: SENDERS,
    description: "Seconds a sender holds the deliveries it claimed (renewed while it sends).",
    default: "60",
    number: { min: 1, max: 3600 },
  },
  {
    name: "EFFECT_PAUSE_AFTER_FAILURES",
    group: "The Effect of the Day (npm run effect, SEND_AT, the send-effect function)",
    readers: SENDERS,
    description: "Temporary failures in a row after which the edition pauses until the next run.",
    default: "20",
    number: { min: 1 },
  },
  // --- The local stack ---
  {
    name: "PORT",
    group: "The local stack",
    readers: ["local stack", "npm run effect", "npm run cms"],
    description: "The port the local stack listens on (0: any free port).",
    default: "8000",
    number: { min: 0, max: 65535, integer: true },
  },
  {
    name: "HOST",
    group: "The local stack",
    readers: ["local stack"],
    description:
      "The address it listens on: 127.0.0.1 keeps it on this machine; 0.0.0.0 to reach it from others.",
    default: "127.0.0.1",
  },
  {
    name: "DATA_DIR",
    group: "The local stack",
    readers: ["local stack", "npm run effect"],
    description: "PGlite's files, the outbox and the Effect previews (kept private to your user).",
    default: ".data",
  },
  {
    name: "INIT_CWD",
    group: "The local stack",
    readers: ["npm run report"],
    description:
      "Set by npm: the folder the command was typed in, where `npm run report` writes its page (npm runs the script in the project's folder).",
    unset: "the current folder",
  },
  {
    name: "PUBLIC_DIR",
    group: "The local stack",
    readers: ["local stack", "npm run effect"],
    description: "The built site it serves and the Effects it sends.",
    default: "public",
  },
  {
    name: "TRUST_PROXY",
    group: "The local stack",
    readers: ["local stack"],
    description:
      "The number of reverse proxies in front of it: rate limits then count the address the outermost one appended to X-Forwarded-For. Leave unset without a proxy, or anyone could choose their own bucket.",
    default: "0",
    number: { min: 0, max: 10 },
  },
  {
    name: "FORGET_HASH_KEY",
    group: "The local stack",
    readers: ["npm run subscribers", "local stack"],
    description:
      "The key (32 characters or more) of the hash `npm run subscribers -- forget` keeps of a forgotten address, so no import adds it again. Set your own before forgetting anyone on the real list, and never change it: the hashes kept under another key are no longer recognised.",
    default: "local-only-forget-hash-key-0123456789",
    secret: true,
  },
  // --- Supabase ---
  {
    name: "SUPABASE_URL",
    group: "Supabase (set there, not locally)",
    readers: ["functions", "send-effect"],
    description:
      "Set by Supabase: the project's address. Its being https marks a hosted project, where SITE_URL and a mail transport are required.",
    unset: "a local `supabase functions serve`",
  },
  {
    name: "SUPABASE_DB_URL",
    group: "Supabase (set there, not locally)",
    readers: ["functions", "send-effect"],
    description: "Set by Supabase: the project's database.",
    unset: "DATABASE_URL",
    secret: true,
  },
  {
    name: "SEND_EFFECT_KEY",
    group: "Supabase (set there, not locally)",
    readers: ["send-effect"],
    description: "The bearer key the schedule (pg_cron) sends to send-effect; also stored in Vault.",
    unset: "every call is refused",
    secret: true,
  },
  {
    name: "SEND_EFFECT_SECONDS",
    group: "Supabase (set there, not locally)",
    readers: ["send-effect"],
    description:
      "Seconds each send-effect call claims mail for. The schedule calls every 10 s: by default each call ends before the next (an SMTP call's pool and pace are its own); over Resend set 11, so each call overlaps the next by a second and the account's rate has no gap (overlapping calls share its pace through the database).",
    default: "9",
    number: { min: 1, max: 140 },
  },
  {
    name: "SEND_EFFECT_CPU_MS",
    group: "Supabase (set there, not locally)",
    readers: ["send-effect"],
    description:
      "Milliseconds of CPU each send-effect call may use before it stops between two batches, with nothing in doubt. On Supabase the worker counts its CPU itself (the runtime has no CPU clock), from boot and across calls, and claims nothing past 1,800: the platform retires a worker at 1,000 and stops it at 2,000.",
    default: "1300",
    number: { min: 100, max: 1800, integer: true },
  },
  {
    name: "FUNCTION_PORT",
    group: "Supabase (set there, not locally)",
    readers: ["functions", "send-effect"],
    description: "Under plain `deno run` (the tests): serve the entry on 127.0.0.1 at this port.",
    unset: "Deno's default (Supabase's runtime decides)",
    number: { min: 1, max: 65535, integer: true },
  },
  // --- CI ---
  {
    name: "GITHUB_REPOSITORY",
    group: "Continuous integration (set by GitHub Actions)",
    readers: ["site build"],
    description:
      "The repository a workflow runs in: the content editor's repository when DECAP_GITHUB_REPO is unset.",
  },
  {
    name: "GITHUB_ACTIONS",
    group: "Continuous integration (set by GitHub Actions)",
    readers: ["checks"],
    description: "Makes `npm run check:content` print its problems as annotations on the changed files.",
  },
  // --- Tests and benchmarks ---
  {
    name: "CI",
    group: "Tests and benchmarks",
    readers: ["tests"],
    description:
      "Set by CI (and `.ci/run`): a missing Chromium or PostgreSQL fails the tests instead of skipping them.",
  },
  {
    name: "TEST_DATABASE_URL",
    group: "Tests and benchmarks",
    readers: ["tests", "benchmarks"],
    description: "A PostgreSQL server the tests make their throwaway databases on (never DATABASE_URL).",
    unset: "the tests start a throwaway cluster of their own",
    secret: true,
  },
  {
    name: "POSTGRES_BIN",
    group: "Tests and benchmarks",
    readers: ["tests", "benchmarks"],
    description: "Where PostgreSQL's initdb and pg_ctl are, for the throwaway cluster.",
    default: "/usr/lib/postgresql/15/bin",
  },
  {
    name: "CHROMIUM_PATH",
    group: "Tests and benchmarks",
    readers: ["tests", "benchmarks"],
    description: "The Chromium the screenshots and the benchmarks drive, as a visitor's.",
    default: "/usr/bin/chromium",
  },
  {
    name: "CHROMIUM_SHELL_PATH",
    group: "Tests and benchmarks",
    readers: ["tests"],
    description:
      "The headless shell of the same Chromium (Debian's `chromium-headless-shell`) that the browser and mail tests drive.",
    default: "/usr/lib/chromium/chromium-headless-shell",
  },
  {
    name: "BENCH_RUNS",
    group: "Tests and benchmarks",
    readers: ["benchmarks"],
    description: "Lighthouse runs per page and taps per delay.",
    default: "9",
    number: { min: 1, max: 50, integer: true },
  },
  {
    name: "BENCH_SKIP",
    group: "Tests and benchmarks",
    readers: ["benchmarks"],
    description:
      "Pieces of `npm run bench` to leave out, comma-separated: tap, dialog, signup, send, supabase, cpu, hostile, year, import (bench/pieces.ts).",
  },
  {
    name: "BENCH_SECONDS",
    group: "Tests and benchmarks",
    readers: ["benchmarks"],
    description: "Seconds of signup load per database.",
    default: "10",
    number: { min: 1, max: 600 },
  },
  {
    name: "BENCH_CONNECTIONS",
    group: "Tests and benchmarks",
    readers: ["benchmarks"],
    description: "Concurrent connections of the signup load.",
    default: "10",
    number: { min: 1, max: 1000, integer: true },
  },
  {
    name: "BENCH_SUBSCRIBERS",
    group: "Tests and benchmarks",
    readers: ["benchmarks"],
    description: "Confirmed subscribers the send benchmark mails.",
    default: "10000",
    number: { min: 1, max: 1_000_000, integer: true },
  },
  {
    name: "NODE_OPTIONS",
    group: "Tests and benchmarks",
    readers: ["tests"],
    description:
      "Node's own options; `npm test` (scripts/run-tests.ts) adds `--experimental-vm-modules` for Jest, whose PGlite loads its WebAssembly with a dynamic import.",
  },
  {
    name: "JEST_TIMES_FILE",
    group: "Tests and benchmarks",
    readers: ["tests"],
    description:
      "A file `npm test` writes every test file's start, time and CPU to, as JSON, beside the per-project summary it always prints.",
  },
  {
    name: "JEST_CPU_DIR",
    group: "Tests and benchmarks",
    readers: ["tests"],
    description:
      "Set by Jest's reporter for its workers (test/support/jest/cpu-time.js): where each test file's CPU is recorded.",
  },
  {
    name: "E2E_SITE_BUILD_DIR",
    group: "Tests and benchmarks",
    readers: ["tests"],
    description:
      "Set by the browser tests' global setup for Jest's workers (test/support/test-site-build.ts): the background build's log and result.",
  },
  {
    name: "CLOCK_FILE",
    group: "Tests and benchmarks",
    readers: ["tests"],
    description: "The contract suite's Deno host: the file holding the clock's offset in milliseconds.",
  },
  {
    name: "SENDER_IDENTITY",
    group: "Tests and benchmarks",
    readers: ["tests"],
    description: "The contract suite's Deno host: the sender's names and time zone, as JSON.",
  },
  {
    name: "OUTBOX_DIR",
    group: "Tests and benchmarks",
    readers: ["tests"],
    description: "The contract suite's Deno host: where its mail is written.",
  },
] as const satisfies readonly Variable[];

export type VariableName = (typeof VARIABLES)[number]["name"];

export type Env = Record<string, string | undefined>;

/**
 * A setting that cannot be used. Its message names the variable and says what is wrong, never the
 * value: the error reaches the function's log, and a value may be a secret (SMTP_URL's password).
 */
export class ConfigError extends Error {
  override name = "ConfigError";
}

/**
 * A URL setting, parsed. A value that is no URL is a `ConfigError` that does not repeat it: the
 * runtime's own `TypeError` does (Deno: `Invalid URL: 'smtps://user:<password>@…'`; Node keeps it
 * as the error's `input`, which a log of the error object prints). `shape` says what is expected.
 */
export function parseUrlSetting(name: string, value: string, shape: string): URL {
  try {
    return new URL(value);
  } catch {
    throw new ConfigError(`${name} is not a URL: ${shape}`);
  }
}

/** What to say of a URL whose user name or password may hold a character a URL gives a meaning. */
export const URL_CREDENTIALS_HINT =
  "a / ? # @ : or % in the user name or password must be percent-encoded (encodeURIComponent: / is %2F)";

const byName = new Map<string, Variable>(VARIABLES.map((variable) => [variable.name, variable]));

/** The variable's entry; every name the code reads is one (the type says so). */
export const variable = (name: VariableName): Variable => byName.get(name) as Variable;

/** The value as set (trimmed), or undefined when unset or empty: `PORT= npm start` means unset. */
export function readVariable(env: Env, name: VariableName): string | undefined {
  return env[name]?.trim() || undefined;
}

/**
 * A number variable: as set, else its registered default (undefined when it has none and is
 * unset); outside its range, or not a number, an error naming it, never a quiet fallback.
 */
export function readNumberVariable(env: Env, name: VariableName): number;
export function readNumberVariable(env: Env, name: VariableName, optional: "optional"): number | undefined;
export function readNumberVariable(env: Env, name: VariableName, optional?: "optional"): number | undefined {
  const entry = variable(name);
  const range = entry.number;
  if (!range) throw new Error(`${name} is not a number variable`);
  const raw = readVariable(env, name) ?? entry.default;
  if (raw === undefined) {
    if (optional) return undefined;
    throw new Error(`${name} has no default`);
  }
  const value = Number(raw);
  const max = range.max ?? Number.MAX_SAFE_INTEGER;
  // What is wrong, in words: the value itself is not repeated (ConfigError).
  const problem = !Number.isFinite(value)
    ? "it is not a number"
    : value < range.min
      ? `it is less than ${range.min}`
      : value > max
        ? `it is more than ${max}`
        : range.integer && !Number.isInteger(value)
          ? "it has a fraction"
          : null;
  if (problem)
    throw new ConfigError(
      `${name} must be ${range.integer ? "a whole number" : "a number"} from ${range.min} to ${max}: ${problem}`,
    );
  return value;
}

/** A text variable: as set, else its registered default. */
export function readTextVariable(env: Env, name: VariableName): string {
  const value = readVariable(env, name) ?? variable(name).default;
  if (value === undefined) throw new Error(`${name} has no default`);
  return value;
}
