/**
 * The names and time zone the functions read from the site (sender.json), against a real HTTP
 * server on loopback: read and kept, a failed read keeps the last good one, and with none the mail
 * waits with an error that names the address.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { contentIdentity } from "../../../../../test/support/effect-fixtures.ts";
import { SENDER_IDENTITY_PATH } from "../../contract/published.ts";
import { publishedIdentity } from "../edition-source.ts";

const IDENTITY = {
  brandName: "The Purpose Effect",
  newsletterName: "Effect of the Day",
  timeZone: "America/Chicago",
  mails: contentIdentity().mails,
};

describe("the sender's identity from the site", () => {
  let server: Server;
  let url: string;
  let answer: { status: number; body: unknown } = { status: 200, body: IDENTITY };
  let reads = 0;
  beforeAll(async () => {
    server = createServer((request, response) => {
      reads += 1;
      if (request.url !== SENDER_IDENTITY_PATH) return response.writeHead(404).end();
      response
        .writeHead(answer.status, { "content-type": "application/json" })
        .end(JSON.stringify(answer.body));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("is read once and kept, then read again when it is old; a failed read keeps the last good one", async () => {
    let clock = 0;
    const identity = publishedIdentity(url, { ttlMs: 1000, now: () => clock });
    reads = 0;
    expect(await identity()).toEqual(IDENTITY);
    expect(await identity()).toEqual(IDENTITY);
    expect(reads).toBe(1);
    answer = { status: 500, body: {} };
    clock = 2000;
    expect(await identity()).toEqual(IDENTITY);
    expect(reads).toBe(2);
    answer = { status: 200, body: IDENTITY };
  });

  it("without a good read, refuses with the address, and refuses a time zone it does not know", async () => {
    await expect(publishedIdentity(`${url}/elsewhere`)()).rejects.toThrow(
      `Could not read the sender's names from ${url}/elsewhere${SENDER_IDENTITY_PATH}`,
    );
    answer = { status: 200, body: { ...IDENTITY, timeZone: "Mars/Olympus" } };
    await expect(publishedIdentity(url)()).rejects.toThrow(/"Mars\/Olympus" is not a time zone/);
    answer = { status: 200, body: IDENTITY };
  });

  it("refuses mails' words that are missing or use a placeholder the mail does not know", async () => {
    const { mails } = IDENTITY;
    answer = {
      status: 200,
      body: { ...IDENTITY, mails: { ...mails, reminder: { ...mails.reminder, subject: "Hi {name}" } } },
    };
    await expect(publishedIdentity(url)()).rejects.toThrow(
      /"mails\.reminder\.subject" has an unknown placeholder \{name\} \(it may use \{newsletter\}, \{brand\}, \{expiry\}\)/,
    );
    const { welcome: _gone, ...withoutWelcome } = mails;
    answer = { status: 200, body: { ...IDENTITY, mails: withoutWelcome } };
    await expect(publishedIdentity(url)()).rejects.toThrow(
      /"mails\.welcome\.subject" must be a non-empty text/,
    );
    answer = { status: 200, body: IDENTITY };
  });
});
