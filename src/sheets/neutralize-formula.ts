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
 * The inverse of `neutralizeFormula` for importers: `'=x` → `=x`; `'` followed by anything else (a
 * deliberate apostrophe, `'quoted'`) is kept as written.
 */
export function restoreFormulaText(text: string): string {
  return text.length > 1 && text[0] === "'" && TRIGGERS.has(text[1] as string) ? text.slice(1) : text;
}
