import type { CellValue, SheetColumn, SheetRow } from '../sheets/sheet-row.js';
import { cellText, isBlank } from '../sheets/cell-result.js';
import { normalizePhone } from '../sheets/phone.js';
import type { RowIssue } from './row-issue.js';

/** A recipient as the sheet gives it: a phone (normalised) or a customer id, and the parameter values. */
export interface DesiredRecipient {
  sheet: string;
  rowNumber: number;
  to?: string;
  customerId?: string;
  /** Letter of the customer_id column (an unknown customer is reported in that cell). */
  customerIdColumn?: string;
  parameters: Record<string, string>;
}

export interface RecipientColumns {
  to?: SheetColumn;
  customerId?: SheetColumn;
  /** Template parameter → column. */
  parameters: Map<string, SheetColumn>;
}

/**
 * Maps a recipients sheet onto the template's parameters: `to` (or phone) or `customer_id`, and one
 * column per named body variable (matched case-insensitively). A missing parameter column is fatal.
 */
export function resolveRecipientColumns(
  sheet: string,
  header: readonly SheetColumn[],
  parameters: readonly string[],
): { columns: RecipientColumns; issues: RowIssue[] } {
  const columns: RecipientColumns = { parameters: new Map() };
  const issues: RowIssue[] = [];
  const byKey = new Map(header.map((c) => [c.key, c]));
  const to = byKey.get('to') ?? byKey.get('phone');
  if (to) columns.to = to;
  const customerId = byKey.get('customer_id') ?? byKey.get('customer id');
  if (customerId) columns.customerId = customerId;
  if (!columns.to && !columns.customerId) {
    issues.push({
      severity: 'error',
      code: 'missing_recipient_column',
      message: 'the sheet needs a "to" column (phone) or a "customer_id" column',
      sheet,
      rowNumber: 1,
    });
  }
  for (const p of parameters) {
    const col = byKey.get(p.toLowerCase());
    if (col) columns.parameters.set(p, col);
    else {
      issues.push({
        severity: 'error',
        code: 'missing_parameter_column',
        message: `the template needs the parameter "${p}": add a column named ${p}`,
        sheet,
        rowNumber: 1,
      });
    }
  }
  const known = new Set([columns.to, columns.customerId, ...columns.parameters.values()].filter(Boolean));
  for (const col of header) {
    if (!known.has(col) && col.key !== '' && !col.key.startsWith('mbulk_') && col.key !== 'name') {
      issues.push({
        severity: 'warning',
        code: 'unknown_column',
        message: `column "${col.header}" is not a parameter of the template and is ignored`,
        sheet,
        rowNumber: 1,
        column: col.letter,
        header: col.header,
      });
    }
  }
  return { columns, issues };
}

export function mapRecipientRow(
  row: SheetRow,
  columns: RecipientColumns,
  country: string,
): { recipient?: DesiredRecipient; issues: RowIssue[] } {
  const issues: RowIssue[] = [];
  const fail = (col: SheetColumn | undefined, code: string, message: string, value?: CellValue): void => {
    const i: RowIssue = { severity: 'error', code, message, sheet: row.sheet, rowNumber: row.rowNumber };
    if (col) {
      i.column = col.letter;
      i.header = col.header;
    }
    if (value !== undefined && !isBlank(value)) i.value = cellText(value);
    issues.push(i);
  };
  const recipient: DesiredRecipient = { sheet: row.sheet, rowNumber: row.rowNumber, parameters: {} };
  const to = columns.to ? row.cells[columns.to.key] : undefined;
  const customerId = columns.customerId ? row.cells[columns.customerId.key] : undefined;
  if (!isBlank(to)) {
    const phone = normalizePhone(to, country);
    if (phone.ok) recipient.to = phone.value;
    else fail(columns.to, phone.code, phone.message, to);
  } else if (!isBlank(customerId)) {
    recipient.customerId = cellText(customerId).trim();
    if (columns.customerId) recipient.customerIdColumn = columns.customerId.letter;
  } else {
    fail(
      columns.to ?? columns.customerId,
      'missing_recipient',
      'the row has no phone (to) and no customer_id',
    );
  }
  for (const [name, col] of columns.parameters) {
    const v = row.cells[col.key];
    if (isBlank(v))
      fail(col, 'missing_parameter', `the parameter "${name}" is blank; every parameter needs a value`);
    // Edges trimmed: a stray space or line break (e.g. mixed line endings) must not reach the customer.
    else recipient.parameters[name] = cellText(v).trim();
  }
  return issues.length > 0 ? { issues } : { recipient, issues };
}
