import { act, render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import IndexPage from "../../pages/index";
import { landingProps } from "../../../test/support/content";
import { answerFunctions, heldReply, type Reply } from "../../../test/support/functions-backend";
import { FAILURE_NOTICE, watchNotices } from "../../../test/support/notices";
import { outcomeOf, readSubscriptionLink, withoutSubscriptionLink } from "../subscription-link";

const renderLanding = () => render(<IndexPage {...landingProps()} />);

function openLink(path: string) {
  window.history.replaceState(null, "", path);
  return renderLanding();
}

let backend: ReturnType<typeof answerFunctions> | undefined;
afterEach(() => {
  backend?.restore();
  backend = undefined;
  jest.restoreAllMocks();
  window.history.replaceState(null, "", "/");
});

type User = ReturnType<typeof userEvent.setup>;

const answer = (reply: Reply) => {
  backend = answerFunctions(() => reply);
  return backend;
};

describe("a confirm link from the e-mail", () => {
  it("asks for one click before it confirms anything", async () => {
    const { calls } = answer({ status: 200, body: { status: "confirmed" } });
    openLink("/?confirm=abc123");
    const dialog = await screen.findByRole("dialog", { name: "Confirm your subscription" });
    expect(calls).toHaveLength(0);
    expect(within(dialog).getByRole("button", { name: "Confirm my subscription" })).toHaveFocus();
  });

  it("confirms with one click, says so and removes the token from the address bar", async () => {
    const { calls } = answer({ status: 200, body: { status: "confirmed" } });
    const user = userEvent.setup();
    openLink("/?confirm=abc123&utm_source=mail");

    await user.click(await screen.findByRole("button", { name: "Confirm my subscription" }));

    expect(await screen.findByRole("status")).toHaveTextContent("You're in!");
    expect(calls).toEqual([
      expect.objectContaining({ name: "confirm-subscription", body: { token: "abc123" } }),
    ]);
    expect(window.location.search).toBe("?utm_source=mail");
    // The answer has focus; Tab stays in the dialog rather than leaving it for the page behind.
    await user.tab();
    expect(screen.getByRole("button", { name: "Close" })).toHaveFocus();
  });

  it("offers a fresh signup when the link has expired", async () => {
    answer({ status: 410, body: { error: { code: "expired", message: "expired" } } });
    const user = userEvent.setup();
    openLink("/?confirm=old");

    await user.click(await screen.findByRole("button", { name: "Confirm my subscription" }));
    expect(await screen.findByRole("status")).toHaveTextContent("This link has expired");
    await user.click(screen.getByRole("button", { name: "Sign up again" }));

    expect(screen.getByRole("dialog", { name: "Join the Movement" })).toBeInTheDocument();
    expect(window.location.search).toBe("");
    // The button that opened it is gone: closed, the dialog hands focus to the page, not to nowhere.
    await user.keyboard("{Escape}");
    expect(screen.queryByRole("dialog")).not.toBeInTheDocument();
    expect(screen.getByRole("main")).toHaveFocus();
  });

  it.each([404, 400])("says the link is not valid when the backend answers %i", async (status) => {
    answer({ status, body: { error: { code: "not_found", message: "unknown token" } } });
    const user = userEvent.setup();
    openLink("/?confirm=tampered");

    await user.click(await screen.findByRole("button", { name: "Confirm my subscription" }));
    expect(await screen.findByRole("status")).toHaveTextContent("This link is not valid");
  });

  it("keeps the link and lets the visitor retry when the backend is down", async () => {
    answer({ status: 503, body: { error: { code: "unavailable", message: "db down" } } });
    jest.spyOn(console, "error").mockImplementation(() => undefined);
    const user = userEvent.setup();
    openLink("/?confirm=abc123");
    const notices = watchNotices();

    await user.click(await screen.findByRole("button", { name: "Confirm my subscription" }));

    await notices.expectNew(FAILURE_NOTICE);
    expect(screen.getByRole("button", { name: "Confirm my subscription" })).toBeEnabled();
    expect(window.location.search).toBe("?confirm=abc123");
  });

  it("stays open while the link is being checked, so a failure still leaves the link to retry", async () => {
    const held = heldReply();
    backend = answerFunctions(held.reply);
    jest.spyOn(console, "error").mockImplementation(() => undefined);
    const user = userEvent.setup();
    openLink("/?confirm=abc123");
    const notices = watchNotices();
    const dialog = await screen.findByRole("dialog", { name: "Confirm your subscription" });

    await user.click(within(dialog).getByRole("button", { name: "Confirm my subscription" }));
    expect(within(dialog).getByRole("button", { name: "Not now" })).toBeDisabled();
    expect(within(dialog).getByRole("button", { name: "Close" })).toBeDisabled();
    await user.keyboard("{Escape}");
    await user.click(screen.getByTestId("dialog-backdrop"));
    expect(screen.getByRole("dialog", { name: "Confirm your subscription" })).toBeInTheDocument();

    await act(async () =>
      held.release({ status: 503, body: { error: { code: "unavailable", message: "db down" } } }),
    );
    await notices.expectNew(FAILURE_NOTICE);
    expect(window.location.search).toBe("?confirm=abc123");
    expect(within(dialog).getByRole("button", { name: "Not now" })).toBeEnabled();
  });

  it.each([
    ["Not now", (user: User) => user.click(screen.getByRole("button", { name: "Not now" }))],
    ["Escape", (user: User) => user.keyboard("{Escape}")],
    ["the close button", (user: User) => user.click(screen.getByRole("button", { name: "Close" }))],
    ["a click outside", (user: User) => user.click(screen.getByTestId("dialog-backdrop"))],
  ])("closes with %s, sends nothing and does not ask again on a reload", async (_way, dismiss) => {
    const { calls } = answer({ status: 200 });
    const user = userEvent.setup();
    const { unmount } = openLink("/?confirm=abc123&utm_source=mail#story");

    await screen.findByRole("dialog", { name: "Confirm your subscription" });
    await dismiss(user);
    expect(screen.queryByRole("dialog")).not.toBeInTheDocument();
    expect(screen.getByRole("main")).toHaveFocus();
    expect(calls).toHaveLength(0);
    expect(`${window.location.search}${window.location.hash}`).toBe("?utm_source=mail#story");

    unmount();
    renderLanding();
    await screen.findByRole("button", { name: "Join the Movement" });
    expect(screen.queryByRole("dialog")).not.toBeInTheDocument();
  });
});

describe("an unsubscribe link from the e-mail", () => {
  it("unsubscribes with one click", async () => {
    const { calls } = answer({ status: 200, body: { status: "unsubscribed" } });
    const user = userEvent.setup();
    openLink("/?unsubscribe=tok");

    const dialog = await screen.findByRole("dialog", { name: "Unsubscribe" });
    await user.click(within(dialog).getByRole("button", { name: "Unsubscribe me" }));

    expect(await screen.findByRole("status")).toHaveTextContent("You're unsubscribed");
    expect(calls).toEqual([expect.objectContaining({ name: "unsubscribe", body: { token: "tok" } })]);
    expect(window.location.search).toBe("");
  });

  it("is forgotten when the visitor closes it instead", async () => {
    const { calls } = answer({ status: 200, body: { status: "unsubscribed" } });
    const user = userEvent.setup();
    openLink("/?unsubscribe=tok");

    await screen.findByRole("dialog", { name: "Unsubscribe" });
    await user.keyboard("{Escape}");
    expect(screen.queryByRole("dialog")).not.toBeInTheDocument();
    expect(window.location.search).toBe("");
    expect(calls).toHaveLength(0);
  });
});

describe("reading the link", () => {
  it("finds the action and token and ignores other parameters", () => {
    expect(readSubscriptionLink("?confirm=a%2Bb")).toEqual({ action: "confirm", token: "a+b" });
    expect(readSubscriptionLink("?ref=x&unsubscribe=t")).toEqual({ action: "unsubscribe", token: "t" });
    expect(readSubscriptionLink("?ref=x")).toBeNull();
  });

  it("removes only its own parameter from the address", () => {
    expect(withoutSubscriptionLink({ pathname: "/", search: "?confirm=t&a=1", hash: "#top" })).toBe(
      "/?a=1#top",
    );
    expect(withoutSubscriptionLink({ pathname: "/", search: "?unsubscribe=t", hash: "" })).toBe("/");
  });

  it("maps the function's answers to what the visitor is told", () => {
    expect(outcomeOf({ ok: true })).toBe("done");
    expect(outcomeOf({ ok: false, status: 410 })).toBe("expired");
    expect(outcomeOf({ ok: false, status: 404 })).toBe("invalid");
    expect(outcomeOf({ ok: false, status: 429 })).toBe("failed");
    expect(outcomeOf({ ok: false })).toBe("failed");
  });
});
