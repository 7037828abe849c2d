// docs/architecture.md's "What may import what" says what `npm run lint` enforces: each sentence
// is read from the doc and tried against the project's ESLint configuration, an import at a time.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";

const ROOT = path.resolve(__dirname, "../..");
const CORE = "supabase/functions/_shared/";

const section = readFileSync(path.join(ROOT, "docs/architecture.md"), "utf8")
  .split("## What may import what")[1]
  .split("\n## ")[0]
  .replace(/\s+/g, " ");

/** The names in backticks in `text`. */
const named = (text: string) => [...text.matchAll(/`([^`]+)`/g)].map(([, name]) => name);

/** A module of each place a sentence names: a folder's, or `gatsby-*`'s own file. */
const moduleOf = (place: string) =>
  place.endsWith("/") ? `${place}probe.ts` : place.replace("*", "node.ts");

interface Probe {
  /** The importing file, from the root. */
  file: string;
  /** What it imports, from the root. */
  target: string;
  refused: boolean;
}

const site = /The site \(([^)]*)\) imports from the core only `contract\/`, and nothing of ([^.]*)\./.exec(
  section,
);
const hosts = /- ([^.]*) import the core only through `hosts\.ts` and `contract\/`\./.exec(section);
const [sitePlaces, siteForbidden, hostPlaces] = [site?.[1], site?.[2], hosts?.[1]].map((text) =>
  named(text ?? ""),
);
const CONTRACT_MODULE = `${CORE}contract/probe.ts`;

const probes: Record<string, Probe[]> = {
  site: sitePlaces.flatMap((place) => [
    ...siteForbidden.map((folder) => ({ file: moduleOf(place), target: `${folder}probe`, refused: true })),
    { file: moduleOf(place), target: `${CORE}config.ts`, refused: true },
    { file: moduleOf(place), target: `${CORE}contract/calendar-day.ts`, refused: false },
  ]),
  hosts: hostPlaces.flatMap((place) => [
    { file: moduleOf(place), target: `${CORE}config.ts`, refused: true },
    { file: moduleOf(place), target: `${CORE}hosts.ts`, refused: false },
    { file: moduleOf(place), target: `${CORE}contract/calendar-day.ts`, refused: false },
  ]),
  contract: [
    { file: CONTRACT_MODULE, target: `${CORE}config.ts`, refused: true },
    { file: CONTRACT_MODULE, target: `${CORE}contract/calendar-day.ts`, refused: false },
  ],
};

/** Each probe, with whether ESLint refused its import (one ESLint for them all: it takes seconds to load). */
function lint(all: Probe[]): Probe[] {
  const specifier = ({ file, target }: Probe) => {
    const relative = path.posix.relative(path.posix.dirname(file), target);
    return relative.startsWith(".") ? relative : `./${relative}`;
  };
  const script = `
    const { ESLint } = require("eslint");
    const probes = JSON.parse(require("node:fs").readFileSync(0, "utf8"));
    (async () => {
      const eslint = new ESLint({ cwd: process.cwd() });
      const refused = [];
      for (const { file, specifier } of probes) {
        const [result] = await eslint.lintText(
          "import probe from " + JSON.stringify(specifier) + ";\\nexport default probe;\\n",
          { filePath: file },
        );
        refused.push(result.messages.some((message) => message.ruleId === "no-restricted-imports"));
      }
      process.stdout.write(JSON.stringify(refused));
    })();
  `;
  const input = JSON.stringify(all.map((probe) => ({ file: probe.file, specifier: specifier(probe) })));
  const refused = JSON.parse(
    execFileSync(process.execPath, ["-e", script], { cwd: ROOT, input, encoding: "utf8" }),
  ) as boolean[];
  return all.map((probe, at) => ({ ...probe, refused: refused[at] }));
}

describe("what may import what, as docs/architecture.md says it", () => {
  const names = Object.keys(probes);
  const linted: Record<string, Probe[]> = {};
  beforeAll(() => {
    const all = lint(names.flatMap((name) => probes[name]));
    for (const name of names) linted[name] = all.splice(0, probes[name].length);
  });

  it("reads the sentences it tries", () => {
    expect(sitePlaces).toEqual(expect.arrayContaining(["src/", "build/", "gatsby-*", "site-headers/"]));
    expect(siteForbidden).toEqual(expect.arrayContaining(["server/", "scripts/", "bench/", "test/"]));
    expect(hostPlaces).toEqual(["server/", "scripts/"]);
    expect(section).toContain("- `contract/` imports nothing but its own modules");
  });

  it.each(names)("is enforced for the sentence on the %s", (name) => {
    expect(linted[name]).toEqual(probes[name]);
  });
});
