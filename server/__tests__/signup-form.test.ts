/**
 * The signup card without JavaScript: a plain HTML form post (`application/x-www-form-urlencoded`)
 * to `send-confirmation`, answered with `303 See Other` to one of the site's result pages, through
 * HTTP against the local stack on PGlite and on a real PostgreSQL server, mail over real SMTP.
 * A form post from anywhere but the site is refused before anything is counted or stored.
 */
import { SIGNUP_RESULT_PAGES } from "../../supabase/functions/_shared/contract/signup-result-pages.ts";
import { forEachBackend } from "../../test/support/backends.ts";
import { linkIn, recipients } from "../../test/support/outbox.ts";
import { createSmtpCapture, type SmtpCapture } from "../../test/support/smtp-capture.ts";
import { startTestStack, type TestStack } from "../../test/support/test-stack.ts";

let counter = 0;
const freshAddress = (name: string) => `${name}-${Date.now().toString(36)}-${++counter}@example.com`;

/** What a browser sends for the card's `<form method="post">`, redirects left to the test. */
function postForm(stack: TestStack, body: BodyInit, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${stack.url}/functions/v1/send-confirmation`, {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      origin: stack.origin,
      referer: `${stack.origin}/`,
      ...headers,
    },
    body,
    redirect: "manual",
  });
}

const emailField = (email: string) => new URLSearchParams({ email }).toString();

/** Where the browser goes next, and whether it may keep the answer. */
const redirect = (response: Response) => ({
  status: response.status,
  location: response.headers.get("location"),
  cacheControl: response.headers.get("cache-control"),
});

const rowOf = async (stack: TestStack, email: string) =>
  (await stack.server.backend.admin.list()).find((row) => row.email === email);

forEachBackend("the signup form without JavaScript on %s", (backend, postgresUrl) => {
  let smtp: SmtpCapture;
  let stack: TestStack;

  beforeAll(async () => {
    smtp = await createSmtpCapture();
    stack = await startTestStack(backend, { SMTP_URL: smtp.url }, postgresUrl);
  });
  afterAll(async () => {
    await stack?.close();
    await smtp?.stop();
  });

  const mailsTo = (address: string) => smtp.mails.filter((mail) => recipients(mail).includes(address)).length;

  it("lands on the welcome page, stores the address pending with its page, and mails the link", async () => {
    const email = freshAddress("form");
    const response = await postForm(stack, emailField(email), {
      referer: `${stack.origin}/effects/2026-11-20/?utm_source=mail#newsletter`,
    });
    expect(redirect(response)).toEqual({
      status: 303,
      location: `${stack.origin}${SIGNUP_RESULT_PAGES.subscribed}`,
      cacheControl: "no-store",
    });
    expect(await rowOf(stack, email)).toMatchObject({
      status: "pending",
      pending_consent_source: `${stack.origin}/effects/2026-11-20/`,
    });
    const delivered = await smtp.waitForMails(smtp.mails.length + 1);
    const mail = delivered.find((candidate) => recipients(candidate).includes(email));
    if (!mail) throw new Error("No confirmation mail to the form's address");
    expect(mail.subject).toBe("Confirm your subscription to Effect of the Day");
    const confirmed = await stack.post("confirm-subscription", {
      token: linkIn(mail, "confirm").searchParams.get("confirm"),
    });
    expect(confirmed.status).toBe(200);
    expect(
      stack.logs.some((line) => line.includes("send-confirmation 303") && line.endsWith("form:pending:new")),
    ).toBe(true);
  });

  it("sends an address it refuses to the page that asks to check it, storing nothing", async () => {
    const before = await stack.server.backend.admin.countByStatus();
    for (const email of ["not-an-address", "user@example..com", `${"a".repeat(243)}@example.com`]) {
      expect(redirect(await postForm(stack, emailField(email)))).toMatchObject({
        status: 303,
        location: `${stack.origin}${SIGNUP_RESULT_PAGES.invalid}`,
      });
    }
    expect(await stack.server.backend.admin.countByStatus()).toEqual(before);
  });

  it("sends an empty form back to the card on the page it came from, storing nothing", async () => {
    const before = await stack.server.backend.admin.countByStatus();
    const fromEffect = await postForm(stack, "email=", {
      referer: `${stack.origin}/effects/2026-11-20/?utm_source=mail#top`,
    });
    expect(redirect(fromEffect)).toEqual({
      status: 303,
      location: `${stack.origin}/effects/2026-11-20/#newsletter`,
      cacheControl: "no-store",
    });
    // Blanks only is empty too, as the browser's e-mail field sees it.
    const blank = await postForm(stack, "email=+%20%09");
    expect(blank.headers.get("location")).toBe(`${stack.origin}/#newsletter`);
    const noField = await postForm(stack, "", { referer: "https://elsewhere.example/page" });
    expect(noField.headers.get("location")).toBe(`${stack.origin}/#newsletter`);
    const noReferer = await fetch(`${stack.url}/functions/v1/send-confirmation`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: stack.origin },
      body: "email=",
      redirect: "manual",
    });
    expect(noReferer.headers.get("location")).toBe(`${stack.origin}/#newsletter`);
    expect(await stack.server.backend.admin.countByStatus()).toEqual(before);
    expect(stack.logs.some((line) => line.endsWith("form:invalid_email:missing"))).toBe(true);
  });

  it("sends a body over the limit, or one that is not UTF-8, to the try-again page, storing nothing", async () => {
    const before = await stack.server.backend.admin.countByStatus();
    const email = freshAddress("big");
    const big = await postForm(stack, `${emailField(email)}&padding=${"x".repeat(10_000)}`);
    expect(redirect(big)).toMatchObject({
      status: 303,
      location: `${stack.origin}${SIGNUP_RESULT_PAGES.failed}`,
    });
    const latin1: BodyInit[] = [
      "email=caf%E9%40example.com",
      Buffer.from("email=caf\xe9@example.com", "latin1"),
    ];
    for (const body of latin1) {
      const broken = await postForm(stack, body);
      expect(redirect(broken)).toMatchObject({
        status: 303,
        location: `${stack.origin}${SIGNUP_RESULT_PAGES.failed}`,
      });
    }
    await stack.drainMail();
    expect(await stack.server.backend.admin.countByStatus()).toEqual(before);
    expect(await stack.mailJobsTo(email)).toEqual([]);
    expect(mailsTo(email)).toBe(0);
    expect(stack.logs.some((line) => line.endsWith("form:payload_too_large"))).toBe(true);
    expect(stack.logs.some((line) => line.endsWith("form:invalid_form"))).toBe(true);
  });

  it("keeps answering other media types 415, naming the two it takes", async () => {
    const multipart = new FormData();
    multipart.set("email", freshAddress("multipart"));
    for (const body of [multipart, new Blob(["email=a@example.com"], { type: "text/plain" })]) {
      const response = await fetch(`${stack.url}/functions/v1/send-confirmation`, {
        method: "POST",
        headers: { origin: stack.origin },
        body,
      });
      expect(response.status).toBe(415);
      expect((await response.json()).error).toEqual({
        code: "unsupported_media_type",
        message: "Send the request body as application/json or application/x-www-form-urlencoded.",
      });
    }
  });
});

