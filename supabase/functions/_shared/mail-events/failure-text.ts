/**
 * What the words of a failure say happened, for the codes that do not say it themselves: a
 * `Status` of X.0.0 ("other undefined status"), X.4.4 (RFC 3463: "useful for both permanent and
 * persistent transient errors"), an undefined detail, or no enhanced code at all (`550 Unknown
 * user`). The receiving servers' texts are few in kind, and sisimai's reason table
 * (https://github.com/sisimai/rb-sisimai, `lib/sisimai/reason/*.rb`) has collected them from real
 * bounces for years; listmonk's POP bounce reader and Postal's do the same with a shorter list.
 * The phrases below are ours, grouped by what they mean for the list, not copied from either.
 *
 * The groups are tried in sisimai's order, so a text that says two things is read as the one that
 * costs the reader least: first what is temporary (a full mailbox, "try again later", a message too
 * big, a timeout), then what is about us (a blocklist, spam, policy, SPF/DKIM, relaying, the
 * sender's address), and only then what says the recipient's address or domain is gone (no such
 * user, domain not found, account disabled, has moved). A text matching none says nothing.
 *
 * Only the first READING_CHARS of a text are read, lower-cased with its white space collapsed, and
 * every pattern is a bounded phrase (no `.*` between words), so a reading costs the same for any
 * text a stranger sends.
 */

/** What a failure's words say: temporary, the sender's fault, or the recipient's address gone. */
export type TextVerdict = "temporary" | "sender" | "recipient";

export interface TextReading {
  verdict: TextVerdict;
  /** What the text said, for the operator (`no such user`, `mailbox full`). */
  said: string;
}

/** How much of a text is read. */
export const READING_CHARS = 2_000;

/** What the bare "user unknown" (or "unknown user") is read as, without anything more specific. */
export const USER_UNKNOWN = "user unknown";

/**
 * NTT Docomo's servers answer the same "Unknown user <address>" for an address they lack and for a
 * sender their reader's filter refuses, told apart only by the SMTP command (sisimai's
 * `rhost/nttdocomo.rb`), which a relay's report may not say: there the bare words wait for the
 * count of days. (KDDI's filter names no address, `550 : User unknown`, which rfc3463.ts reads.)
 */
const FILTERS_SAY_USER_UNKNOWN = /@docomo\.ne\.jp$/i;

/** Whether "user unknown" alone may be a filter's refusal at this address's domain. */
export const filtersSayUserUnknown = (address: string | undefined): boolean =>
  address !== undefined && FILTERS_SAY_USER_UNKNOWN.test(address);

