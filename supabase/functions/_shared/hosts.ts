/**
 * What a host may use of the core: the front door (`createBackend`), and the few parts a host
 * plugs in or reads (a database executor, the log, the mail types, the request log and client
 * address, what the build publishes). `server/` and `scripts/` import the core through this module
 * and the contract only (an ESLint rule keeps it so); everything else in `_shared/` may change
 * without them noticing. The Deno entries use `deno/serve.ts`.
 */
export { EditionError, parseEdition } from "./effect-sending/edition.ts";
export type { MailEdition } from "./effect-sending/edition.ts";
export { maskEmail, maskingLogger } from "./logger.ts";
export type { Logger } from "./logger.ts";
export { createBackend } from "./backend.ts";
export type { Backend } from "./backend.ts";
export { requestLog } from "./http/request-log.ts";
export { forwardedClientAddress, parseTrustedHops } from "./http/client-address.ts";
export type { SqlExecutor, SqlQueryable, SqlRow } from "./db/sql-executor.ts";
export { InvalidTestAddress } from "./effect-sending/effect-sending.ts";
export type { EffectSending } from "./effect-sending/effect-sending.ts";
export {
  checkEditionDate,
  fetchEdition,
  parseLatestDate,
  publishedLatestEdition,
} from "./effect-sending/edition-source.ts";
export type { LatestEditionSource, PublishedSite } from "./effect-sending/edition-source.ts";
export { sha256Hex } from "./subscriptions/tokens.ts";
export type { Fetch } from "./mail-events/ses.ts";
export type { FeatureName, FunctionEntry } from "./manifest.ts";
export type { Mailer, MailMessage } from "./mail/mailer.ts";
export { nodemailerFields } from "./mail/smtp.ts";
export { parseMailbox } from "./mail/mailbox.ts";
export { composeMime } from "./mail/mime.ts";
export { configuredTransports, exampleValue, type SendingDns, TRANSPORTS } from "./mail/transports.ts";
export { createPostgresExecutor } from "./db/postgres-executor.ts";
export { createAdminQueries, SUBSCRIBER_STATUSES } from "./subscriptions/admin-queries.ts";
export type { ExportRow } from "./subscriptions/admin-queries.ts";
export { createReadersRights } from "./subscriptions/readers-rights.ts";
export type { ForgetCounts, ReaderRecord } from "./subscriptions/readers-rights.ts";
export { createSubscriberImport } from "./subscriptions/import.ts";
export type { ImportCounts, ImportKind, ImportReader } from "./subscriptions/import.ts";
export { checkEmail } from "./subscriptions/email-address.ts";
export type { SubscriberStatus } from "./subscriptions/lifecycle.ts";
export { FUNCTIONS, hostedRequirements } from "./manifest.ts";
export { readOwnerReport } from "./report/report.ts";
export type { OwnerReport, ReportOptions } from "./report/report.ts";
export { FLOWS, lastDays, ReportRangeError } from "./report/growth.ts";
export type { DayCounts, FlowCounts, GrowthDay, GrowthSeries, Period } from "./report/growth.ts";
export { mostReadersLost, UNSUBSCRIBE_WINDOW_DAYS } from "./report/effect-outcomes.ts";
export type { EffectOutcome } from "./report/effect-outcomes.ts";
export { OTHER_SOURCE } from "./report/sources.ts";
export { CHART_COLORS, horizontalBarsSvg, lineChartSvg, splitBarChartSvg } from "./report/charts.ts";
export { chartTimes, OwnerEmailMissing } from "./report/weekly-report.ts";
export type { DraftedReport, ScheduledReport, WeeklyReport } from "./report/weekly-report.ts";
export { weekLabel } from "./report/weekly-mail.ts";
