import { render, screen, within } from "@testing-library/react";
import type { PageProps } from "gatsby";
import PrivacyPage from "../privacy";
import { privacyData } from "../../../test/support/content";

it("says what is kept, why, for how long and how to leave, from content/privacy.yaml", () => {
  const data = privacyData();
  const props = { data, location: { pathname: "/privacy/" } } as unknown as PageProps<typeof data>;
  render(<PrivacyPage {...props} />);

  expect(screen.getByRole("heading", { level: 1 })).toHaveTextContent(data.privacy.title);
  const sections = screen.getAllByRole("heading", { level: 2 }).map((heading) => heading.textContent);
  expect(sections).toEqual(["What we keep, and why", "How long we keep it", "How to leave"]);
  // The real retention and the two ways to leave.
  const main = within(screen.getByRole("main"));
  expect(main.getByText(/never confirm is deleted after 7 days/)).toBeInTheDocument();
  expect(main.getByText(/session storage/)).toBeInTheDocument();
  expect(main.getByText(/has an unsubscribe link/)).toBeInTheDocument();
  expect(main.getByText(/ask us to forget you\./)).toBeInTheDocument();
  expect(screen.getByRole("link", { name: data.privacy.backLabel })).toHaveAttribute("href", "/");
  expect(screen.getByRole("contentinfo")).toBeInTheDocument();
});
