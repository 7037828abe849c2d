/**
 * Where a visit began (signup-source.ts): the page's inline module run as each full page load runs
 * it, in one tab (its sessionStorage) at a given address and `document.referrer`, then what a
 * signup form holds when it is submitted, and what the landing page's card sends as JSON.
 */
import { render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import IndexPage from "../../pages/index";
import { landingProps } from "../../../test/support/content";
import { answerFunctions } from "../../../test/support/functions-backend";
import { FROM_YOUTUBE, LANDING_WITH_CAMPAIGN, YOUTUBE_LINK } from "../../../test/support/signup-source";
import { SIGNUP_SOURCE_KEY, SIGNUP_SOURCE_SCRIPT } from "../signup-source";

const SITE = "http://localhost";
const LANDING = LANDING_WITH_CAMPAIGN;

/** The listeners the current "document" added: removed at the next load, as a new document would. */
let added: [string, EventListenerOrEventListenerObject, boolean | AddEventListenerOptions | undefined][] = [];

/** The current "document"'s idle callbacks: run by `idle()`; a page left before then never runs them. */
let idleCallbacks: IdleRequestCallback[] = [];

/** The browser is idle: the current page's idle callbacks run. */
function idle() {
  const due = idleCallbacks;
  idleCallbacks = [];
  for (const callback of due) callback({ didTimeout: false, timeRemaining: () => 50 });
}

/** The page is left, as a navigation leaves it: `pagehide`, then its listeners and callbacks gone. */
function unload() {
  window.dispatchEvent(new Event("pagehide"));
  for (const [type, listener, options] of added) window.removeEventListener(type, listener, options);
  added = [];
  idleCallbacks = [];
}

/** A full page load of `path`, reached from `referrer` ("" when typed or opened from a bookmark). */
function load(path: string, referrer = "") {
  unload();
  window.history.replaceState(null, "", path);
  Object.defineProperty(document, "referrer", { value: referrer, configurable: true });
  const spy = jest.spyOn(window, "addEventListener");
  try {
    new Function(SIGNUP_SOURCE_SCRIPT)();
    added = spy.mock.calls.map(([type, listener, options]) => [type, listener, options]);
  } finally {
    spy.mockRestore();
  }
}

/** Submits a signup form (or another form) on the page and returns the fields it would send. */
function submit(form = "effect"): Record<string, FormDataEntryValue[]> {
  document.body.innerHTML =
    `<form>${form ? `<input type="hidden" name="signup_form" value="${form}">` : ""}` +
    `<input name="email" value="reader@example.com"></form>`;
  const element = document.querySelector("form") as HTMLFormElement;
  element.addEventListener("submit", (event) => event.preventDefault());
  element.dispatchEvent(new Event("submit", { bubbles: true, cancelable: true }));
  const data = new FormData(element);
  return Object.fromEntries([...new Set(data.keys())].map((name) => [name, data.getAll(name)]));
}

const fields = (values: Record<string, string>) =>
  Object.fromEntries(Object.entries(values).map(([name, value]) => [name, [value]]));

beforeEach(() => {
  window.requestIdleCallback = (callback: IdleRequestCallback) => idleCallbacks.push(callback);
});

afterEach(() => {
  jest.restoreAllMocks();
  unload();
  window.sessionStorage.clear();
  document.body.innerHTML = "";
  window.history.replaceState(null, "", "/");
});

describe("where a visit began", () => {
  it("is recorded in the tab once the browser is idle, not while the page loads", () => {
    const getItem = jest.spyOn(Storage.prototype, "getItem");
    const setItem = jest.spyOn(Storage.prototype, "setItem");
    load(LANDING, YOUTUBE_LINK);
    expect([getItem.mock.calls, setItem.mock.calls]).toEqual([[], []]);
    idle();
    expect(JSON.parse(window.sessionStorage.getItem(SIGNUP_SOURCE_KEY) ?? "")).toEqual(FROM_YOUTUBE);
    load("/effects/", `${SITE}${LANDING}`);
    idle();
    expect(JSON.parse(window.sessionStorage.getItem(SIGNUP_SOURCE_KEY) ?? "")).toEqual(FROM_YOUTUBE);
  });

  it("is recorded on the first page, even left before the browser was idle, and put into a form submitted on a later one", () => {
    load(LANDING, YOUTUBE_LINK);
    load("/effects/2026-10-22/", `${SITE}${LANDING}`);
    load("/effects/2026-10-21/", `${SITE}/effects/2026-10-22/`);
    expect(submit()).toEqual(fields({ signup_form: "effect", email: "reader@example.com", ...FROM_YOUTUBE }));
  });

  it("keeps the address the page was loaded at, when Gatsby moves to another page before the browser is idle", () => {
    load(LANDING, YOUTUBE_LINK);
    // A client-side move: a new address, the same document (no pagehide, no new script).
    window.history.pushState(null, "", "/effects/2026-10-22/");
    expect(submit()).toEqual(fields({ signup_form: "effect", email: "reader@example.com", ...FROM_YOUTUBE }));
  });

  it("holds nothing when the visit began without a campaign or another site, whatever later pages' referrers hold", () => {
    load("/");
    load("/effects/", `${SITE}/?utm_source=made-up`);
    expect(submit("archive")).toEqual(fields({ signup_form: "archive", email: "reader@example.com" }));
  });

  it("begins again with an arrival from another site, or at an address with a campaign", () => {
    load(LANDING, YOUTUBE_LINK);
    load("/effects/", "https://news.example/story?id=1");
    expect(submit()).toEqual(
      fields({ signup_form: "effect", email: "reader@example.com", referrer_host: "news.example" }),
    );
    load("/?utm_source=mail", `${SITE}/effects/`);
    expect(submit()).toEqual(
      fields({ signup_form: "effect", email: "reader@example.com", utm_source: "mail" }),
    );
  });

  it("takes the campaign of the page it came from when the tab holds no record (a new tab)", () => {
    load("/effects/2026-10-22/", `${SITE}${LANDING}`);
    expect(submit()).toEqual(
      fields({
        signup_form: "effect",
        email: "reader@example.com",
        utm_source: "podcast",
        utm_medium: "audio",
        utm_campaign: "ep42",
      }),
    );
  });

  it("leaves out a value longer than the function keeps", () => {
    load(`/?utm_source=${"x".repeat(101)}&utm_medium=audio`, `https://${"a".repeat(60)}.example/`);
    expect(submit()).toEqual(
      fields({
        signup_form: "effect",
        email: "reader@example.com",
        utm_medium: "audio",
        referrer_host: `${"a".repeat(60)}.example`,
      }),
    );
  });

  it("still fills the form of its own page when the browser refuses sessionStorage", () => {
    jest.spyOn(window, "sessionStorage", "get").mockImplementation(() => {
      throw new DOMException("The operation is insecure.", "SecurityError");
    });
    load(LANDING, YOUTUBE_LINK);
    expect(submit("inline")).toEqual(
      fields({ signup_form: "inline", email: "reader@example.com", ...FROM_YOUTUBE }),
    );
  });

  it("touches no other form, and fills a signup form once however often it is sent", () => {
    load(LANDING, YOUTUBE_LINK);
    expect(submit("")).toEqual(fields({ email: "reader@example.com" }));
    submit();
    const form = document.querySelector("form") as HTMLFormElement;
    form.dispatchEvent(new Event("submit", { bubbles: true, cancelable: true }));
    expect(new FormData(form).getAll("utm_source")).toEqual(["podcast"]);
  });

  it("is sent with the landing page's card, beside the form's name and page", async () => {
    const backend = answerFunctions(() => ({ status: 200, body: { status: "pending" } }));
    load(LANDING, YOUTUBE_LINK);
    const user = userEvent.setup();
    render(<IndexPage {...landingProps()} />);
    const card = screen.getByRole("region", { name: "Get the Effect of the Day" });
    await user.type(within(card).getByPlaceholderText("Enter your email"), "reader@example.com");
    await user.click(within(card).getByRole("button"));
    await waitFor(() => expect(backend.calls).toHaveLength(1));
    expect(backend.calls[0].body).toEqual({
      email: "reader@example.com",
      signup_form: "inline",
      signup_page: "/",
      ...FROM_YOUTUBE,
    });
  });
});
