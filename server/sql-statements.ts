/**
 * A migration file as the Supabase CLI splits it into statements, so the statements the local
 * runner records for a file are the ones `supabase db push` records for it (and `supabase
 * migration fetch` could write back). A port of the pinned CLI's `parser.SplitAndTrim` (supabase/cli,
 * apps/cli-go/pkg/parser, the version with ParenState that 2.122.1's binary holds), quirks
 * included: a `;` ends a statement unless it is inside quotes, a dollar-quoted body, a comment,
 * parentheses or a `BEGIN ATOMIC … END` body; each statement keeps its leading comments and loses
 * its `;` and the whitespace around it. server/__tests__/migrations.test.ts compares it with the
 * real CLI.
 */

/** PostgreSQL takes every character beyond ASCII for part of a name or dollar tag, as the CLI does. */
const isIdentifierChar = (char: string) => /^[A-Za-z0-9_$]$/.test(char) || (char.codePointAt(0) ?? 0) >= 0x80;

/** Equal but for the case of ASCII letters (Go's EqualFold, for the ASCII words it compares). */
const asciiLower = (text: string) => text.replace(/[A-Z]/g, (letter) => letter.toLowerCase());

/** PostgreSQL's whitespace, which the CLI skips between BEGIN and ATOMIC and around comments. */
const SQL_WHITESPACE = " \t\n\r\f\v";

/** The statement read so far: `sql` from `start` to `end`, which ends with the character just read. */
class Token {
  constructor(
    readonly sql: string,
    readonly start: number,
    readonly end: number,
  ) {}
  /** Its text from `from` (an index into `sql`) up to `to` (default: its end). */
  slice(from: number, to = this.end): string {
    return this.sql.slice(Math.max(this.start, from), to);
  }
  /** Its last `length` code units (fewer at its start). */
  tail(length: number): string {
    return this.slice(this.end - length);
  }
  /** Its character before index `at`, or "" at its start. */
  charBefore(at: number): string {
    return at > this.start ? (Array.from(this.slice(at - 2, at)).pop() ?? "") : "";
  }
  /** Whether it ends at `at` with the word `keyword`, not with a longer name that ends so. */
  endsWithKeyword(keyword: string, at = this.end): boolean {
    const from = at - keyword.length;
    return (
      from >= this.start &&
      asciiLower(this.sql.slice(from, at)) === asciiLower(keyword) &&
      !isIdentifierChar(this.charBefore(from))
    );
  }
  /** Whether it ends with `BEGIN ATOMIC`, any whitespace between. */
  endsWithBeginAtomic(): boolean {
    if (!this.endsWithKeyword("ATOMIC")) return false;
    let at = this.end - "ATOMIC".length;
    while (at > this.start && SQL_WHITESPACE.includes(this.sql[at - 1])) at -= 1;
    return this.endsWithKeyword("BEGIN", at);
  }
}

/** Takes the next character; null ends the statement with it. */
interface State {
  next(char: string, token: Token): State | null;
}

/** Only whitespace and comments (an unclosed one included), as the CLI scans them. */
function isCommentsAndWhitespace(text: string): boolean {
  let i = 0;
  while (i < text.length) {
    if (SQL_WHITESPACE.includes(text[i])) i += 1;
    else if (text.startsWith("--", i)) {
      const newline = text.indexOf("\n", i + 2);
      if (newline === -1) return true;
      i = newline + 1;
    } else if (text.startsWith("/*", i)) {
      // The CLI's sliding window, which reads "/*/" as opened and closed.
      let depth = 1;
      i += 2;
      for (; i < text.length && depth > 0; i += 1) {
        if (text.startsWith("/*", i - 1)) depth += 1;
        else if (text.startsWith("*/", i - 1)) depth -= 1;
      }
      if (depth > 0) return true;
    } else return false;
  }
  return true;
}

class Ready implements State {
  next(char: string, token: Token): State | null {
    switch (char) {
      case "$":
        // After a name's character, `$` continues the name (pending$$foo$), opening no dollar quote.
        return isIdentifierChar(token.charBefore(token.end - 1)) ? this : new Tag(token.end - 1);
      case "'":
      case '"':
        return new Quote(char);
      case "-":
        return new LineCommentStart();
      case "/":
        return new BlockComment();
      case "\\":
        return new Escape();
      case ";":
        return null;
      case "(":
        return new Parentheses(this);
      case "c":
      case "C":
        if (token.endsWithBeginAtomic()) return new AtomicBody(this, token.end);
    }
    return this;
  }
}

const ready = (char: string, token: Token) => new Ready().next(char, token);

/** One `-` read: a second one opens a comment to the end of the line. */
class LineCommentStart implements State {
  next(char: string, token: Token): State | null {
    return char === "-" ? new Delimited("\n") : ready(char, token);
  }
}

