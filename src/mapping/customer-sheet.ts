import type { CellValue, SheetColumn, SheetRow } from '../sheets/sheet-row.js';
import { cutShortIssue } from './cut-short-row.js';
import { cellText, isBlank } from '../sheets/cell-result.js';
import { parseEmailCell } from '../sheets/email-cell.js';
import { restoreFormulaText } from '../sheets/neutralize-formula.js';
import { normalizePhone } from '../sheets/phone.js';
import type { RowIssue } from './row-issue.js';
import type { TrimmedCells } from './trimmed-cells.js';

export type CustomerField = 'id' | 'name' | 'phone' | 'email' | 'command';
export const CUSTOMER_COMMANDS = ['upsert', 'create', 'update', 'skip'] as const;
export type CustomerCommand = (typeof CUSTOMER_COMMANDS)[number];

/** Headers accepted for each customer column (case-insensitive). */
export const CUSTOMER_COLUMN_ALIASES: Readonly<Record<CustomerField, readonly string[]>> = {
  id: ['id', 'customer_id', 'customer id'],
  name: ['name', 'full name', 'customer name'],
  phone: ['phone', 'phone number', 'mobile', 'telephone'],
  email: ['email', 'e-mail', 'email address'],
  command: ['command'],
};
/** Export-only columns: read back without a warning, never written. */
const READ_ONLY = new Set([
  'address1',
  'address2',
  'district',
  'city',
  'state',
  'zip',
  'country',
  'latitude',
  'longitude',
  'created_at',
  'updated_at',
]);

export type CustomerColumns = Partial<Record<CustomerField, SheetColumn>>;

/** A customer as the sheet describes it: only the fields the sheet mentions are set. */
export interface DesiredCustomer {
  sheet: string;
  rowNumber: number;
  command: CustomerCommand;
  id?: string;
  name?: string;
  /** International digits, normalised. */
  phone?: string;
  /**
   * The cell as written when it is bare digits that also read as a valid number with their country
   * code (the API's format, which exports write) but were normalised otherwise (a valid national
   * number of the store's country too). The plan prefers it when a live customer has exactly it.
   */
  phoneDigits?: string;
  /** `null` only with blank: 'clear' (erase the live email). */
  email?: string | null;
}

export interface CustomerMappingOptions {
  /** ISO country of the store: national numbers are read in it. */
  country: string;
  /** 'keep' (default): a blank cell leaves the live value; 'clear': a blank email erases it. */
  blank?: 'keep' | 'clear';
  /** Counts id/phone/email cells that had edge whitespace or a BOM (read trimmed), for one warning per column. */
  trimmed?: TrimmedCells;
}

export function resolveCustomerColumns(
  sheet: string,
  header: readonly SheetColumn[],
): { columns: CustomerColumns; issues: RowIssue[] } {
  const columns: CustomerColumns = {};
  const issues: RowIssue[] = [];
  for (const col of header) {
    const field = (Object.keys(CUSTOMER_COLUMN_ALIASES) as CustomerField[]).find((f) =>
      CUSTOMER_COLUMN_ALIASES[f].includes(col.key),
    );
    if (field === undefined) {
      if (col.key === '' || col.key.startsWith('mbulk_') || READ_ONLY.has(col.key)) continue;
      issues.push({
        severity: 'warning',
        code: 'unknown_column',
        message: `column "${col.header}" is not a customer column and is ignored (columns: id, name, phone, email, command)`,
        sheet,
        rowNumber: 1,
        column: col.letter,
        header: col.header,
      });
    } else if (columns[field]) {
      issues.push({
        severity: 'error',
        code: 'duplicate_column',
        message: `columns "${columns[field].header}" and "${col.header}" both mean ${field}; keep one`,
        sheet,
        rowNumber: 1,
        column: col.letter,
        header: col.header,
      });
    } else {
      columns[field] = col;
    }
  }
  if (!columns.id && !columns.phone && !columns.email) {
    issues.push({
      severity: 'error',
      code: 'missing_key_column',
      message: 'the sheet needs an id, phone or email column to match customers',
      sheet,
      rowNumber: 1,
    });
  }
  return { columns, issues };
}

/** Decodes one customer row; every problem of the row is collected. */
export function mapCustomerRow(
  row: SheetRow,
  columns: CustomerColumns,
  options: CustomerMappingOptions,
): { customer?: DesiredCustomer; issues: RowIssue[] } {
  if (row.cutShort === true) return { issues: [cutShortIssue(row)] };
  const issues: RowIssue[] = [];
  const cell = (f: CustomerField): CellValue | undefined =>
    columns[f] ? row.cells[columns[f].key] : undefined;
  const fail = (f: CustomerField, code: string, message: string, value?: CellValue): void => {
    const col = columns[f];
    const i: RowIssue = { severity: 'error', code, message, sheet: row.sheet, rowNumber: row.rowNumber };
    if (col) {
      i.column = col.letter;
      i.header = col.header;
    }
    if (value !== undefined && value !== null) i.value = cellText(value);
    issues.push(i);
  };
  const customer: DesiredCustomer = { sheet: row.sheet, rowNumber: row.rowNumber, command: 'upsert' };
  // Key cells (id, phone, e-mail) are read trimmed; a cell that had edge spaces/tabs/BOM is counted.
  const countTrim = (f: CustomerField, value: CellValue | undefined): void => {
    const col = columns[f];
    if (options.trimmed && col && typeof value === 'string')
      options.trimmed.trim(value, col, row.sheet, row.rowNumber);
  };

  const command = cell('command');
  if (!isBlank(command)) {
    const c = cellText(command).trim().toLowerCase();
    if ((CUSTOMER_COMMANDS as readonly string[]).includes(c)) customer.command = c as CustomerCommand;
    else
      fail('command', 'invalid_command', `command must be one of ${CUSTOMER_COMMANDS.join(', ')}`, command);
  }
  const id = cell('id');
  if (!isBlank(id)) {
    countTrim('id', id);
    customer.id = cellText(id).trim();
  }
  const name = cell('name');
  // An export neutralised a name like "=x" or "-Aina" as "'=x": read it back as written.
  if (!isBlank(name)) customer.name = restoreFormulaText(cellText(name).trim());
  const phone = cell('phone');
  if (!isBlank(phone)) {
    countTrim('phone', phone);
    const r = normalizePhone(phone, options.country);
    if (r.ok) {
      customer.phone = r.value;
      const digits = typeof phone === 'string' ? phone.trim() : '';
      if (/^[1-9]\d{6,14}$/.test(digits) && digits !== r.value) {
        const asApi = normalizePhone(`+${digits}`, '');
        if (asApi.ok && asApi.value === digits) customer.phoneDigits = digits;
      }
    } else fail('phone', r.code, r.message, phone);
  }
  const email = cell('email');
  if (!isBlank(email)) {
    countTrim('email', email);
    const r = parseEmailCell(email);
    if (r.ok) customer.email = r.value;
    else fail('email', r.code, r.message, email);
  } else if (columns.email && options.blank === 'clear') {
    customer.email = null;
  }
  if (
    customer.command !== 'skip' &&
    customer.id === undefined &&
    customer.phone === undefined &&
    customer.email == null
  ) {
    if (issues.length === 0) {
      fail('phone', 'missing_key', 'the row has no id, phone or email to match or create the customer');
    }
  }
  return issues.length > 0 ? { issues } : { customer, issues };
}
