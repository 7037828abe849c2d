import { act, render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import IndexPage from "../../pages/index";
import { landingProps } from "../../../test/support/content";
import { answerFunctions, heldReply } from "../../../test/support/functions-backend";
import { FAILURE_NOTICE, watchNotices } from "../../../test/support/notices";

const renderLanding = () => render(<IndexPage {...landingProps()} />);

const inlineField = () => screen.getByPlaceholderText("Enter your email");
const inlineButton = () =>
  within(screen.getByRole("region", { name: "Get the Effect of the Day" })).getByRole("button");

async function openDialog(user: ReturnType<typeof userEvent.setup>) {
  await user.click(screen.getByRole("button", { name: "Join the Movement" }));
  return screen.getByRole("dialog", { name: "Join the Movement" });
}

let backend: ReturnType<typeof answerFunctions> | undefined;
afterEach(() => {
  backend?.restore();
  backend = undefined;
  jest.restoreAllMocks();
});

describe("the signup dialog", () => {
  it("sends the address to send-confirmation, welcomes the visitor, clears the field and closes", async () => {
    backend = answerFunctions(() => ({ status: 200, body: { status: "pending" } }));
    const user = userEvent.setup();
    renderLanding();
    const notices = watchNotices();

    const dialog = await openDialog(user);
    expect(
      within(dialog).getByText("Get the Effect of the Day Newsletter. No spam. Just Purpose."),
    ).toBeVisible();
    const field = within(dialog).getByPlaceholderText("you@example.com");
    expect(field).toHaveFocus();
    await user.type(field, "dad@example.com");
    await user.click(within(dialog).getByRole("button", { name: "Join Now" }));

    await notices.expectNew({
      title: "Welcome to The Purpose Effect ✊",
      description: "Check your email for confirmation.",
      role: "status",
    });
    expect(screen.queryByRole("dialog")).not.toBeInTheDocument();
    expect(backend.calls).toEqual([
      expect.objectContaining({
        name: "send-confirmation",
        url: "http://localhost/functions/v1/send-confirmation",
        method: "POST",
        body: { email: "dad@example.com", signup_form: "dialog", signup_page: "/" },
      }),
    ]);
    // Opened again, the field starts empty.
    const reopened = await openDialog(user);
    expect(within(reopened).getByPlaceholderText("you@example.com")).toHaveValue("");
  });

  it("reads Sending... and cannot be sent twice while the request is pending", async () => {
    const held = heldReply();
    backend = answerFunctions(held.reply);
    const user = userEvent.setup();
    renderLanding();

    const dialog = await openDialog(user);
    await user.type(within(dialog).getByRole("textbox"), "pending@example.com");
    await user.click(within(dialog).getByRole("button", { name: "Join Now" }));

    const sending = await within(dialog).findByRole("button", { name: "Sending..." });
    expect(sending).toBeDisabled();
    await user.click(sending);
    await user.keyboard("{Enter}");
    expect(backend.calls).toHaveLength(1);

    await act(async () => held.release({ status: 200, body: { status: "pending" } }));
    await waitFor(() => expect(screen.queryByRole("dialog")).not.toBeInTheDocument());
  });

  it("keeps the address and stays open when the signup fails, and logs the error", async () => {
    backend = answerFunctions(() => ({
      status: 500,
      body: { error: { code: "internal", message: "boom" } },
    }));
    const consoleError = jest.spyOn(console, "error").mockImplementation(() => undefined);
    const user = userEvent.setup();
    renderLanding();
    const notices = watchNotices();

    const dialog = await openDialog(user);
    await user.type(within(dialog).getByRole("textbox"), "fail@example.com");
    await user.click(within(dialog).getByRole("button", { name: "Join Now" }));

    await notices.expectNew(FAILURE_NOTICE);
    expect(screen.getByRole("dialog", { name: "Join the Movement" })).toBeInTheDocument();
    expect(within(dialog).getByRole("textbox")).toHaveValue("fail@example.com");
    expect(within(dialog).getByRole("button", { name: "Join Now" })).toBeEnabled();
    expect(consoleError).toHaveBeenCalledWith("Newsletter signup failed:", expect.anything());
  });

  it("cannot be closed while the request is pending, so a failure still finds the address", async () => {
    const held = heldReply();
    backend = answerFunctions(held.reply);
    jest.spyOn(console, "error").mockImplementation(() => undefined);
    const user = userEvent.setup();
    renderLanding();
    const notices = watchNotices();

    const dialog = await openDialog(user);
    const field = within(dialog).getByRole("textbox");
    await user.type(field, "patient@example.com");
    await user.click(within(dialog).getByRole("button", { name: "Join Now" }));
    await within(dialog).findByRole("button", { name: "Sending..." });

    const close = within(dialog).getByRole("button", { name: "Close" });
    expect(close).toBeDisabled();
    await user.keyboard("{Escape}");
    await user.click(close);
    await user.click(screen.getByTestId("dialog-backdrop"));
    expect(screen.getByRole("dialog", { name: "Join the Movement" })).toBe(dialog);
    // Focus stays in the dialog, on the controls that still work: the field and the small print's link.
    const privacy = within(dialog).getByRole("link", { name: "Your data and privacy" });
    await user.tab();
    expect(field).toHaveFocus();
    await user.tab({ shift: true });
    expect(privacy).toHaveFocus();
    await user.tab();
    expect(field).toHaveFocus();

    await act(async () =>
      held.release({ status: 503, body: { error: { code: "unavailable", message: "db down" } } }),
    );
    await notices.expectNew(FAILURE_NOTICE);
    expect(within(dialog).getByRole("textbox")).toHaveValue("patient@example.com");
    expect(close).toBeEnabled();
    await user.keyboard("{Escape}");
    expect(screen.queryByRole("dialog")).not.toBeInTheDocument();
  });

  it("treats a network failure like any other failure", async () => {
    jest.spyOn(globalThis, "fetch").mockRejectedValue(new TypeError("Failed to fetch"));
    const consoleError = jest.spyOn(console, "error").mockImplementation(() => undefined);
    const user = userEvent.setup();
    renderLanding();
    const notices = watchNotices();

    const dialog = await openDialog(user);
    await user.type(within(dialog).getByRole("textbox"), "offline@example.com");
    await user.click(within(dialog).getByRole("button", { name: "Join Now" }));

    await notices.expectNew(FAILURE_NOTICE);
    expect(within(dialog).getByRole("textbox")).toHaveValue("offline@example.com");
    expect(consoleError).toHaveBeenCalled();
  });

  it("opens from Sign Up and Listen Now too", async () => {
    const user = userEvent.setup();
    renderLanding();
    for (const name of ["Sign Up", "Listen Now"]) {
      const trigger = screen.getByRole("button", { name });
      await user.click(trigger);
      expect(screen.getByRole("dialog", { name: "Join the Movement" })).toBeInTheDocument();
      await user.keyboard("{Escape}");
      expect(screen.queryByRole("dialog")).not.toBeInTheDocument();
      expect(trigger).toHaveFocus();
    }
  });
});

describe("the inline signup card", () => {
  it("welcomes the visitor to the movement and clears the field", async () => {
    backend = answerFunctions(() => ({ status: 200, body: { status: "pending" } }));
    const user = userEvent.setup();
    renderLanding();
    const notices = watchNotices();

    await user.type(inlineField(), "inline@example.com");
    await user.click(inlineButton());

    await notices.expectNew({
      title: "Welcome to the movement!",
      description: "Check your email for confirmation.",
      role: "status",
    });
    expect(inlineField()).toHaveValue("");
    expect(backend.calls.map((call) => call.body)).toEqual([
      { email: "inline@example.com", signup_form: "inline", signup_page: "/" },
    ]);
  });

  it("does nothing when the field is empty or blank", async () => {
    backend = answerFunctions(() => ({ status: 200 }));
    const user = userEvent.setup();
    renderLanding();
    const notices = watchNotices();

    await user.click(inlineButton());
    await user.type(inlineField(), "   ");
    await user.click(inlineButton());

    expect(backend.calls).toHaveLength(0);
    expect(inlineButton()).toHaveTextContent("Join Now");
    notices.expectNone();
  });

  it("keeps the address when the signup fails", async () => {
    backend = answerFunctions(() => ({
      status: 429,
      body: { error: { code: "rate_limited", message: "slow down" } },
    }));
    jest.spyOn(console, "error").mockImplementation(() => undefined);
    const user = userEvent.setup();
    renderLanding();
    const notices = watchNotices();

    await user.type(inlineField(), "busy@example.com");
    await user.click(inlineButton());

    await notices.expectNew(FAILURE_NOTICE);
    expect(inlineField()).toHaveValue("busy@example.com");
  });
});
