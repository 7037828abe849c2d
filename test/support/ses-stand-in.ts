/**
 * A stand-in for the Amazon SES API v2's SendEmail on loopback
 * (https://docs.aws.amazon.com/ses/latest/APIReference-V2/API_SendEmail.html), keeping its rules:
 * - `POST /v2/email/outbound-emails`, signed with Signature Version 4 for service `ses` in the
 *   configured region: the signature is computed again from the signed headers and the body with
 *   the secret key (aws4fetch's signer) and must match, else 403 (`SignatureDoesNotMatch`, or
 *   `MissingAuthenticationTokenException` without one);
 * - `Content.Raw.Data` is base64 MIME (https://docs.aws.amazon.com/ses/latest/dg/send-email-raw.html),
 *   parsed with mailparser so a test reads the headers that arrived;
 * - past `sendsPerSecond`, 429 `TooManyRequestsException` (SES sends no retry-after);
 *   a refused recipient is 400 `MessageRejected`. Errors name their type in `x-amzn-ErrorType`;
 * - `FromEmailAddress` is one mailbox, its name in ASCII (SES: non-ASCII as RFC 2047 encoded-words),
 *   else 400 `BadRequestException`.
 * Every mail it accepted is recorded once.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { AwsV4Signer } from "aws4fetch";
import { type ParsedMail, simpleParser } from "mailparser";
import { readBody, serveOnLoopback } from "./loopback-http.ts";
import { isOneMailbox } from "./resend-stand-in.ts";

export interface SesMail {
  from: string;
  to: string[];
  parsed: ParsedMail;
  raw: string;
}

export interface SesStandInOptions {
  region?: string;
  accessKeyId?: string;
  secretAccessKey?: string;
  sendsPerSecond?: number;
  rejectRecipient?: (address: string) => boolean;
}

export interface SesStandIn {
  url: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** The variables that point createMailer at it. */
  env: Record<string, string>;
  mails: SesMail[];
  /** Status per request, in order. */
  statuses: number[];
  /** Answers the next `count` requests with this status and error type, taking nothing. */
  failNext(count: number, status: number, type: string): void;
  received(address: string): number;
  close(): Promise<void>;
}

export async function startSesStandIn(options: SesStandInOptions = {}): Promise<SesStandIn> {
  const region = options.region ?? "eu-west-1";
  const accessKeyId = options.accessKeyId ?? "AKIDSTANDIN";
  const secretAccessKey = options.secretAccessKey ?? "stand-in-secret";
  let url = "";
  const mails: SesMail[] = [];
  const statuses: number[] = [];
  const recent: number[] = [];
  let failures = { count: 0, status: 0, type: "" };

  const refuse = (response: ServerResponse, status: number, type: string, message: string) => {
    statuses.push(status);
    response.writeHead(status, { "content-type": "application/json", "x-amzn-ErrorType": type });
    response.end(JSON.stringify({ message }));
  };

  /** The signature SES would expect for this request: signed again with the same headers, time and body. */
  async function signatureMatches(request: IncomingMessage, body: Buffer): Promise<boolean> {
    const authorization = request.headers.authorization ?? "";
    const signedHeaders = /SignedHeaders=([^,]+)/.exec(authorization)?.[1].split(";") ?? [];
    const datetime = request.headers["x-amz-date"];
    if (typeof datetime !== "string" || !signedHeaders.includes("host")) return false;
    const headers: Record<string, string> = {};
    for (const name of signedHeaders)
      if (name !== "host") headers[name] = String(request.headers[name] ?? "");
    const expected = await new AwsV4Signer({
      method: request.method,
      url: `${url}${request.url ?? "/"}`,
      headers,
      body: body.toString("utf8"),
      accessKeyId,
      secretAccessKey,
      sessionToken: headers["x-amz-security-token"],
      service: "ses",
      region,
      datetime,
    }).authHeader();
    return expected === authorization;
  }

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const body = await readBody(request);
    if (request.method !== "POST" || request.url !== "/v2/email/outbound-emails")
      return refuse(response, 404, "NotFoundException", "No such operation.");
    if (!request.headers.authorization?.startsWith("AWS4-HMAC-SHA256 "))
      return refuse(response, 403, "MissingAuthenticationTokenException", "Missing Authentication Token");
    if (!request.headers.authorization.includes(`Credential=${accessKeyId}/`))
      return refuse(
        response,
        403,
        "UnrecognizedClientException",
        "The security token included in the request is invalid.",
      );
    if (!(await signatureMatches(request, body)))
      return refuse(
        response,
        403,
        "SignatureDoesNotMatch",
        "The request signature we calculated does not match.",
      );

    const now = Date.now();
    while (recent.length > 0 && recent[0] <= now - 1000) recent.shift();
    if (options.sendsPerSecond !== undefined && recent.length >= options.sendsPerSecond)
      return refuse(response, 429, "TooManyRequestsException", "Maximum sending rate exceeded.");
    recent.push(now);
    if (failures.count > 0) {
      failures.count -= 1;
      return refuse(response, failures.status, failures.type, `stand-in: ${failures.type}`);
    }

    const input = JSON.parse(body.toString("utf8")) as {
      FromEmailAddress?: string;
      Destination?: { ToAddresses?: string[] };
      Content?: { Raw?: { Data?: string } };
    };
    const from = input.FromEmailAddress;
    if (from !== undefined && (!isOneMailbox(from) || !/^[\x20-\x7e]*$/.test(from)))
      return refuse(
        response,
        400,
        "BadRequestException",
        "FromEmailAddress must be one address, a name in it encoded as RFC 2047 says.",
      );
    const data = input.Content?.Raw?.Data;
    if (!data) return refuse(response, 400, "BadRequestException", "Content.Raw.Data is required.");
    const raw = Buffer.from(data, "base64").toString("utf8");
    if (raw.split(/\r?\n/).some((line) => line.length > 1000))
      return refuse(
        response,
        400,
        "MessageRejected",
        "A line of the message is longer than 1000 characters.",
      );
    const parsed = await simpleParser(raw);
    const to =
      input.Destination?.ToAddresses ??
      (Array.isArray(parsed.to) ? parsed.to : parsed.to ? [parsed.to] : []).flatMap((list) =>
        list.value.map((address) => address.address ?? ""),
      );
    const refused = to.find((address) => options.rejectRecipient?.(address));
    if (refused) return refuse(response, 400, "MessageRejected", `Email address is not verified: ${refused}`);
    mails.push({ from: input.FromEmailAddress ?? parsed.from?.text ?? "", to, parsed, raw });
    statuses.push(200);
    response.writeHead(200, { "content-type": "application/json" });
    response.end(JSON.stringify({ MessageId: `stand-in-${mails.length}` }));
  }

  const server = await serveOnLoopback(handle);
  url = server.url;
  return {
    url,
    region,
    accessKeyId,
    secretAccessKey,
    env: {
      SES_REGION: region,
      AWS_ACCESS_KEY_ID: accessKeyId,
      AWS_SECRET_ACCESS_KEY: secretAccessKey,
      SES_API_URL: url,
    },
    mails,
    statuses,
    failNext(count, status, type) {
      failures = { count, status, type };
    },
    received: (address) => mails.filter((mail) => mail.to.includes(address)).length,
    close: () => server.close(),
  };
}
