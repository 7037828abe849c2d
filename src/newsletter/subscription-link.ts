/** What a link from the confirmation e-mail asks for: `/?confirm=TOKEN` or `/?unsubscribe=TOKEN`. */
export interface SubscriptionLink {
  action: "confirm" | "unsubscribe";
  token: string;
}

export type LinkOutcome = "done" | "expired" | "invalid" | "failed";

export function readSubscriptionLink(search: string): SubscriptionLink | null {
  const params = new URLSearchParams(search);
  for (const action of ["confirm", "unsubscribe"] as const) {
    const token = params.get(action);
    if (token !== null) return { action, token: token.trim() };
  }
  return null;
}

/** The address without the link's parameter, keeping any other query and the fragment. */
export function withoutSubscriptionLink(location: Pick<Location, "pathname" | "search" | "hash">): string {
  const params = new URLSearchParams(location.search);
  params.delete("confirm");
  params.delete("unsubscribe");
  const query = params.toString();
  return `${location.pathname}${query ? `?${query}` : ""}${location.hash}`;
}

export const functionFor = (action: SubscriptionLink["action"]) =>
  action === "confirm" ? "confirm-subscription" : "unsubscribe";

/**
 * Reads the function's answer per the functions' contract (docs/architecture.md): 410 is an expired link, 400 and 404
 * a link that was never valid; anything else (network, 5xx, 429) may work on a later try.
 */
export function outcomeOf(result: { ok: boolean; status?: number }): LinkOutcome {
  if (result.ok) return "done";
  if (result.status === 410) return "expired";
  if (result.status === 400 || result.status === 404) return "invalid";
  return "failed";
}
