/**
 * The report's charts as SVG text at a given size, nothing but strings: a line over days, bars
 * above and below zero (joined, and the ways readers left), and labelled horizontal bars. The
 * page inlines them (one drawing for a phone, one for a wide screen); the weekly mail can
 * rasterize the same text into its PNG. Each drawing is an image with its title as its name: the
 * numbers are in the table the page sets beside it. Colours are the brand's (tailwind.config.js),
 * each at least 3:1 on the cream page.
 */
import { escapeHtml as e } from "../contract/escape-html.ts";

export const CHART_COLORS = {
  ink: "#1c1917",
  muted: "#57534e",
  grid: "#e7dfd3",
  cream: "#faf6f0",
  /** The list's size: the ember of the site's buttons, deepened for contrast. */
  line: "#92400e",
  area: "#f59e0b",
  joined: "#b45309",
  unsubscribed: "#57534e",
  bounced: "#0f766e",
  complained: "#b91c1c",
} as const;

export interface ChartSize {
  width: number;
  height: number;
}

export interface BarSeries {
  name: string;
  color: string;
  values: number[];
}

const FONT = `font-family="system-ui, -apple-system, 'Segoe UI', Roboto, Arial, sans-serif"`;
const LEGEND_ROW = 20;

/** A step of 1, 2 or 5 times a power of ten, so that about `ticks` of them reach `max`. */
export function niceStep(max: number, ticks: number): number {
  if (max <= 0) return 1;
  const raw = max / ticks;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((candidate) => candidate >= raw) ?? 10 * power;
  return Math.max(1, step);
}

const format = (value: number) => value.toLocaleString("en-US");

function svgOpen(size: ChartSize, title: string, body: string): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${size.width} ${size.height}" width="${size.width}" height="${size.height}" role="img" aria-label="${e(title)}" ${FONT} font-size="12">${body}</svg>`;
}

/** The colour key, in rows at the top, wrapped to `width`; its height is where the plot may start. */
function legend(
  items: { name: string; color: string }[],
  left: number,
  width: number,
): { svg: string; height: number } {
  let x = left;
  let y = 8;
  const svg = items
    .map(({ name, color }) => {
      const itemWidth = 30 + name.length * 6.6;
      if (x > left && x + itemWidth - 12 > width) {
        x = left;
        y += LEGEND_ROW;
      }
      const item = `<rect x="${x}" y="${y}" width="12" height="12" rx="2" fill="${color}"/><text x="${x + 17}" y="${y + 10}" fill="${CHART_COLORS.ink}">${e(name)}</text>`;
      x += itemWidth;
      return item;
    })
    .join("");
  return { svg, height: y + LEGEND_ROW };
}

/** The y axis: grid lines and their values, from `min` to `max` in steps. */
function yAxis(
  plot: { left: number; right: number; top: number; bottom: number },
  min: number,
  max: number,
  step: number,
) {
  const y = (value: number) => plot.bottom - ((value - min) / (max - min || 1)) * (plot.bottom - plot.top);
  let lines = "";
  for (let value = min; value <= max + step / 2; value += step)
    lines += `<line x1="${plot.left}" x2="${plot.right}" y1="${y(value).toFixed(1)}" y2="${y(value).toFixed(1)}" stroke="${value === 0 ? CHART_COLORS.muted : CHART_COLORS.grid}" stroke-width="1"/><text x="${plot.left - 6}" y="${(y(value) + 4).toFixed(1)}" text-anchor="end" fill="${CHART_COLORS.muted}">${format(value)}</text>`;
  return { y, lines };
}

/**
 * Labels under the x axis: at most one per `spacing` pixels, each at the first slot whose label
 * differs from the one before (a month's first day, for days labelled by month).
 */
function xLabels(labels: string[], x: (index: number) => number, baseline: number, spacing: number): string {
  let out = "";
  let lastX = -Infinity;
  labels.forEach((label, index) => {
    if (index > 0 && label === labels[index - 1]) return;
    const at = x(index);
    if (at - lastX < spacing) return;
    lastX = at;
    out += `<text x="${at.toFixed(1)}" y="${baseline}" text-anchor="middle" fill="${CHART_COLORS.muted}">${e(label)}</text>`;
  });
  return out;
}

/** Where the bars or the line go: right of the y axis's values, under the key, over the x axis's labels. */
function plotArea(size: ChartSize, keyHeight: number, maxValue: number, minValue = 0) {
  const digits = format(Math.max(Math.abs(maxValue), Math.abs(minValue))).length + (minValue < 0 ? 1 : 0);
  return {
    left: 14 + digits * 7,
    right: size.width - 12,
    top: keyHeight + 10,
    bottom: size.height - 26,
  };
}

/** The key's left edge: where the plot starts for values of this many digits. */
const keyLeft = (maxValue: number, minValue = 0) =>
  plotArea({ width: 0, height: 0 }, 0, maxValue, minValue).left;

/**
 * One value per slot as a line over a lightly filled area; `axisLabels` name the slots under the
 * axis (a label is shown where it changes, as space allows).
 */
