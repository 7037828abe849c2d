import { render, screen } from "@testing-library/react";
import type { PageProps } from "gatsby";
import NotFoundPage from "../404";
import { notFoundData } from "../../../test/support/content";
import { MISSING_PATH_MESSAGE, MISSING_PATH_SCRIPT } from "../../not-found/missing-path-log";

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

it("logs the path once when the pre-rendered page's own script already logged it, and again on a later visit", () => {
  const consoleError = jest.spyOn(console, "error").mockImplementation(() => undefined);
  const props = {
    data: notFoundData(),
    location: { pathname: window.location.pathname },
  } as unknown as PageProps<ReturnType<typeof notFoundData>>;
  // What the browser runs as it parses the built page, before React.
  new Function(MISSING_PATH_SCRIPT)();
  const { unmount } = render(<NotFoundPage {...props} />);
  expect(consoleError.mock.calls).toEqual([[MISSING_PATH_MESSAGE, window.location.pathname]]);

  // A navigation inside the site back to the same missing page runs no inline script.
  unmount();
  render(<NotFoundPage {...props} />);
  expect(consoleError).toHaveBeenCalledTimes(2);
  consoleError.mockRestore();
});
