import { cellError, type CellResult } from './cell-result.js';

/**
 * What Excel writes for a long number in a "General" cell (`9.19961E+11`, `3.65275E+11`, `1E+12`):
 * one digit, up to five decimals, `E+` and the exponent. The digits past the sixth are gone for
 * good, so such a phone, SKU or barcode cannot be read back; a SKU such as `12E4` is not this shape.
 */
const EXCEL_SCIENTIFIC = /^\d(?:[.,]\d{1,14})?E\+\d{1,3}$/i;

/** True when a text cell holds a number Excel turned into scientific notation. */
export function isExcelScientific(text: string): boolean {
  return EXCEL_SCIENTIFIC.test(text.trim());
}

/** What to tell the user about such a cell. */
export function excelScientificMessage(text: string): string {
  return `Excel turned this into ${text.trim()}: format the column as text and export again (the digits are lost in this file)`;
}

/** The cell error for such a cell (code `excel_scientific`). */
export function excelScientificError(text: string): CellResult<never> {
  return cellError('excel_scientific', excelScientificMessage(text));
}
