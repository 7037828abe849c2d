// The archive's search over every published Effect.
import { withPrefix } from "gatsby";
import { useEffect, useId, useRef, useState } from "react";
import type { EffectPages } from "../../content/schema";
import { useHydrated } from "../../newsletter/use-hydrated";
import { fillPlaceholders } from "../../../supabase/functions/_shared/contract/mail-template";
import {
  type Found,
  SEARCH_PAUSE_MS,
  SEARCH_SCRIPT,
  SEARCH_WORKER,
  type SearchReply,
  type SearchRequest,
  type SearchSite,
} from "./search-setup";

export type SearchTexts = EffectPages["archive"]["search"];

type State =
  | { kind: "idle" }
  | { kind: "searching"; query: string }
  | { kind: "done"; query: string; total: number; found: Found[] }
  | { kind: "failed" };

let worker: Worker | null = null;
let nextId = 0;
const waiting = new Map<number, (reply: SearchReply) => void>();
/** Set once the search is in: from then on the last results stay until the next ones replace them. */
let loaded = false;

/**
 * Asks the search worker (src/components/effects/search-worker.ts), started the first time it is
 * needed: nothing of the search reaches a reader who does not use it. A worker that fails answers
 * every question waiting with "failed", and the next question starts a new one.
 */
function ask(request: DistributiveOmit<SearchRequest, "id">): Promise<SearchReply> {
  const id = nextId++;
  if (!worker) {
    let started: Worker;
    try {
      started = new Worker(withPrefix(SEARCH_WORKER), { type: "module", name: "effect-search" });
    } catch (error) {
      return Promise.resolve({ id, kind: "failed", message: String(error) });
    }
    started.onmessage = (event: MessageEvent<SearchReply>) => {
      waiting.get(event.data.id)?.(event.data);
      waiting.delete(event.data.id);
    };
    started.onerror = (event) => {
      worker = null;
      started.terminate();
      // A script that did not load brings an event without a message.
      const message = event.message || `${SEARCH_WORKER} failed`;
      for (const [id, resolve] of waiting) resolve({ id, kind: "failed", message });
      waiting.clear();
    };
    worker = started;
  }
  const asked = worker;
  return new Promise((resolve) => {
    waiting.set(id, resolve);
    asked.postMessage({ ...request, id });
  });
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

const site = (): SearchSite => ({ script: withPrefix(SEARCH_SCRIPT), baseUrl: withPrefix("/") });

/**
 * Whether an edit brought its words whole, so no more keys are coming to wait for: a paste, a drop,
 * a word picked from the keyboard's suggestions, or several letters at once
 * (https://w3c.github.io/input-events/#interface-InputEvent-Attributes).
 */
export function arrivedWhole(event: Event): boolean {
  const { inputType, data } = event as Partial<InputEvent>;
  if (!inputType) return false;
  return (
    inputType.startsWith("insertFrom") ||
    inputType === "insertReplacementText" ||
    (inputType === "insertText" && (data?.length ?? 0) > 1)
  );
}

async function loadSearch(): Promise<void> {
  const reply = await ask({ kind: "load", site: site() });
  if (reply.kind === "failed") throw new Error(reply.message);
  loaded = true;
}

/**
 * A search form over the published Effects, shown only once React runs: without JavaScript the
 * archive is its plain list and nothing pretends to search. The index loads when the reader
 * focuses the field, the results follow the typing, and how many were found is announced.
 */
export function EffectSearch({ texts }: { texts: SearchTexts }) {
  const hydrated = useHydrated();
  const id = useId();
  const [state, setState] = useState<State>({ kind: "idle" });
  const latest = useRef("");
  const list = useRef<HTMLOListElement>(null);
  /** After "Show more": the first of the results it added, which takes the focus from the button. */
  const focusFrom = useRef<number | null>(null);

  useEffect(() => {
    if (focusFrom.current === null) return;
    list.current?.querySelectorAll("a")[focusFrom.current]?.focus();
    focusFrom.current = null;
  }, [state]);

  const run = async (raw: string, immediately: boolean) => {
    const query = raw.trim();
    latest.current = query;
    if (query === "") {
      setState({ kind: "idle" });
      return;
    }
    // "Searching…" only while the search's files load, not at every key (the status is announced).
    if (!loaded) setState({ kind: "searching", query });
    // Each key fetches the part of the index the word needs at once and searches after a pause;
    // words that arrive whole (a paste) and Enter search now, and Enter after a paste gets the
    // answer of the search the paste began (src/components/effects/search-worker.ts).
    const reply = await ask({
      kind: "search",
      site: site(),
      query,
      wait: immediately ? 0 : SEARCH_PAUSE_MS,
    }).catch((error: unknown) => ({ kind: "failed" as const, message: String(error) }));
    loaded ||= reply.kind === "found";
    // A newer query is on its way (or was typed since): its answer is the one to show.
    if (reply.kind === "superseded" || latest.current !== query) return;
    if (reply.kind === "found") setState({ kind: "done", query, total: reply.total, found: reply.found });
    else setState({ kind: "failed" });
  };

  const showMore = async () => {
    if (state.kind !== "done") return;
    const reply = await ask({ kind: "more", query: state.query, from: state.found.length });
    if (latest.current !== state.query) return;
    if (reply.kind !== "found") {
      setState({ kind: "failed" });
      return;
    }
    focusFrom.current = state.found.length;
    setState({ ...state, found: [...state.found, ...reply.found] });
  };

  // The same height before and after React runs, so the list below does not move when the form appears.
  if (!hydrated) return <div className="mt-8 h-[4.75rem]" />;

  let status = "";
  if (state.kind === "searching") status = texts.searchingText;
  if (state.kind === "failed") status = texts.errorText;
  if (state.kind === "done") {
    const template =
      state.total === 0 ? texts.noResultsText : state.total === 1 ? texts.oneResultText : texts.resultsText;
    status = fillPlaceholders(template, { query: state.query, count: String(state.total) });
  }

  return (
    <div className="mt-8">
      <form
        role="search"
        aria-label={texts.label}
        onSubmit={(event) => {
          event.preventDefault();
          void run(new FormData(event.currentTarget).get("q")?.toString() ?? "", true);
        }}
      >
        <label htmlFor={`${id}-q`} className="block text-sm font-semibold uppercase tracking-wider">
          {texts.label}
        </label>
        <div className="mt-2 flex gap-2">
          <input
            id={`${id}-q`}
            name="q"
            type="search"
            autoComplete="off"
            placeholder={texts.placeholder}
            aria-describedby={`${id}-status`}
            onFocus={() => void loadSearch().catch(() => undefined)}
            onChange={(event) => void run(event.currentTarget.value, arrivedWhole(event.nativeEvent))}
            className="h-12 min-w-0 flex-1 rounded-full border border-ink/20 bg-white px-5 text-base text-ink placeholder:text-stone-500 focus:border-ink focus:outline-none focus:ring-2 focus:ring-ember"
          />
          <button type="submit" className="btn-outline-dark h-12 shrink-0">
            {texts.buttonLabel}
          </button>
        </div>
      </form>
      <p id={`${id}-status`} role="status" aria-live="polite" className="mt-4 text-stone-700">
        {status}
      </p>
      {state.kind === "done" && state.found.length > 0 ? (
        // Set apart from the archive's list below by a rule.
        <div className="border-b border-ink/15 pb-10">
          <ol ref={list} aria-labelledby={`${id}-status`} className="mt-4 space-y-3">
            {state.found.map((result) => (
              <li
                key={result.url}
                className="rounded-2xl border-l-4 border-ember bg-white p-5 shadow ring-1 ring-ink/5"
              >
                <p className="text-sm font-semibold uppercase tracking-wider text-ember-text">
                  {result.date}
                </p>
                <a href={result.url} className="mt-1 block text-xl font-bold leading-snug hover:underline">
                  {result.title}
                </a>
                {/* Pagefind's excerpt: the Effect's own text, escaped by Pagefind, the words found in <mark>. */}
                <p
                  className="search-excerpt mt-1 text-stone-700"
                  dangerouslySetInnerHTML={{ __html: result.excerpt }}
                />
              </li>
            ))}
          </ol>
          {state.found.length < state.total ? (
            <button type="button" className="btn-outline-dark mt-4" onClick={() => void showMore()}>
              {texts.moreLabel}
            </button>
          ) : null}
        </div>
      ) : null}
    </div>
  );
}
