// The Effect page's share button.
import type { EffectPages } from "../../content/schema";
import { showNotice } from "../../newsletter/notices";
import { useHydrated } from "../../newsletter/use-hydrated";

export type ShareTexts = EffectPages["effect"]["share"];

interface ShareEffectProps {
  title: string;
  /** The page's canonical address: what is shared or copied. */
  url: string;
  texts: ShareTexts;
}

/** The visitor closed the share sheet: nothing to say. */
const cancelled = (error: unknown): boolean => error instanceof DOMException && error.name === "AbortError";

/**
 * Shares the Effect through the device's own share sheet (the Web Share API) where there is one,
 * and copies its link elsewhere, saying so in a notice; no third-party script. Invisible (and out of
 * reach of keyboards and screen readers) until React runs: without JavaScript it could do nothing,
 * and the address bar shares the page anyway.
 */
export function ShareEffect({ title, url, texts }: ShareEffectProps) {
  const hydrated = useHydrated();
  const share = async () => {
    if (typeof navigator.share === "function") {
      try {
        await navigator.share({ title, url });
        await showNotice({ tone: "success", title: texts.sharedTitle, description: texts.sharedText });
        return;
      } catch (error) {
        if (cancelled(error)) return;
        // Refused (a desktop without a share target, a browser policy): the link is copied instead.
      }
    }
    try {
      await navigator.clipboard.writeText(url);
      await showNotice({ tone: "success", title: texts.copiedTitle, description: texts.copiedText });
    } catch (error) {
      console.error("Could not copy the Effect's link", error);
      await showNotice({ tone: "error", title: texts.failedTitle, description: texts.failedText });
    }
  };
  return (
    // Invisible rather than absent until then, so the page does not move when it appears. Not part of
    // what the archive's search indexes (data-pagefind-ignore): every Effect has it.
    <button
      type="button"
      data-pagefind-ignore
      onClick={() => void share()}
      className={`btn-dark mt-10 ${hydrated ? "" : "invisible"}`}
    >
      <svg
        aria-hidden="true"
        viewBox="0 0 24 24"
        className="h-5 w-5"
        fill="none"
        stroke="currentColor"
        strokeWidth="2"
      >
        <path
          strokeLinecap="round"
          strokeLinejoin="round"
          d="M12 3v12M7 8l5-5 5 5M5 13v6a2 2 0 0 0 2 2h10a2 2 0 0 0 2-2v-6"
        />
      </svg>
      {texts.label}
    </button>
  );
}
