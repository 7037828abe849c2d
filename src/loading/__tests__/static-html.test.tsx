import { act, fireEvent } from "@testing-library/react";
import { useState } from "react";
import { hydrateRoot } from "react-dom/client";
import { renderToString } from "react-dom/server";
import { setHydratingServerHtml, StaticHtml } from "../static-html";

const paragraphRendered = jest.fn();

function Paragraph({ text }: { text: string }) {
  paragraphRendered(text);
  return <p>{text}</p>;
}

function Counter() {
  const [count, setCount] = useState(0);
  return (
    <button type="button" onClick={() => setCount(count + 1)}>
      Clicked {count}
    </button>
  );
}

const page = (text: string) => (
  <main>
    <StaticHtml name="story">
      <h2>My Why</h2>
      <Paragraph text={text} />
    </StaticHtml>
    <Counter />
  </main>
);

function serverRendered(text: string): HTMLElement {
  const container = document.createElement("div");
  container.innerHTML = renderToString(page(text));
  document.body.append(container);
  return container;
}

beforeEach(() => {
  paragraphRendered.mockClear();
});

afterEach(() => {
  setHydratingServerHtml(false);
  document.body.innerHTML = "";
  jest.restoreAllMocks();
});

it("keeps the server's HTML of a static part without rendering what is inside it, and hydrates the rest", async () => {
  const container = serverRendered("Fatherhood first.");
  paragraphRendered.mockClear();
  const story = container.querySelector("[data-static-html]");
  const consoleError = jest.spyOn(console, "error").mockImplementation(() => undefined);
  const recoverableErrors: unknown[] = [];

  setHydratingServerHtml(true);
  // Another text on the client: what React would render there never reaches the page.
  await act(async () => {
    hydrateRoot(container, page("Rendered in the browser."), {
      onRecoverableError: (error) => recoverableErrors.push(error),
    });
  });

  expect(paragraphRendered).not.toHaveBeenCalled();
  expect(container.querySelector("[data-static-html]")).toBe(story);
  expect(container).toHaveTextContent("My WhyFatherhood first.");
  expect(container).not.toHaveTextContent("Rendered in the browser.");
  expect(recoverableErrors).toEqual([]);
  expect(consoleError).not.toHaveBeenCalled();

  // The island next to it is React's.
  await act(async () => {
    fireEvent.click(container.querySelector("button")!);
  });
  expect(container.querySelector("button")).toHaveTextContent("Clicked 1");
  expect(container).toHaveTextContent("Fatherhood first.");
});

it("renders its children wherever React is not taking over the server's HTML (develop, the CMS preview)", async () => {
  const container = document.createElement("div");
  document.body.append(container);
  const { createRoot } = await import("react-dom/client");
  await act(async () => {
    createRoot(container).render(page("In the preview."));
  });

  expect(paragraphRendered).toHaveBeenCalledTimes(1);
  expect(container).toHaveTextContent("My WhyIn the preview.");
});

it("renders its children when the page's HTML has no such part", async () => {
  const container = document.createElement("div");
  document.body.append(container);
  setHydratingServerHtml(true);
  const { createRoot } = await import("react-dom/client");
  await act(async () => {
    createRoot(container).render(page("A page rendered in the browser."));
  });

  expect(paragraphRendered).toHaveBeenCalledTimes(1);
  expect(container).toHaveTextContent("A page rendered in the browser.");
});