/** Inside something only `delimiter` ends, nothing escaped: a dollar-quoted body or a line comment. */
class Delimited implements State {
  constructor(private readonly delimiter: string) {}
  next(_char: string, token: Token): State | null {
    return token.tail(this.delimiter.length) === this.delimiter ? new Ready() : this;
  }
}

/** After `/`: `/*` opens a block comment, which nests. */
class BlockComment implements State {
  private depth = 0;
  next(char: string, token: Token): State | null {
    const window = token.tail(2);
    if (window === "/*") {
      this.depth += 1;
      return this;
    }
    if (this.depth === 0) return ready(char, token);
    if (window === "*/") {
      this.depth -= 1;
      if (this.depth === 0) return new Ready();
    }
    return this;
  }
}

/** Inside '…' or "…", where a doubled quote is the quote itself. */
class Quote implements State {
  private closing = false;
  constructor(private readonly delimiter: string) {}
  next(char: string, token: Token): State | null {
    if (this.closing) {
      if (char === this.delimiter) {
        this.closing = false;
        return this;
      }
      return ready(char, token);
    }
    if (char === this.delimiter) this.closing = true;
    return this;
  }
}

/** After a `$` at `start`: `$tag$` opens a dollar-quoted body, anything else was no tag. */
class Tag implements State {
  constructor(private readonly start: number) {}
  next(char: string, token: Token): State | null {
    if (char === "$") return new Delimited(token.slice(this.start));
    return isIdentifierChar(char) ? this : ready(char, token);
  }
}

/** After `\`: the next character is taken as it is. */
class Escape implements State {
  next(): State | null {
    return new Ready();
  }
}

/**
 * Inside parentheses, which the first `)` outside quotes and comments closes (a nested pair's
 * `)` closes both, as in the CLI); a `;` inside ends no statement.
 */
class Parentheses implements State {
  constructor(private inner: State) {}
  next(char: string, token: Token): State | null {
    const next = this.inner.next(char, token);
    this.inner = next ?? new Ready();
    if (next === null || !(next instanceof Ready)) return this;
    return char === ")" ? new Ready() : this;
  }
}

/**
 * Inside a `BEGIN ATOMIC` body, whose inner statements each end with `;`: the body ends at an
 * `END` that begins a statement (after only whitespace and comments) and is a whole word.
 */
class AtomicBody implements State {
  private pendingEnd = false;
  private statementHasContent = false;
  constructor(
    private inner: State,
    private statementStart: number,
  ) {}
  next(char: string, token: Token): State | null {
    const pendingEnd = this.pendingEnd;
    this.pendingEnd = false;
    if (pendingEnd && !isIdentifierChar(char)) return ready(char, token);
    const next = this.inner.next(char, token);
    if (next === null) {
      this.inner = new Ready();
      this.statementStart = token.end;
      this.statementHasContent = false;
      return this;
    }
    this.inner = next;
    if (!(next instanceof Ready)) return this;
    if (!this.statementHasContent && token.endsWithKeyword("END")) {
      if (isCommentsAndWhitespace(token.slice(this.statementStart, token.end - "END".length)))
        this.pendingEnd = true;
      else this.statementHasContent = true;
    }
    return this;
  }
}

// Go's unicode.IsSpace, which the CLI's strings.TrimSpace trims (JavaScript's trim also takes U+FEFF, not U+0085).
const GO_SPACE = "\\t\\n\\v\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
const GO_SPACE_AROUND = new RegExp(`^[${GO_SPACE}]+|[${GO_SPACE}]+$`, "g");

// Go's strings.TrimRight(token, ";"), then strings.TrimSpace.
const trim = (statement: string) => statement.replace(/;+$/, "").replace(GO_SPACE_AROUND, "");

/** The statements of `sql` as the Supabase CLI records them: split, trimmed, empty ones left out. */
export function splitStatements(sql: string): string[] {
  const statements: string[] = [];
  let start = 0;
  let end = 0;
  let state: State = new Ready();
  for (const char of sql) {
    end += char.length;
    const next = state.next(char, new Token(sql, start, end));
    if (next) {
      state = next;
      continue;
    }
    statements.push(sql.slice(start, end));
    start = end;
    state = new Ready();
  }
  statements.push(sql.slice(start));
  return statements.map(trim).filter((statement) => statement.length > 0);
}

/**
 * The script's text with its whitespace and statement ends made uniform: each run of whitespace
 * one space, and `;` between statements without spaces, repeats or a last one. Statements joined
 * with `;` and the file they came from compare equal this way, whoever split them.
 */
const canonical = (script: string) =>
  script
    .replace(/\s+/g, " ")
    .replace(/ ?;[ ;]*/g, ";")
    .replace(/^[ ;]+|[ ;]+$/g, "");

/** Whether `statements`, as recorded for a migration, are still what `script` says. */
export const sameScript = (statements: string[], script: string): boolean =>
  canonical(statements.join(";")) === canonical(script);