describe("a signup form post and the per-minute limit", () => {
  let smtp: SmtpCapture;
  let stack: TestStack;

  beforeAll(async () => {
    smtp = await createSmtpCapture();
    stack = await startTestStack("PGlite", { SMTP_URL: smtp.url, RATE_LIMIT_PER_MINUTE: "1" });
  });
  afterAll(async () => {
    await stack?.close();
    await smtp?.stop();
  });

  it("refuses a form from another origin, or with none, with 403: nothing stored, counted or mailed", async () => {
    // The limit counts per clock minute: start at the top of one, so every post here shares it.
    stack.advance(60 - (stack.now().getTime() % 60_000) / 1000);
    const email = freshAddress("forged");
    const foreign = await postForm(stack, emailField(email), {
      origin: "https://evil.example",
      referer: "https://evil.example/free-prize",
    });
    expect(foreign.status).toBe(403);
    expect(foreign.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(foreign.headers.get("location")).toBeNull();
    expect(await foreign.text()).toBe(
      `Forbidden: this sign-up form was not sent from ${stack.origin}, so nothing was stored and no mail was sent. Please sign up on ${stack.origin}.\n`,
    );
    const sameSiteOtherPort = await postForm(stack, emailField(email), {
      origin: stack.origin.replace(/:\d+$/, ":1"),
    });
    expect(sameSiteOtherPort.status).toBe(403);
    const noOrigin = await fetch(`${stack.url}/functions/v1/send-confirmation`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: emailField(email),
      redirect: "manual",
    });
    expect(noOrigin.status).toBe(403);
    const opaque = await postForm(stack, emailField(email), { origin: "null" });
    expect(opaque.status).toBe(403);

    await stack.drainMail();
    expect(await rowOf(stack, email)).toBeUndefined();
    expect(await stack.mailJobsTo(email)).toEqual([]);
    expect(smtp.mails.filter((mail) => recipients(mail).includes(email))).toHaveLength(0);
    expect(stack.logs.filter((line) => / 403 .* form:forbidden_origin$/.test(line))).toHaveLength(4);

    // Nothing was counted: at a limit of one a minute, the site's own form still gets in...
    const own = freshAddress("own");
    const accepted = await postForm(stack, emailField(own));
    expect(redirect(accepted)).toMatchObject({
      status: 303,
      location: `${stack.origin}${SIGNUP_RESULT_PAGES.subscribed}`,
    });
    await smtp.waitForMails(1);
    expect(recipients(smtp.mails[0])).toEqual([own]);
    // ...and it counted: the script's JSON call shares the limit, and so does the next form.
    const json = await stack.post("send-confirmation", { email: freshAddress("json") });
    expect(json.status).toBe(429);
    const limited = await postForm(stack, emailField(freshAddress("eager")));
    expect(redirect(limited)).toEqual({
      status: 303,
      location: `${stack.origin}${SIGNUP_RESULT_PAGES.rateLimited}`,
      cacheControl: "no-store",
    });
    expect(stack.logs.some((line) => line.endsWith("form:rate_limited"))).toBe(true);
  });

  it("keeps JSON calls from any origin as they are: CORS decides, not the function", async () => {
    stack.advance(60);
    const response = await stack.post(
      "send-confirmation",
      { email: freshAddress("scripted") },
      { headers: { origin: "https://evil.example" } },
    );
    expect(response.status).toBe(200);
    expect(response.headers.get("access-control-allow-origin")).toBeNull();
    expect(await response.json()).toEqual({ status: "pending" });
  });
});
