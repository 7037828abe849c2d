/** How `npm run bench` writes its numbers, in the terminal and in bench/RESULTS.md alike. */
export const ms = (value: number) => `${Math.round(value)} ms`;
export const bytesExact = (value: number) => `${value.toLocaleString("en-US")} bytes`;
export const ratio = (ours: number, ceiling: number) =>
  ceiling === 0 ? (ours === 0 ? "1.00x" : "n/a") : `${(ours / ceiling).toFixed(2)}x`;
/** Nothing within the limit; else by how much it is missed. */
export const over = (value: number, limit: number, unit: (value: number) => string) =>
  value <= limit ? "" : `, ${unit(value - limit)} over`;
