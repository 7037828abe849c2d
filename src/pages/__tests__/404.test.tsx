import { render, screen } from "@testing-library/react";
import type { PageProps } from "gatsby";
import NotFoundPage from "../404";
import { notFoundData } from "../../test-support/content";

it("shows 404, says the page was not found, links home and logs the attempted path", () => {
  const consoleError = jest.spyOn(console, "error").mockImplementation(() => undefined);
  const props = { data: notFoundData(), location: { pathname: "/no-such-page/" } } as unknown as PageProps<
    ReturnType<typeof notFoundData>
  >;
  render(<NotFoundPage {...props} />);

  expect(screen.getByText("404")).toBeInTheDocument();
  expect(screen.getByRole("heading", { level: 1 })).toHaveTextContent("Oops! Page not found");
  expect(screen.getByRole("link", { name: "Return to Home" })).toHaveAttribute("href", "/");
  expect(consoleError).toHaveBeenCalledWith(expect.stringContaining("404"), "/no-such-page/");
  consoleError.mockRestore();
});
