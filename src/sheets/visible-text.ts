/**
 * Characters a terminal acts on instead of showing: C0 controls (ESC starts CSI and OSC sequences
 * that clear the screen, move the cursor or make links; BEL, backspace and carriage return redraw
 * what is already there), DEL, C1 controls (U+0080–U+009F: CSI and OSC in their 8-bit forms), and
 * the Unicode bidirectional overrides and isolates that reorder what follows them.
 * A line feed is kept only when `lines` is set (see `visibleText`).
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/gu;
const CONTROL_OR_NEWLINE =
  // eslint-disable-next-line no-control-regex -- as above
  /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\u2028\u2029]/gu;

/** Short names for the controls people know by them. */
const NAMED: Readonly<Record<string, string>> = { '\t': '\\t', '\n': '\\n', '\r': '\\r' };

function escape(c: string): string {
  const named = NAMED[c];
  if (named !== undefined) return named;
  const code = c.charCodeAt(0);
  return code <= 0xff
    ? `\\x${code.toString(16).padStart(2, '0')}`
    : `\\u${code.toString(16).padStart(4, '0')}`;
}

/**
 * TEXT as a terminal would show it without acting on it: every control character (ESC, CSI, OSC,
 * BEL, backspace, carriage return, tab, DEL, C1 controls, bidi overrides) written as its escape
 * (`\x1b`, `\x07`, `\r`, `\u202e`), never sent. Text from sheets and stores is data: everything
 * mbulk prints to a terminal goes through this (the CLI's Output does it for every line).
 *
 * `lines: true` keeps line feeds (text of several lines mbulk wrote itself); by default a line feed
 * is shown as `\n` too, so one value stays on one line. Idempotent: its output holds no control
 * character, so it may be applied twice.
 */
export function visibleText(text: string, options: { lines?: boolean } = {}): string {
  const pattern = options.lines === true ? CONTROL : CONTROL_OR_NEWLINE;
  pattern.lastIndex = 0;
  return pattern.test(text) ? text.replace(pattern, escape) : text;
}

/**
 * TEXT made visible (`visibleText`), then cut to at most `max` characters with `…` when longer: the
 * escapes are made before the cut, so a cut never leaves half of a raw escape sequence, and the cut
 * never splits an escape (`\x1b`) or a surrogate pair.
 */
export function visibleCut(text: string, max: number): string {
  const shown = visibleText(text);
  if (shown.length <= max) return shown;
  let end = Math.max(0, max);
  // Not inside an escape made above (`\x1b`, `\u202e`, `\r`: at most 6 characters long).
  const escapeStart = shown.lastIndexOf('\\', end - 1);
  if (escapeStart >= 0 && escapeStart > end - 6) {
    const made = /^\\(?:x[0-9a-f]{2}|u[0-9a-f]{4}|[tnr])/.exec(
      shown.slice(escapeStart, escapeStart + 6),
    )?.[0];
    if (made !== undefined && escapeStart + made.length > end) end = escapeStart;
  }
  const code = shown.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return `${shown.slice(0, end)}…`;
}
