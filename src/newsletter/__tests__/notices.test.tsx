import { act, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { showNotice } from "../notices";

function visitorAsksForReducedMotion(reduce: boolean) {
  const matchMedia = window.matchMedia;
  jest.spyOn(window, "matchMedia").mockImplementation((query) => ({
    ...matchMedia(query),
    matches: reduce && query === "(prefers-reduced-motion: reduce)",
  }));
}

afterEach(() => jest.restoreAllMocks());

async function show(title: string): Promise<HTMLElement> {
  await act(() => showNotice({ tone: "success", title, description: "Check your email for confirmation." }));
  return waitFor(() => {
    const notice = screen.getAllByRole("status").find((element) => element.textContent?.includes(title));
    if (!notice) throw new Error(`No notice "${title}" on the page`);
    return notice;
  });
}

describe("a notice", () => {
  it("appears and leaves without moving when the visitor asks for reduced motion", async () => {
    visitorAsksForReducedMotion(true);
    const user = userEvent.setup();
    const notice = await show("Welcome, without a bounce");

    expect(notice).toBeVisible();
    expect(notice.className).not.toMatch(/animate|bounce|enter/);
    await user.click(within(notice).getByRole("button", { name: "close" }));
    // No exit animation to wait for: the notice is gone at once.
    expect(notice).not.toBeInTheDocument();
  });

  it("bounces in for everyone else", async () => {
    visitorAsksForReducedMotion(false);
    const notice = await show("Welcome, with a bounce");
    expect(notice).toHaveClass("Toastify__bounce-enter--top-center");
  });
});
