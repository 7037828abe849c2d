import { render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import IndexPage from "../index";
import { landingData, landingProps } from "../../../test/support/content";

const YOUTUBE = "https://www.youtube.com/@YOUR-HANDLE";

function renderLanding(data = landingData()) {
  return render(<IndexPage {...landingProps(data)} />);
}

describe("the landing page", () => {
  it("shows the sections in the product's order", () => {
    renderLanding();
    const headings = screen.getAllByRole("heading", { level: 2 }).map((heading) => heading.textContent);
    expect(headings).toEqual([
      "New Here? Start with Episode One",
      "My Why: Family First",
      "The Movement: More Than Content",
      "Core Values",
      "The Man Behind the Movement",
      "Get the Effect of the Day",
      "Live With Purpose. Starting Today.",
    ]);
    expect(screen.getByRole("heading", { level: 1 })).toHaveTextContent("The Purpose Effect");
    expect(screen.getByText("NO LIMITS. JUST PURPOSE.")).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Join the Movement" })).toBeInTheDocument();
  });

  it("lists the six core values, each with a title and a description", () => {
    renderLanding();
    const values = within(screen.getByRole("region", { name: "Core Values" })).getAllByRole("listitem");
    expect(values.map((value) => within(value).getByRole("heading").textContent)).toEqual([
      "Confidence",
      "Consistency",
      "Respect",
      "Responsibility",
      "Commitment",
      "Love",
    ]);
    for (const value of values)
      expect(value.querySelector("p:last-child")?.textContent?.length).toBeGreaterThan(10);
  });

  it("opens every external link in a new tab without handing over the page", () => {
    renderLanding();
    const external = screen
      .getAllByRole("link")
      .filter((link) => link.getAttribute("href")?.startsWith("http"));
    expect(external.length).toBeGreaterThanOrEqual(8);
    for (const link of external) {
      expect(link).toHaveAttribute("target", "_blank");
      expect(link).toHaveAttribute("rel", "noopener noreferrer");
    }
  });

  it("sends episode one, Follow + Subscribe and Watch Now to the video channel", () => {
    renderLanding();
    for (const name of ["Watch Episode One", "Follow + Subscribe", "Watch Now"]) {
      expect(screen.getByRole("link", { name })).toHaveAttribute("href", YOUTUBE);
    }
  });

  it("has four channel cards; three link to their profile", () => {
    renderLanding();
    const cards = within(
      screen.getByRole("region", { name: "The Movement: More Than Content" }),
    ).getAllByRole("listitem");
    expect(cards).toHaveLength(4);
    expect(cards.map((card) => within(card).getByRole("link").getAttribute("href"))).toEqual([
      "https://open.spotify.com/show/YOUR-SHOW-ID",
      YOUTUBE,
      "https://www.instagram.com/YOUR-HANDLE/",
      "https://www.tiktok.com/@YOUR-HANDLE",
    ]);
  });

  it("follows the content files: a changed brand name reaches the heading and the footer", async () => {
    const data = landingData();
    const renamed = {
      ...data,
      brand: { ...data.brand, name: "Dads Who Build", hero: { ...data.brand.hero, title: "Dads Who Build" } },
    };
    renderLanding(renamed);
    expect(screen.getByRole("heading", { level: 1 })).toHaveTextContent("Dads Who Build");
    expect(screen.getByRole("contentinfo")).toHaveTextContent("Dads Who Build");
  });

  it("names the hero picture for people who can't see it", () => {
    renderLanding();
    expect(screen.getByRole("img", { name: landingData().brand.hero.imageAlt })).toBeInTheDocument();
  });
});

describe("the signup dialog as a modal", () => {
  it("traps focus, closes on Escape, the close button and a click outside, and returns focus", async () => {
    const user = userEvent.setup();
    renderLanding();
    const trigger = screen.getByRole("button", { name: "Join the Movement" });

    await user.click(trigger);
    let dialog = screen.getByRole("dialog", { name: "Join the Movement" });
    expect(dialog).toHaveAttribute("aria-modal", "true");
    const field = within(dialog).getByRole("textbox");
    expect(field).toBeRequired();
    expect(field).toHaveAttribute("type", "email");
    expect(field).toHaveFocus();
    // Tab cycles inside the dialog: close button, field, Join Now, the small print's link, and back.
    await user.tab();
    expect(within(dialog).getByRole("button", { name: "Join Now" })).toHaveFocus();
    await user.tab();
    expect(within(dialog).getByRole("link", { name: "Your data and privacy" })).toHaveAttribute(
      "href",
      "/privacy/",
    );
    expect(within(dialog).getByRole("link", { name: "Your data and privacy" })).toHaveFocus();
    await user.tab();
    expect(within(dialog).getByRole("button", { name: "Close" })).toHaveFocus();
    await user.tab();
    expect(field).toHaveFocus();
    await user.tab({ shift: true });
    expect(within(dialog).getByRole("button", { name: "Close" })).toHaveFocus();

    await user.keyboard("{Escape}");
    expect(screen.queryByRole("dialog")).not.toBeInTheDocument();
    expect(trigger).toHaveFocus();

    await user.click(trigger);
    dialog = screen.getByRole("dialog", { name: "Join the Movement" });
    await user.click(within(dialog).getByRole("button", { name: "Close" }));
    expect(screen.queryByRole("dialog")).not.toBeInTheDocument();
    expect(trigger).toHaveFocus();

    await user.click(trigger);
    await user.click(screen.getByTestId("dialog-backdrop"));
    expect(screen.queryByRole("dialog")).not.toBeInTheDocument();
    expect(trigger).toHaveFocus();
  });
});
