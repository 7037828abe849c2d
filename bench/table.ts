/** A plain-text table with aligned columns, for the terminal. Numbers are right-aligned. */
export function textTable(header: string[], rows: string[][]): string {
  const widths = header.map((cell, column) =>
    Math.max(cell.length, ...rows.map((row) => row[column].length)),
  );
  const right = (column: number) => rows.some((row) => /^[\d.,x× -]+[%a-zA-Z ]*$/.test(row[column]));
  const line = (row: string[]) =>
    row
      .map((cell, column) =>
        right(column) && column > 0 ? cell.padStart(widths[column]) : cell.padEnd(widths[column]),
      )
      .join("  ")
      .trimEnd();
  return [line(header), widths.map((width) => "-".repeat(width)).join("  "), ...rows.map(line)].join("\n");
}

/** The same table in Markdown, for bench/RESULTS.md. */
export function markdownTable(header: string[], rows: string[][]): string {
  const line = (row: string[]) => `| ${row.join(" | ")} |`;
  return [
    line(header),
    line(header.map((_, column) => (column === 0 ? "---" : "---:"))),
    ...rows.map(line),
  ].join("\n");
}
