/** `npm run subscribers -- export`'s CSV read back as a spreadsheet would, one address's line at a time. */

/** The CSV's lines as cells (RFC 4180: quoted cells may hold commas, quotes and line breaks). */
export function csvRows(csv: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = "";
  let quoted = false;
  for (let index = 0; index < csv.length; index++) {
    const char = csv[index];
    if (quoted) {
      if (char === '"' && csv[index + 1] === '"') {
        cell += '"';
        index++;
      } else if (char === '"') quoted = false;
      else cell += char;
    } else if (char === '"') quoted = true;
    else if (char === ",") {
      row.push(cell);
      cell = "";
    } else if (char === "\r" && csv[index + 1] === "\n") {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = "";
      index++;
    } else cell += char;
  }
  if (cell !== "" || row.length > 0) rows.push([...row, cell]);
  return rows;
}

/** The export's line for `email`, as column → cell; fails naming the address when it is not there. */
export function exportedRow(csv: string, email: string): Record<string, string> {
  const [header, ...rows] = csvRows(csv);
  const row = rows.find((cells) => cells[0] === email);
  if (!row) throw new Error(`${email} is not in the export:\n${csv}`);
  return Object.fromEntries(header.map((column, index) => [column, row[index]]));
}
