/** Characters that make a spreadsheet treat text as a formula (OWASP "CSV injection"). */
const TRIGGERS = new Set(['=', '+', '-', '@', '\t', '\r']);

/**
 * Neutralise a TEXT cell for CSV/XLSX export: text starting with `=`, `+`, `-`, `@`, tab or carriage
 * return gets a leading `'`, so spreadsheet programs show it as text instead of running it. Apply to text
 * cells only: numbers written as numbers (a negative amount) are safe and must stay numbers.
 * Importers undo it with `restoreFormulaText`, so export → import round-trips.
 */
export function neutralizeFormula(text: string): string {
  return text.length > 0 && TRIGGERS.has(text[0] as string) ? `'${text}` : text;
}

/**
 * Neutralise text merchant-bulk writes into a results file (results.csv, failed.csv's `mbulk_error`):
 * like `neutralizeFormula`, but a plain number (`-5`, `+2.50`, `1e3`) is left as it is, since no
 * importer reads these files back and a number is not a formula.
 */
export function neutralizeResultText(text: string): string {
  if (text === '' || !TRIGGERS.has(text[0] as string)) return text;
  if (/^[+-]?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(text)) return text;
  return `'${text}`;
}

/**
 * Text that a spreadsheet would turn into a live formula once someone edits the cell: it starts with
 * `=`, or with `+`, `-` or `@` and holds formula syntax (`(`, `!`, `|`, `=`: a function call, a
 * sheet reference, a DDE payload such as `+cmd|' /C calc'!A0`). `-Aina`, `+60 12-345`, `-5% off` or
 * `@home` are not.
 */
export function isFormulaRisk(text: string): boolean {
  const first = text[0];
  if (first === '=') return true;
  return (first === '+' || first === '-' || first === '@') && /[=(!|]/.test(text);
}

/**
 * Neutralise a TEXT cell for XLSX export. An XLSX text cell is stored as a string and never
 * evaluated when the workbook opens, so text is written as it is, except a formula risk
 * (`isFormulaRisk`), which gets the leading `'` so that editing the cell does not run it. CSV has
 * no cell types: use `neutralizeFormula` there. `restoreFormulaText` reads both back.
 */
export function neutralizeXlsxText(text: string): string {
  return isFormulaRisk(text) ? `'${text}` : text;
}

/**
 * The inverse of `neutralizeFormula` for importers: `'=x` → `=x`; `'` followed by anything else (a
 * deliberate apostrophe, `'quoted'`) is kept as written.
 */
export function restoreFormulaText(text: string): string {
  return text.length > 1 && text[0] === "'" && TRIGGERS.has(text[1] as string) ? text.slice(1) : text;
}
