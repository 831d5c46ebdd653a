/** A CSV line break: CRLF (Windows), LF (Unix) or a lone CR (old Mac). */
export type LineBreak = '\r\n' | '\n' | '\r';

const BREAK_OR_QUOTE = /["\r\n]/g;
/** A line break other than the target: when the text has none and no quote, it passes as is. */
const FOREIGN: Readonly<Record<LineBreak, RegExp>> = {
  '\n': /\r/,
  '\r\n': /\r(?!\n)|(?<!\r)\n/,
  '\r': /\n/,
};

/**
 * Rewrites every line break outside quoted cells to one chosen line break, as text streams in, so
 * that a file whose line endings change midway (CRLF rows, then LF rows, or a lone CR) reads as one
 * row per line: papaparse splits on a single newline sequence, and with `\r\n` it reads a row that
 * ends in a bare `\n` as part of the next one.
 *
 * Line breaks inside a quoted cell are kept exactly as written (they are the cell's text). Quotes are
 * followed as papaparse reads them (RFC 4180): a `"` opens a quoted cell only as the cell's first
 * character, `""` inside is an escaped quote, and any other `"` closes it. (papaparse keeps a cell
 * open on a `"` followed by other text, `"ab"c`; it warns about such a row, and here its line
 * breaks may then be normalised.)
 *
 * Linear: the text is scanned once with a native regex that stops only at quotes and line breaks;
 * text with nothing to change is passed through without being copied. A trailing `\r` or run of
 * `"` is held back until the next piece of text shows what follows it.
 */
export class LineBreakNormalizer {
  private inQuotes = false;
  /** The last character emitted (decides whether a `"` starts a cell); '' at the start. */
  private previous = '';
  private held = '';

  constructor(
    private readonly delimiter: string,
    private readonly target: LineBreak,
  ) {}

  /** Normalises the next piece of text; may hold back its last character. */
  push(text: string): string {
    return this.normalize(this.held + text, false);
  }

  /** The end of the text: whatever was held back. */
  end(): string {
    return this.normalize(this.held, true);
  }

  private normalize(text: string, final: boolean): string {
    this.held = '';
    if (text === '') return '';
    let end = text.length;
    if (!final) {
      // What follows decides: a CR may be half of a CRLF; a quote may be half of an escaped `""`
      // (the whole trailing run of quotes is held, so every quote before it sees its successor).
      if (text.charCodeAt(end - 1) === 13) end--;
      else while (end > 0 && text.charCodeAt(end - 1) === 34) end--;
      this.held = text.slice(end);
      if (end === 0) return '';
    }
    const piece = end === text.length ? text : text.slice(0, end);
    if (!this.inQuotes && !piece.includes('"') && !FOREIGN[this.target].test(piece)) {
      this.previous = piece[end - 1] ?? '';
      return piece; // the common case: one kind of line break, no quoted cells
    }
    let out: string[] | null = null;
    let copied = 0;
    const re = BREAK_OR_QUOTE;
    re.lastIndex = 0;
    for (let m = re.exec(text); m !== null && m.index < end; m = re.exec(text)) {
      const i = m.index;
      const c = text.charCodeAt(i);
      if (c === 34) {
        if (this.inQuotes) {
          if (i + 1 < end && text.charCodeAt(i + 1) === 34) re.lastIndex = i + 2;
          else this.inQuotes = false;
        } else {
          const before = i > 0 ? text[i - 1] : this.previous;
          if (before === '' || before === this.delimiter || before === '\n' || before === '\r') {
            this.inQuotes = true;
          }
        }
        continue;
      }
      if (this.inQuotes) continue;
      const crlf = c === 13 && i + 1 < end && text.charCodeAt(i + 1) === 10;
      const found: LineBreak = crlf ? '\r\n' : c === 13 ? '\r' : '\n';
      if (crlf) re.lastIndex = i + 2;
      if (found === this.target) continue;
      out ??= [];
      out.push(text.slice(copied, i), this.target);
      copied = i + found.length;
    }
    if (end > 0) this.previous = text[end - 1] ?? '';
    if (out === null) return end === text.length ? text : text.slice(0, end);
    out.push(text.slice(copied, end));
    return out.join('');
  }
}
