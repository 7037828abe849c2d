/**
 * The pieces of `npm run bench` that `BENCH_SKIP` (comma-separated) may leave out, for a quick
 * check of the rest; Lighthouse, the long tasks and the first visit always run. Every list of
 * them in the docs is held to SKIPPABLE (bench/__tests__/pieces.test.ts).
 */
import { readVariable } from "../supabase/functions/_shared/contract/variables";

export const SKIPPABLE = [
  "tap",
  "dialog",
  "signup",
  "send",
  "supabase",
  "cpu",
  "hostile",
  "year",
  "import",
] as const;
export type Skippable = (typeof SKIPPABLE)[number];

/** The pieces `BENCH_SKIP` names; an unknown name fails the run before anything is measured. */
export function skippedPieces(env: NodeJS.ProcessEnv = process.env): Set<Skippable> {
  const names = (readVariable(env, "BENCH_SKIP") ?? "")
    .split(",")
    .map((name) => name.trim())
    .filter(Boolean);
  const unknown = names.filter((name) => !(SKIPPABLE as readonly string[]).includes(name));
  if (unknown.length > 0) {
    throw new Error(`BENCH_SKIP: unknown ${unknown.join(", ")}; it takes ${SKIPPABLE.join(", ")}`);
  }
  return new Set(names as Skippable[]);
}
