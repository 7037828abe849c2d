/**
 * CSV as the mail providers write it (RFC 4180: a quoted field may hold commas, doubled quotes and
 * line breaks), each record with the line of the file it starts on: the header is line 1 and a line
 * break inside quotes counts, so the import names the line a text editor shows for a row it could
 * not read. A byte-order mark is dropped; CRLF, LF and a lone CR all end a line; empty lines are
 * passed over. Written here rather than taken from csv-parse: its `info.lines` is the line a record
 * ends on, and the reader is this one loop.
 */

export interface CsvRecord {
  /** The line of the file the record starts on (1 is the header). */
  line: number;
  fields: string[];
}

export class CsvError extends Error {}

const QUOTE = 34;
const COMMA = 44;
const LF = 10;
const CR = 13;

/** Line breaks in `text` (CRLF counted once). */
function lineBreaks(text: string): number {
  let count = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code === LF || (code === CR && text.charCodeAt(index + 1) !== LF)) count++;
  }
  return count;
}

export function csvRecords(text: string): CsvRecord[] {
  const records: CsvRecord[] = [];
  const end = text.length;
  let index = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let line = 1;
  while (index < end) {
    const start = line;
    const fields: string[] = [];
    for (;;) {
      let value = "";
      if (text.charCodeAt(index) === QUOTE) {
        index++;
        for (;;) {
          const close = text.indexOf('"', index);
          if (close === -1) throw new CsvError(`line ${start}: a quoted field is never closed`);
          const part = text.slice(index, close);
          line += lineBreaks(part);
          value += part;
          index = close + 1;
          if (text.charCodeAt(index) !== QUOTE) break;
          value += '"';
          index++;
        }
      }
      // An unquoted field, or what follows a closing quote before the next comma (kept, as spreadsheets do).
      const from = index;
      while (index < end) {
        const code = text.charCodeAt(index);
        if (code === COMMA || code === LF || code === CR) break;
        index++;
      }
      value += text.slice(from, index);
      fields.push(value);
      if (index < end && text.charCodeAt(index) === COMMA) {
        index++;
        continue;
      }
      if (text.charCodeAt(index) === CR) index++;
      if (text.charCodeAt(index) === LF) index++;
      line++;
      break;
    }
    if (fields.length > 1 || fields[0] !== "") records.push({ line: start, fields });
  }
  return records;
}
