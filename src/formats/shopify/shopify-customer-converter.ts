import type { CustomerColumns } from '../../mapping/customer-sheet.js';
import type { CellValue, SheetColumn, SheetRow } from '../../sheets/sheet-row.js';
import { SourceColumns, type ColumnUse } from '../source-format.js';

/**
 * Columns of Shopify's customer CSV (admin → Customers → Export), older and current headers:
 * `First Name`, `Last Name`, `Email`, `Phone`, and `Default Address Phone` (current) or the
 * address block's `Phone` (older exports have only one phone column).
 */
const HEADERS = {
  first: ['first name'],
  last: ['last name'],
  email: ['email'],
  phone: ['phone'],
  addressPhone: ['default address phone'],
} as const;
type ShopifyCustomerColumn = keyof typeof HEADERS;

function notImported(header: string): string | undefined {
  const h = header.toLowerCase();
  if (h === 'customer id') return "Shopify's own id: customers are matched by phone, then email";
  if (
    h.startsWith('default address') ||
    [
      'company',
      'address1',
      'address2',
      'city',
      'province',
      'province code',
      'country',
      'country code',
      'zip',
    ].includes(h)
  )
    return 'address: the API takes no address on customers';
  if (h.startsWith('accepts')) return 'marketing consent: no such field in the API';
  if (h === 'tags' || h === 'note') return `${h}: no such field in the API`;
  if (h.startsWith('total ')) return 'order history: read-only in Shopify';
  if (h === 'tax exempt') return 'no such field in the API';
  return undefined;
}

/** The text of a phone cell: Shopify writes `'+16135550135` so spreadsheets keep the plus. */
function phoneText(text: string): string {
  return text.startsWith("'") ? text.slice(1).trim() : text;
}

/**
 * A Shopify customer export read as the customers sheet (`name, phone, email`): the name from
 * first and last name, the phone from `Phone`, else `Default Address Phone` (then normalised like
 * every phone). Cells keep their source column letters, so issues point at the export's cells.
 */
export class ShopifyCustomerConverter {
  private readonly cols: SourceColumns<ShopifyCustomerColumn>;
  /** Columns for mapCustomerRow: keys are the canonical fields, letters and headers the source's. */
  readonly columns: CustomerColumns;

  constructor(columns: readonly SheetColumn[]) {
    this.cols = new SourceColumns(columns, HEADERS);
    const c = this.cols;
    const column = (field: string, from: ShopifyCustomerColumn): SheetColumn => {
      const src = c.column(from);
      return { key: field, header: src?.header ?? field, letter: src?.letter ?? '', index: src?.index ?? 0 };
    };
    this.columns = { name: column('name', 'first'), email: column('email', 'email') };
    if (c.has('phone') || c.has('addressPhone'))
      this.columns.phone = column('phone', c.has('phone') ? 'phone' : 'addressPhone');
  }

  row(row: SheetRow): SheetRow {
    const c = this.cols;
    const name = [c.text(row, 'first'), c.text(row, 'last')].filter((t) => t !== '').join(' ');
    const phone = phoneText(c.text(row, 'phone')) || phoneText(c.text(row, 'addressPhone'));
    const cells: Record<string, CellValue> = { name, phone, email: c.text(row, 'email') };
    return { sheet: row.sheet, rowNumber: row.rowNumber, cells };
  }

  /** Every source column once: the field it feeds, or not imported. */
  uses(): ColumnUse[] {
    const c = this.cols;
    c.use('first', 'name');
    c.use('last', 'name');
    c.use('email', 'email');
    c.use('phone', 'phone');
    c.use('addressPhone', 'phone', 'when Phone is blank');
    return c.uses(notImported);
  }
}
