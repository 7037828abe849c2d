/**
 * The signup rate limit counts the client a trusted proxy saw, not what the client wrote into
 * X-Forwarded-For, and counts an IPv6 client by its /64. The probe from the security read: with
 * `TRUST_PROXY=1` and a limit of 5, twelve signups whose header began `198.51.100.N, ` with N
 * changing all got 200.
 */
import { startTestStack, type TestStack } from "../../test/support/test-stack.ts";

let counter = 0;
const address = () => `limit-${process.pid}-${++counter}@example.com`;

describe("the signup rate limit behind a trusted proxy", () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack("PGlite", { TRUST_PROXY: "1", RATE_LIMIT_PER_MINUTE: "5" });
  });
  afterAll(() => stack?.close());

  // The limit counts per calendar minute: each test starts at the beginning of one (the stack's
  // clock moved there), so its signups never straddle two on a slow machine.
  beforeEach(() => stack.advance((60_000 - (stack.now().getTime() % 60_000)) / 1000));

  const signupFrom = (forwardedFor: string) =>
    stack
      .post("send-confirmation", { email: address() }, { headers: { "x-forwarded-for": forwardedFor } })
      .then((response) => response.status);

  it("is not dodged by writing another address on the left of X-Forwarded-For", async () => {
    const statuses: number[] = [];
    for (let n = 1; n <= 12; n++) statuses.push(await signupFrom(`198.51.100.${n}, 203.0.113.7`));
    expect(statuses).toEqual([...Array(5).fill(200), ...Array(7).fill(429)]);
    // Another client behind the same proxy is not held back by the first one's limit.
    expect(await signupFrom("198.51.100.1, 203.0.113.8")).toBe(200);
  });

  it("counts the addresses of one IPv6 /64 as one client", async () => {
    const statuses: number[] = [];
    for (let n = 1; n <= 7; n++) statuses.push(await signupFrom(`2001:db8:77:1::${n.toString(16)}`));
    expect(statuses).toEqual([...Array(5).fill(200), 429, 429]);
    expect(await signupFrom("2001:db8:77:2::1")).toBe(200);
  });
});

describe("TRUST_PROXY", () => {
  it("refuses to start on a value that is not a number of proxies", async () => {
    await expect(startTestStack("PGlite", { TRUST_PROXY: "yes please" })).rejects.toThrow(
      /TRUST_PROXY must be the number of proxies/,
    );
  });
});
