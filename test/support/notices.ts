// The notices on the page, for the site's unit tests.
import { waitFor } from "@testing-library/react";

const noticesOnPage = () => Array.from(document.querySelectorAll<HTMLElement>("#notices .Toastify__toast"));

/**
 * The notice area lives for the whole page (as it does for a visitor), so notices from an earlier
 * test stay in the document. This waits for the one notice the action under test adds.
 */
/** The failure notice: what a visitor sees whenever a call fails. */
export const FAILURE_NOTICE = {
  title: "Something went wrong",
  description: "Please try again later.",
  role: "alert",
} as const;

export function watchNotices() {
  const before = new Set(noticesOnPage());
  return {
    async expectNew(expected: { title: string; description: string; role: "alert" | "status" }) {
      let notice: HTMLElement | undefined;
      await waitFor(() => {
        const fresh = noticesOnPage().filter((element) => !before.has(element));
        expect(fresh).toHaveLength(1);
        notice = fresh[0];
      });
      const shown = notice as HTMLElement;
      expect(shown).toHaveTextContent(expected.title);
      expect(shown).toHaveTextContent(expected.description);
      expect(shown.querySelector(`[role="${expected.role}"]`) ?? shown).toBeTruthy();
      return shown;
    },
    expectNone() {
      expect(noticesOnPage().filter((element) => !before.has(element))).toHaveLength(0);
    },
  };
}
