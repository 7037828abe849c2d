// After the site project's environment is up: jest-dom's matchers and what jsdom lacks (matchMedia).
import "@testing-library/jest-dom";

// jsdom has no matchMedia (https://jestjs.io/docs/manual-mocks#mocking-methods-which-are-not-implemented-in-jsdom):
// by default the visitor states no preference; a test that needs one spies on it.
Object.defineProperty(window, "matchMedia", {
  configurable: true,
  writable: true,
  value: (query: string): MediaQueryList =>
    ({
      matches: false,
      media: query,
      onchange: null,
      addEventListener: () => undefined,
      removeEventListener: () => undefined,
      addListener: () => undefined,
      removeListener: () => undefined,
      dispatchEvent: () => false,
    }) as MediaQueryList,
});
