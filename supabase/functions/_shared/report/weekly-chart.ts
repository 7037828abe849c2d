/**
 * The weekly report's chart, drawn as a PNG when the mail is made: the readers on the list each day
 * of the last eight weeks over the readers who joined and left each day of the last two, as SVG
 * by the report's own charts (`charts.ts`), rasterized by resvg.
 *
 * resvg as WebAssembly (@cf-wasm/resvg, with its module inlined, so nothing is read from a file
 * or the network), the same on Node and on Supabase's Deno, where a native addon (the social
 * cards' @resvg/resvg-js) cannot load. It is imported on first use: a send-effect call that draws
 * nothing never pays for it. The text is drawn with Anton (`chart-font.ts`): resvg is given the
 * font's bytes, since Supabase has no system fonts.
 */
import { CHART_COLORS, lineChartSvg, splitBarChartSvg } from "./charts.ts";
import { CHART_FONT_FAMILY, CHART_FONT_TTF_BASE64 } from "./chart-font.ts";
import type { WeekNumbers } from "./week.ts";

/** The chart's size in the mail, in CSS pixels: the card's inner width (600 - 2 x 28). */
export const CHART_SIZE = { width: 544, height: 408 } as const;
/**
 * Pixels per CSS pixel in the PNG. One: the drawing is the dearest part of the report on Supabase,
 * where a worker has 2 s of CPU for everything it does, and twice the pixels cost about twice the
 * time (on Deno 2.1.4 here 0.45 to 0.8 s at two, 0.2 to 0.45 s at one); a phone shows it smaller
 * than this anyway.
 */
export const CHART_SCALE = 1;
/**
 * The drawing's own size, the same shape: narrower than it is shown, so its 12 px text is larger
 * in the mail (13.6 px in a wide card, 7.5 on a 375 px phone, where it is scaled down to fit).
 */
const DRAWING = { width: 480, height: 360 } as const;
/** The list's size, above the day's flows. */
const LINE_HEIGHT = 175;

/** The chart's words, from the mail's (content/newsletter.yaml `mails.ownerReport`). */
export interface ChartLabels {
  title: string;
  listSize: string;
  joined: string;
  unsubscribed: string;
  bounced: string;
  complained: string;
}

// Made when first used, as calendar-day.ts's dayLabel.
let shortDayFormat: Intl.DateTimeFormat | undefined;
const shortDay = (day: string) =>
  (shortDayFormat ??= new Intl.DateTimeFormat("en-US", {
    timeZone: "UTC",
    month: "short",
    day: "numeric",
  })).format(new Date(`${day}T00:00:00Z`));

/** `svg` (one of charts.ts's drawings) placed at `y` inside another. */
const placedAt = (svg: string, y: number) => svg.replace(/^<svg /, `<svg x="0" y="${y}" `);

/** The chart as SVG text, on the card's white. */
export function weeklyChartSvg(numbers: WeekNumbers, labels: ChartLabels): string {
  const { width, height } = DRAWING;
  const days = numbers.days;
  const lastTwoWeeks = days.slice(-14);
  const size = lineChartSvg({
    title: labels.title,
    name: labels.listSize,
    values: days.map((day) => day.listSize),
    axisLabels: days.map((day) => shortDay(day.day)),
    size: { width, height: LINE_HEIGHT },
  });
  const flow = (name: string, color: string, key: "joined" | "unsubscribed" | "bounced" | "complained") => ({
    name,
    color,
    values: lastTwoWeeks.map((day) => day[key]),
  });
  const flows = splitBarChartSvg({
    title: labels.title,
    up: [flow(labels.joined, CHART_COLORS.joined, "joined")],
    down: [
      flow(labels.unsubscribed, CHART_COLORS.unsubscribed, "unsubscribed"),
      flow(labels.bounced, CHART_COLORS.bounced, "bounced"),
      flow(labels.complained, CHART_COLORS.complained, "complained"),
    ],
    axisLabels: lastTwoWeeks.map((day) => shortDay(day.day)),
    size: { width, height: height - LINE_HEIGHT },
  });
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}"><rect width="${width}" height="${height}" fill="#ffffff"/>${placedAt(size, 0)}${placedAt(flows, LINE_HEIGHT)}</svg>`;
}

export interface DrawnChart {
  png: Uint8Array;
  /** In pixels: `CHART_SIZE` times `CHART_SCALE`. */
  width: number;
  height: number;
  /** The time resvg took to load (its WebAssembly decoded and compiled), 0 once it is loaded. */
  loadMs: number;
  /** The time the drawing took, font and PNG included. */
  drawMs: number;
}

/** Base64 text as bytes, decoded a slice at a time into the one array (`Uint8Array.fromBase64`'s job). */
export function decodeBase64(text: string): Uint8Array {
  const padding = text.endsWith("==") ? 2 : text.endsWith("=") ? 1 : 0;
  const bytes = new Uint8Array((text.length / 4) * 3 - padding);
  // A multiple of 4 characters: each slice decodes by itself.
  const SLICE = 65_536;
  let at = 0;
  for (let offset = 0; offset < text.length; offset += SLICE) {
    const binary = atob(text.slice(offset, offset + SLICE));
    for (let index = 0; index < binary.length; index++) bytes[at++] = binary.charCodeAt(index);
  }
  return bytes;
}

let fontBytes: Uint8Array | undefined;
const chartFont = () => (fontBytes ??= decodeBase64(CHART_FONT_TTF_BASE64));

type Base64Decoder = { fromBase64?: (text: string) => Uint8Array };
let loaded = false;

/**
 * resvg, loaded on first use. The package decodes its inlined WebAssembly (2.4 MB, as 3.3 MB of
 * base64) with the standard `Uint8Array.fromBase64` where the runtime has it, else through
 * `Uint8Array.from(atob(...), ...)`, which on Deno 2.1.4 holds some 40 MB more for a moment: with
 * the function beside it, past the 256 MB a Supabase worker may use. So where the method is
 * missing, `decodeBase64` stands in for it while the package loads, and is taken back after.
 */
async function loadResvg() {
  const arrays = Uint8Array as unknown as Base64Decoder;
  const lent = arrays.fromBase64 === undefined;
  if (lent) arrays.fromBase64 = decodeBase64;
  try {
    return (await import("@cf-wasm/resvg")).Resvg;
  } finally {
    if (lent) delete arrays.fromBase64;
  }
}

/** `svg` as a PNG `CHART_SCALE` times the width it is shown at. */
export async function drawPng(svg: string, cssWidth: number = CHART_SIZE.width): Promise<DrawnChart> {
  const loading = performance.now();
  const firstTime = !loaded;
  const Resvg = await loadResvg();
  loaded = true;
  const started = performance.now();
  const resvg = await Resvg.async(svg, {
    fitTo: { mode: "width", value: cssWidth * CHART_SCALE },
    font: {
      fontBuffers: [chartFont()],
      defaultFontFamily: CHART_FONT_FAMILY,
      sansSerifFamily: CHART_FONT_FAMILY,
    },
  });
  try {
    const image = resvg.render();
    try {
      return {
        png: image.asPng(),
        width: image.width,
        height: image.height,
        loadMs: firstTime ? started - loading : 0,
        drawMs: performance.now() - started,
      };
    } finally {
      image.free();
    }
  } finally {
    resvg.free();
  }
}