export function lineChartSvg(options: {
  title: string;
  name: string;
  values: number[];
  axisLabels: string[];
  size: ChartSize;
}): string {
  const { values, size } = options;
  const max = Math.max(1, ...values);
  const step = niceStep(max, 4);
  const top = Math.ceil(max / step) * step;
  const key = legend([{ name: options.name, color: CHART_COLORS.line }], keyLeft(top), size.width);
  const plot = plotArea(size, key.height, top);
  const { y, lines } = yAxis(plot, 0, top, step);
  const x = (index: number) =>
    values.length === 1
      ? (plot.left + plot.right) / 2
      : plot.left + (index / (values.length - 1)) * (plot.right - plot.left);
  const points = values.map((value, index) => `${x(index).toFixed(1)},${y(value).toFixed(1)}`);
  const area = `M${x(0).toFixed(1)},${plot.bottom} L${points.join(" L")} L${x(values.length - 1).toFixed(1)},${plot.bottom} Z`;
  return svgOpen(
    size,
    options.title,
    key.svg +
      lines +
      `<path d="${area}" fill="${CHART_COLORS.area}" fill-opacity="0.22"/>` +
      `<polyline points="${points.join(" ")}" fill="none" stroke="${CHART_COLORS.line}" stroke-width="2.5" stroke-linejoin="round"/>` +
      xLabels(options.axisLabels, x, size.height - 8, 56),
  );
}

/**
 * Bars per slot: `up` stacked above zero, `down` stacked below it (drawn as negative), each
 * series in its colour, with the key at the top.
 */
export function splitBarChartSvg(options: {
  title: string;
  up: BarSeries[];
  down: BarSeries[];
  axisLabels: string[];
  size: ChartSize;
}): string {
  const { up, down, size } = options;
  const slots = options.axisLabels.length;
  const total = (series: BarSeries[], index: number) =>
    series.reduce((sum, one) => sum + one.values[index], 0);
  const indexes = Array.from({ length: slots }, (_, index) => index);
  const maxUp = Math.max(0, ...indexes.map((index) => total(up, index)));
  const maxDown = Math.max(0, ...indexes.map((index) => total(down, index)));
  const step = niceStep(Math.max(maxUp, maxDown, 1), 3);
  const top = Math.max(step, Math.ceil(maxUp / step) * step);
  const bottom = maxDown > 0 ? -Math.ceil(maxDown / step) * step : 0;
  const key = legend([...up, ...down], keyLeft(top, bottom), size.width);
  const plot = plotArea(size, key.height, top, bottom);
  const { y, lines } = yAxis(plot, bottom, top, step);
  const slot = (plot.right - plot.left) / slots;
  const barWidth = Math.max(1, slot * 0.72);
  const x = (index: number) => plot.left + slot * (index + 0.5);
  let bars = "";
  const stack = (series: BarSeries[], direction: 1 | -1) => {
    for (const index of indexes) {
      let base = 0;
      for (const one of series) {
        const value = one.values[index];
        if (value <= 0) continue;
        const from = y(base * direction);
        const to = y((base + value) * direction);
        bars += `<rect x="${(x(index) - barWidth / 2).toFixed(1)}" y="${Math.min(from, to).toFixed(1)}" width="${barWidth.toFixed(1)}" height="${Math.max(1, Math.abs(to - from)).toFixed(1)}" fill="${one.color}"/>`;
        base += value;
      }
    }
  };
  stack(up, 1);
  stack(down, -1);
  return svgOpen(
    size,
    options.title,
    key.svg + lines + bars + xLabels(options.axisLabels, x, size.height - 8, 56),
  );
}

/** One labelled bar per row, longest first as given, its value at its end. */
export function horizontalBarsSvg(options: {
  title: string;
  rows: { label: string; value: number }[];
  color: string;
  size: { width: number };
}): string {
  const { rows, color } = options;
  const rowHeight = 30;
  const height = Math.max(1, rows.length) * rowHeight + 8;
  const labelChars = Math.max(8, Math.min(36, Math.floor(options.size.width / 16)));
  const labelWidth = labelChars * 6.8 + 8;
  const valueWidth = 8 + format(Math.max(0, ...rows.map((row) => row.value))).length * 7.5;
  const barSpace = Math.max(20, options.size.width - labelWidth - valueWidth - 4);
  const max = Math.max(1, ...rows.map((row) => row.value));
  const body = rows
    .map((row, index) => {
      const top = 4 + index * rowHeight;
      const label = row.label.length > labelChars ? `${row.label.slice(0, labelChars - 1)}…` : row.label;
      const width = Math.max(row.value > 0 ? 2 : 0, (row.value / max) * barSpace);
      return (
        `<text x="${labelWidth - 8}" y="${top + 19}" text-anchor="end" fill="${CHART_COLORS.ink}">${e(label)}</text>` +
        `<rect x="${labelWidth}" y="${top + 6}" width="${width.toFixed(1)}" height="18" rx="2" fill="${color}"/>` +
        `<text x="${(labelWidth + width + 6).toFixed(1)}" y="${top + 19}" fill="${CHART_COLORS.ink}">${format(row.value)}</text>`
      );
    })
    .join("");
  return svgOpen({ width: options.size.width, height }, options.title, body);
}
