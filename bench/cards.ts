/**
 * `npm run bench:cards`: drawing the Effects' social cards as the build does (src/effects/cards.ts),
 * N of them (`--cards N`, default 60) with an empty cache, then the same N again from the cache,
 * as the next build finds them. Prints a table and writes bench/cards-results.json: the time of
 * each pass, the time per card, how much faster the cached pass is, and the cards' sizes.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { writeEffectCards } from "../src/effects/cards";
import { effectCardPath } from "../src/effects/paths";
import { textTable } from "./table";

const ROOT = path.resolve(__dirname, "..");

/** Titles of the lengths editors write, from a few words to a long sentence. */
const TITLES = [
  "Show up first",
  "Rest is part of the work",
  "The patience it takes to build a family and a business at the same time",
  "Say no to one thing today",
  "Your children are watching how you handle a hard day at work",
];

function effects(count: number): { date: string; title: string }[] {
  const start = Date.UTC(2026, 0, 1);
  return Array.from({ length: count }, (_, index) => ({
    date: new Date(start + index * 86_400_000).toISOString().slice(0, 10),
    title: `${TITLES[index % TITLES.length]} (${index + 1})`,
  }));
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { cards: { type: "string", default: "60" } } });
  const count = Number(values.cards);
  if (!Number.isInteger(count) || count < 1) throw new Error(`--cards must be a whole number above 0`);
  const dir = mkdtempSync(path.join(os.tmpdir(), "bench-cards-"));
  const source = {
    published: effects(count),
    brand: { name: "The Purpose Effect", siteUrl: "https://thepurposeeffect.example" },
    eyebrow: "Effect of the Day",
    cacheDir: path.join(dir, "cache"),
  };
  try {
    const pass = async () => {
      const started = performance.now();
      const counts = await writeEffectCards(path.join(dir, "public"), source);
      return { ...counts, ms: performance.now() - started };
    };
    console.log(`Drawing ${count} cards with an empty cache, then again from the cache...`);
    const cold = await pass();
    const cached = await pass();
    const sizes = source.published
      .map(({ date }) => readFileSync(path.join(dir, "public", ...effectCardPath(date).split("/"))).length)
      .sort((a, b) => a - b);
    const median = sizes[Math.floor(sizes.length / 2)];
    const speedup = cold.ms / cached.ms;
    const rows = [
      [
        "cold (empty cache)",
        String(cold.drawn),
        String(cold.cached),
        `${Math.round(cold.ms)} ms`,
        `${(cold.ms / count).toFixed(1)} ms`,
      ],
      [
        "cached (next build)",
        String(cached.drawn),
        String(cached.cached),
        `${Math.round(cached.ms)} ms`,
        `${(cached.ms / count).toFixed(2)} ms`,
      ],
    ];
    console.log(`\n${textTable(["pass", "drawn", "from cache", "total", "per card"], rows)}`);
    console.log(
      `\nThe cached pass takes 1/${speedup.toFixed(0)} of the cold one. Card PNGs: ` +
        `${sizes[0]} to ${sizes[sizes.length - 1]} bytes, median ${median}.`,
    );
    const results = {
      date: new Date().toISOString(),
      machine: {
        cpus: os.cpus().length,
        cpuModel: os.cpus()[0]?.model ?? "unknown",
        loadAverage: os.loadavg(),
      },
      cards: count,
      cold,
      cached,
      cachedFasterBy: Number(speedup.toFixed(1)),
      pngBytes: { min: sizes[0], median, max: sizes[sizes.length - 1] },
    };
    writeFileSync(path.join(ROOT, "bench", "cards-results.json"), `${JSON.stringify(results, null, 2)}\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
