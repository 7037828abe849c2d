import { arrivedWhole } from "../effect-search";

/** An `input` event as a browser fires it (https://w3c.github.io/input-events/). */
const input = (inputType: string, data: string | null = null) => new InputEvent("input", { inputType, data });

describe("arrivedWhole: whether an edit brought its words whole, so the search need not wait for more keys", () => {
  it.each([
    ["a paste", input("insertFromPaste")],
    ["a drop", input("insertFromDrop")],
    ["a word picked from the keyboard's suggestions", input("insertReplacementText")],
    ["several letters at once", input("insertText", "patience")],
  ])("yes for %s", (_what, event) => expect(arrivedWhole(event)).toBe(true));

  it.each([
    ["a key", input("insertText", "p")],
    ["a word still being composed", input("insertCompositionText", "pat")],
    ["a deletion", input("deleteContentBackward")],
    ["an event that says nothing of how", new Event("input")],
  ])("no for %s", (_what, event) => expect(arrivedWhole(event)).toBe(false));
});
