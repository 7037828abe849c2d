import { act } from "@testing-library/react";
import { hydrateRoot } from "react-dom/client";
import { renderToString } from "react-dom/server";
import { Footer } from "../footer";

const footer = (
  <Footer
    brandName="The Purpose Effect"
    tagline="NO LIMITS. JUST PURPOSE."
    footer={{ note: "Made with purpose.", archiveLabel: "Read past Effects" }}
  />
);

afterEach(() => {
  jest.useRealTimers();
  jest.restoreAllMocks();
});

it("shows the visitor's year, without a hydration error, when the page was built the year before", async () => {
  jest.useFakeTimers({
    now: new Date("2025-12-31T12:00:00Z"),
    doNotFake: ["queueMicrotask", "setImmediate"],
  });
  const container = document.createElement("div");
  container.innerHTML = renderToString(footer);
  document.body.append(container);
  expect(container).toHaveTextContent("© 2025 The Purpose Effect");

  jest.setSystemTime(new Date("2026-01-01T12:00:00Z"));
  const consoleError = jest.spyOn(console, "error").mockImplementation(() => undefined);
  const recoverableErrors: unknown[] = [];
  await act(async () => {
    hydrateRoot(container, footer, { onRecoverableError: (error) => recoverableErrors.push(error) });
  });

  expect(container).toHaveTextContent("© 2026 The Purpose Effect · NO LIMITS. JUST PURPOSE.");
  expect(recoverableErrors).toEqual([]);
  expect(consoleError).not.toHaveBeenCalled();
  container.remove();
});