/** Each group's phrases, as small bounded patterns; the first group with a match decides. */
const GROUPS: [TextVerdict, string, RegExp][] = [
  // A full mailbox, a quota, a message too big for it: the address works.
  [
    "temporary",
    "mailbox full",
    /mail ?box (?:is )?full|(?:over|exceed(?:ed|s)?) (?:the |his |her |their )?(?:storage |mailbox |disk )?quota|quota (?:exceeded|full)|insufficient (?:disk |storage )?(?:space|storage)|mailbox size limit|not enough (?:disk |storage )?space|storage (?:space|limit) (?:exceeded|reached)/,
  ],
  [
    "temporary",
    "message too big",
    /message (?:is )?too (?:big|large)|exceeds? (?:the )?(?:maximum |max )?(?:message )?size|size limit exceeded|message size exceeds/,
  ],
  // Said to be temporary, or a trouble of the exchange.
  [
    "temporary",
    "temporary",
    /temporar(?:y|ily)|try (?:again )?later|please (?:try again|retry)|grey ?listed|gray ?listed|greylisting|deferred|too many (?:connections|messages|recipients|concurrent)|rate limit|at a rate that prevents|receiving mail too fast|(?:connection|session) (?:timed out|time ?out|reset|lost)|timed out|time ?out (?:while|waiting)|resources? (?:temporarily )?unavailable|service (?:not |un)available|system (?:is )?busy|server busy|queue (?:is )?full/,
  ],
  // About us: our address, domain, reputation, authentication, the content.
  [
    "sender",
    "sender refused",
    /sender (?:address |domain )?(?:rejected|refused|denied|unknown|not allowed|blocked|verify failed)|(?:sender|from) address (?:is )?(?:invalid|rejected)|domain of sender|sender domain (?:does not|doesn't|must) exist|mail from .{0,40} rejected/,
  ],
  [
    "sender",
    "blocked",
    /black ?list|block ?list|blocked|listed (?:on|in|at) (?:an? )?(?:rbl|dnsbl|[a-z0-9.-]{1,40}bl\b)|\brbl\b|dnsbl|spamhaus|spamcop|barracuda|sorbs|reputation|poor (?:sender )?score/,
  ],
  [
    "sender",
    "spam or policy",
    /\bspam\b|spam(?:my|mer)|junk mail|bulk mail|unsolicited|\bpolic(?:y|ies)\b|content (?:rejected|filter|not accepted)|virus|malware|phishing|prohibited|not allowed to (?:send|relay)/,
  ],
  [
    "sender",
    "authentication",
    /\bspf\b|\bdkim\b|\bdmarc\b|authenticat|reverse dns|\bptr\b|\brdns\b|helo|ehlo|not (?:permitted|authorized) to send|unauthori[sz]ed sender/,
  ],
  [
    "sender",
    "relaying denied",
    /relay(?:ing)? (?:access )?(?:denied|not permitted|prohibited|not allowed)|not (?:permitted|allowed) to relay|unable to relay|we do not relay|no relaying/,
  ],
  // The recipient's domain is gone, or takes no mail.
  [
    "recipient",
    "no such domain",
    /host (?:or domain name )?not found|domain is not reachable|host unknown|unknown host|no such domain|domain (?:name )?(?:does ?n[o']t exist|not found|unknown|invalid)|(?:unknown|invalid|illegal|non-?existent) (?:host|domain)|illegal host\/domain|unrout(?:e)?able (?:address|domain)|domain must exist|nxdomain|name or service not known|null ?mx|does not accept (?:e-?)?mail|no mx (?:record|host)|mail receiving disabled/,
  ],
  // The recipient's address is gone, disabled or moved.
  [
    "recipient",
    "no such user",
    /(?:invalid|bad|non-?existent|no such|illegal) (?:user|recipient|mailbox|address|local ?part|e-?mail(?: address)?|account|addressee|destination|person)|unknown (?:recipient|mailbox|address|local ?part|e-?mail(?: address)?|account|addressee|destination|person)|(?:recipient|mailbox|address|account|addressee|e-?mail address|local ?part)(?: name)?(?: is| was)? (?:unknown|not (?:found|known|listed|valid|present|a valid|available|active)|does ?n[o']t exist|doesn't exist|not exist|invalid|unavailable|inactive)|user(?: name)?(?: is| was)? (?:not (?:found|known|listed|valid|present|a valid|available|active)|does ?n[o']t exist|doesn't exist|not exist|invalid|unavailable|inactive)|(?:does|do) ?n[o']t exist|no longer (?:exists?|valid|active|in use|accepts? mail)|no (?:mailbox|account|user) (?:here|by that name|found|available)|address (?:could ?n[o']t|can ?not|can't) be found|address not found|recipient address rejected|recipient (?:rejected|refused)|rejected recipient|not listed in (?:the )?(?:domino )?(?:directory|public name)|not our customer|there is no one at this address|(?:does ?n[o']t|does not) have an? [a-z0-9.-]{1,30} account/,
  ],
  // The words every server has for it, and the words some write for a refusal of their own filter
  // after DATA (`USER_UNKNOWN`): read as the address gone unless the refusal came after DATA.
  ["recipient", USER_UNKNOWN, /\b(?:unknown user|user unknown|user (?:is|was) unknown)\b/],
  // Disabled for good, or moved; a "suspended", "locked" or "frozen" account may come back, and
  // is left to its code (X.2.1 suppresses) or to the count of days.
  [
    "recipient",
    "account disabled",
    /(?:account|mailbox|user|address)(?: has been| is| was)? (?:disabled|deactivated|closed|terminated|deleted)|inactive (?:user|account|mailbox)|(?:disabled|deactivated|closed) (?:account|mailbox|user)|has been replaced by|has moved/,
  ],
  // Other languages, as the corpora have them (French, Spanish, Italian, German, Portuguese,
  // Japanese, Chinese): no such user, address unknown, not found in the directory.
  [
    "recipient",
    "no such user",
    /utilisateur inconnu|adresse (?:e-?mail )?(?:inconnue|invalide)|destinataire inconnu|n'existe pas|no existe|usuario desconocido|nessun utente|utente (?:sconosciuto|inesistente)|non esiste|unbekannt|existiert nicht|ung(?:ü|ue)ltige (?:adresse|empf)|não existe|desconhecido|存在しません|ディレクトリには見つかりません|宛先不明|不存在/,
  ],
];

/**
 * The first READING_CHARS of a text, lower-cased, white space collapsed, and the reply codes that
 * start each line of a multi-line reply (`550-5.2.1 ... at a rate that 550-5.2.1 prevents`) taken
 * out, so a phrase split over two lines is read whole.
 */
const normalised = (text: string) =>
  text
    .slice(0, READING_CHARS * 2)
    .replace(/\s+/g, " ")
    .replace(/(^| )[245]\d\d-(?:[245]\.\d{1,3}\.\d{1,3} )?/g, "$1")
    .slice(0, READING_CHARS)
    .toLowerCase();

/** What the text says happened, or undefined when it says nothing the list can act on. */
export function readFailureText(text: string | undefined): TextReading | undefined {
  if (!text) return undefined;
  const words = normalised(text);
  for (const [verdict, said, pattern] of GROUPS) if (pattern.test(words)) return { verdict, said };
  return undefined;
}
